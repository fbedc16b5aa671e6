"""`train probe-generic`: the gold beside the kind the question asks for, in the same words."""

from __future__ import annotations

import json

import pytest

from qascore_lab.train.probe_generic import FAMILY, PEOPLE, build, kind_of
from qascore_lab.train.probe_plain import TEMPLATES
from qascore_lab.train.probes import ASSERTION


@pytest.mark.parametrize("question, kind", [
    ("Which city is known as Auld Reekie?", "a city"),
    ("What type of fish is used in Worcestershire sauce?", "a fish"),
    ("Which English king had six wives?", "an english king"),
    ("Who painted the Mona Lisa?", PEOPLE[0]),
    ("What is the capital of France?", None),      # names no kind
    ("In which year did the war end?", None),
])
def test_kind_of(question, kind):
    assert kind_of(question, PEOPLE[0]) == kind


def test_one_pair_per_question_in_one_template(tmp_path):
    row = {"qid": "q1", "question": "Which city is known as Auld Reekie?", "references": ["Edinburgh"],
           "origin": "evouna-tq", "wrong_from": "system", "family": "assertion", "member": "right",
           "candidate": ASSERTION[1].format(A="Edinburgh", B="Glasgow")}
    other = dict(row, qid="q2", question="What is the capital of France?", references=["Paris"],
                 candidate=ASSERTION[1].format(A="Paris", B="Lyon"))
    for split, rows in (("train", []), ("dev", [row, dict(row), other]), ("test", [])):
        (tmp_path / f"{split}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = build(tmp_path, seed=13)
    r, w = out["dev"]   # one pair for q1 (twice in the suite), none for q2
    assert (r["family"], r["label"], w["label"]) == (FAMILY, 1, 0)
    template = next(t for t in TEMPLATES if t.format(A="Edinburgh") == r["candidate"])
    assert w["candidate"] == template.format(A="A city" if template.startswith("{") else "a city")
    assert build(tmp_path, seed=13) == out
