"""`bench models --profiles qg200`: the rows `answerability` and `qrelscore` are timed on."""

from __future__ import annotations

import pytest

from qascore_lab.bench import models


def test_qg200_rows_are_squad_questions_on_200_word_passages():
    from qascore_lab.datasets import DataNotFound

    try:
        data = models.squad_rows(30)
    except DataNotFound as err:
        pytest.skip(f"../shared/data absent: {err}")
    assert len(data) == 30
    for r in data:
        assert 180 <= len(r["context"].split()) <= 220 and r["span"] in r["context"]
        assert r["qg_candidate"] == r["question"]
    per = {}
    for r in data:
        per[r["context"]] = per.get(r["context"], 0) + 1
    assert max(per.values()) <= 12
    recs = models._records(data, qg=True)
    assert recs[0].candidate == data[0]["question"] and recs[0].answer == data[0]["span"]
    assert models._records(data, qg=False)[0].answer == ""


def test_qg200_falls_back_to_synthetic_text(tmp_path, capsys):
    data = models.rows("qg200", 13, root=str(tmp_path / "none"))
    assert "synthetic" in capsys.readouterr().out
    assert len(data) == 13 and all(r["span"] in r["context"] for r in data)
    assert all(len(r["context"].split()) == 200 for r in data)


@pytest.mark.parametrize("text, want", [
    ("judge,ava", ["judge", "ava"]),
    ("answerability:focus=100,dtype=int8,qrelscore", ["answerability:focus=100,dtype=int8", "qrelscore"]),
    ("answerability, answerability:dtype=int8 ,", ["answerability", "answerability:dtype=int8"]),
    ("bertscore:layer=3,kpqa-bertscore:layer=3", ["bertscore:layer=3", "kpqa-bertscore:layer=3"]),
])
def test_metric_specs_split_where_a_new_spec_starts(text, want):
    from qascore_lab.bench.models import split_specs

    assert split_specs(text) == want
