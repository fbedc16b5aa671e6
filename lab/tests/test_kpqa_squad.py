"""SQuAD 2.0 reader: hand-made JSON in tmp_path, plus the real dev file (slow)."""

from __future__ import annotations

import json

import pytest

from qascore_lab.datasets import DataNotFound, squad
from qascore.records import InputError

DOC = {"version": "v2.0", "data": [
    {"title": "T1", "paragraphs": [
        {"context": "Paris is the capital of France. It is large.",
         "qas": [{"id": "q1", "question": "What is the capital of France?", "is_impossible": False,
                  "answers": [{"text": "Paris", "answer_start": 0}, {"text": "Paris", "answer_start": 0}]},
                 {"id": "q2", "question": "What is the capital of Mars?", "is_impossible": True,
                  "answers": [], "plausible_answers": [{"text": "France", "answer_start": 24}]}]}]},
    {"title": "T2", "paragraphs": [
        {"context": "Water boils at 100 degrees.",
         "qas": [{"id": "q3", "question": "At what temperature does water boil?", "is_impossible": False,
                  "answers": [{"text": "100 degrees", "answer_start": 15}]}]}]},
]}


def _write(tmp_path, doc):
    p = tmp_path / "dev.json"
    p.write_text(json.dumps(doc), encoding="utf-8")
    return p


@pytest.mark.parametrize("answerable_only,ids", [(False, ["q1", "q2", "q3"]), (True, ["q1", "q3"])])
def test_load_flattens(tmp_path, answerable_only, ids):
    qs = squad.load(_write(tmp_path, DOC), answerable_only=answerable_only)
    assert [q.id for q in qs] == ids


def test_fields(tmp_path):
    qs = {q.id: q for q in squad.load(_write(tmp_path, DOC))}
    assert qs["q1"].passage_index == 0 and qs["q3"].passage_index == 1
    assert qs["q3"].answers[0].end == 26 and qs["q3"].title == "T2"
    assert qs["q2"].is_impossible and qs["q2"].plausible_answers[0].text == "France"
    assert [p[0] for p in squad.passages(list(qs.values()))] == [0, 1]


def test_bad_span_names_question(tmp_path):
    bad = json.loads(json.dumps(DOC))
    bad["data"][1]["paragraphs"][0]["qas"][0]["answers"][0]["answer_start"] = 3
    with pytest.raises(InputError, match="q3"):
        squad.load(_write(tmp_path, bad))


@pytest.mark.slow
def test_real_dev_counts():
    try:
        qs = squad.load()
    except DataNotFound as err:
        pytest.skip(f"../shared/data absent: {err}")
    # Official SQuAD 2.0 dev counts (README of squad_v2_dev).
    assert len(qs) == 11873
    assert sum(1 for q in qs if q.answers) == 5928
