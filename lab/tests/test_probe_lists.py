"""`train probe-lists`: gold and wrong answer read back from an assertion pair, and the pair it writes."""

from __future__ import annotations

import json

import pytest

from qascore_lab.train.probe_lists import FAMILY, LISTS, build
from qascore_lab.train.probes import ASSERTION, COMMITTED, assertion_parts as gold_and_wrong


@pytest.mark.parametrize("template", ASSERTION)
def test_every_assertion_template_is_read_back(template):
    assert gold_and_wrong(template.format(A="Canberra", B="Sydney")) == ("Canberra", "Sydney")


def test_other_text_is_not_read():
    assert gold_and_wrong("Canberra or Sydney.") is None


def test_one_pair_per_assertion_pair_in_its_split(tmp_path):
    row = {"qid": "q1", "question": "What is the capital of Australia?", "references": ["Canberra"],
           "origin": "evouna-tq", "wrong_from": "system", "family": "assertion"}
    right = dict(row, member="right", candidate=ASSERTION[0].format(A="Canberra", B="Sydney"))
    wrong = dict(row, member="wrong", candidate=ASSERTION[0].format(A="Sydney", B="Canberra"))
    for split, rows in (("train", [right, wrong]), ("dev", []), ("test", [])):
        (tmp_path / f"{split}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = build(tmp_path, seed=13)
    assert not out["dev"] and not out["test"]
    r, w = out["train"]
    assert (r["family"], r["member"], r["label"], w["member"], w["label"]) == (FAMILY, "right", 1, "wrong", 0)
    assert r["candidate"] in {t.format(A="Canberra") for t in COMMITTED}
    assert w["candidate"] in {t.format(A="Canberra", B="Sydney") for t in LISTS}
    assert r["pair"] == w["pair"] and r["references"] == ["Canberra"]
    assert build(tmp_path, seed=13) == out   # seeded
