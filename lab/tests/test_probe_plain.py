"""`train probe-plain`: the gold and a wrong answer in the same committed words, one pair per assertion pair."""

from __future__ import annotations

import json

from qascore_lab.train.probe_plain import FAMILY, TEMPLATES, build
from qascore_lab.train.probes import ASSERTION


def test_one_pair_per_assertion_pair_in_one_template(tmp_path):
    row = {"qid": "q1", "question": "What is the capital of Australia?", "references": ["Canberra"],
           "origin": "evouna-tq", "wrong_from": "system", "family": "assertion"}
    right = dict(row, member="right", candidate=ASSERTION[1].format(A="Canberra", B="Sydney"))
    wrong = dict(row, member="wrong", candidate=ASSERTION[1].format(A="Sydney", B="Canberra"))
    other = dict(row, family="negation", member="right", candidate="Sydney is not the answer; the answer is Canberra.")
    for split, rows in (("train", []), ("dev", [right, wrong, other]), ("test", [])):
        (tmp_path / f"{split}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = build(tmp_path, seed=13)
    assert not out["train"] and not out["test"]
    r, w = out["dev"]
    assert (r["family"], r["member"], r["label"], w["member"], w["label"]) == (FAMILY, "right", 1, "wrong", 0)
    template = next(t for t in TEMPLATES if t.format(A="Canberra") == r["candidate"])
    assert w["candidate"] == template.format(A="Sydney")   # the same words, the wrong answer
    assert r["pair"] == w["pair"] and r["references"] == ["Canberra"]
    assert build(tmp_path, seed=13) == out   # seeded
