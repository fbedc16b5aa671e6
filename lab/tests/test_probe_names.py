"""`train probe-names`: the gold name beside another question's gold that shares a word with it and names another."""

from __future__ import annotations

import json

from qascore_lab.train.probe_names import FAMILY, build, is_name
from qascore_lab.train.probe_plain import TEMPLATES
from qascore_lab.train.probes import ASSERTION


def _assertion(qid, question, gold, wrong, refs):
    row = {"qid": qid, "question": question, "references": refs, "origin": "evouna-tq", "wrong_from": "system",
           "family": "assertion", "member": "right"}
    return dict(row, candidate=ASSERTION[1].format(A=gold, B=wrong))


def test_pairs_a_namesake_from_another_question(tmp_path):
    moon = _assertion("q1", "Who first walked on the Moon?", "Neil Armstrong", "Buzz Aldrin", ["Neil Armstrong"])
    jazz = _assertion("q2", "Who sang What a Wonderful World?", "Louis Armstrong", "Bing Crosby", ["Louis Armstrong"])
    city = _assertion("q3", "What is the capital of Australia?", "Canberra", "Sydney", ["Canberra"])
    for split, rows in (("train", [jazz]), ("dev", [moon, city]), ("test", [])):
        (tmp_path / f"{split}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = build(tmp_path, seed=13)
    assert not out["test"]
    r, w = out["dev"]   # "Canberra" is no two-word name: no pair
    assert (r["family"], r["member"], r["label"], w["member"], w["label"]) == (FAMILY, "right", 1, "wrong", 0)
    template = next(t for t in TEMPLATES if t.format(A="Neil Armstrong") == r["candidate"])
    assert w["candidate"] == template.format(A="Louis Armstrong")
    (tr, tw), = [out["train"]]  # the other question gets its namesake the other way round
    assert "Louis Armstrong" in tr["candidate"] and "Neil Armstrong" in tw["candidate"] and tw["label"] == 0
    assert build(tmp_path, seed=13) == out   # seeded


def test_is_name():
    assert is_name("Neil Armstrong") and is_name("Bank of England") and is_name("FRED TRUMAN")
    assert not is_name("Canberra") and not is_name("the brain") and not is_name("Apollo 11")
    assert not is_name("A Very Long Name Of Five Words")
