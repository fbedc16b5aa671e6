"""The QGEval dimension table (`qascore-lab meta --benchmark qgeval`) on hand-made records."""

from __future__ import annotations

import math

import numpy as np
import pytest

from qascore.records import Record
from qascore_lab.meta import qgeval_benchmarks as qb


def _records() -> list[Record]:
    rows = [  # relevance, answerability, answer consistency, BLEURT, GPTScore-src per dimension (no answer_consistency)
        (1.0, 1.0, 3.0, 0.1, {"relevance": -3.0, "answerability": -1.0}),
        (2.0, 2.0, 2.0, 0.2, {"relevance": -2.0, "answerability": -2.0}),
        (3.0, 3.0, 1.0, 0.3, {"relevance": -1.0, "answerability": -3.0}),
        (3.0, 1.0, 1.0, 0.4, {"relevance": -1.0, "answerability": -1.0}),
    ]
    out = []
    for rel, ans, cons, bleurt, gpt in rows:
        extra = {"relevance": rel, "answerability": ans, "answer_consistency": cons, "qgeval:BLEURT": bleurt}
        extra.update({f"qgeval:GPTScore-src:{d}": v for d, v in gpt.items()})
        out.append(Record(candidate="q", context="p", extra=extra))
    return out


def test_shipped_columns_read_per_dimension():
    recs = _records()
    assert qb.shipped_scores(recs, "BLEURT", "answerability").tolist() == [0.1, 0.2, 0.3, 0.4]
    assert qb.shipped_scores(recs, "GPTScore-src", "answerability").tolist() == [-1.0, -2.0, -3.0, -1.0]
    assert np.isnan(qb.shipped_scores(recs, "GPTScore-src", "answer_consistency")).all()
    assert np.isnan(qb.shipped_scores(recs, "RQUGE", "relevance")).all()


def test_dimension_table_by_hand():
    recs = _records()
    rows = {r["metric"]: r for r in qb.dimension_table(recs, {"mine": np.array([1.0, 2.0, 3.0, 4.0])})}
    assert list(rows)[0] == "mine" and rows["mine"]["source"] == "qascore" and len(rows) == 1 + len(qb.SHIPPED)
    # x = 1,2,3,4 against relevance 1,2,3,3: r = 3.5 / sqrt(5 * 2.75)
    assert rows["mine"]["pearson"]["relevance"] == pytest.approx(3.5 / math.sqrt(5 * 2.75))
    # against answer consistency 3,2,1,1: the same r, negative
    assert rows["mine"]["pearson"]["answer_consistency"] == pytest.approx(-3.5 / math.sqrt(5 * 2.75))
    # GPTScore-src against relevance: -3,-2,-1,-1 vs 1,2,3,3: r = 1; it has no answer-consistency score
    assert rows["GPTScore-src"]["pearson"]["relevance"] == pytest.approx(1.0)
    assert math.isnan(rows["GPTScore-src"]["pearson"]["answer_consistency"])
    assert rows["GPTScore-src"]["n"]["answer_consistency"] == 0 and rows["BLEURT"]["n"]["relevance"] == 4
    text = qb.format_table(list(rows.values()))
    assert "answer consistency" in text.splitlines()[0] and "--" in text.splitlines()[1 + qb.SHIPPED.index("GPTScore-src") + 1]


def test_cli_prints_the_table_beside_the_usual_rows(monkeypatch, capsys):
    from qascore_lab.cli import main
    from qascore_lab.meta import benchmarks as bm

    recs = _records()
    for rec, c in zip(recs, ["x y", "x", "z", "x y z"]):
        rec.candidate, rec.references = c, ["x y"]
        rec.extra["human"] = rec.extra["relevance"]
    monkeypatch.setattr(bm, "get", lambda name, **kw: bm.Benchmark(name="qgeval", title="t", kind="correlation",
                                                                 datasets={"squad": recs}))
    assert main(["meta", "--benchmark", "qgeval", "-m", "f1", "--no-ci"]) == 0
    out = capsys.readouterr().out
    assert "Pearson r with each human dimension" in out
    line = next(x for x in out.splitlines() if x.startswith("f1 ") and "qascore" in x)
    f1 = [1.0, 2 / 3, 0.0, 0.8]
    want = np.corrcoef(f1, [3.0, 2.0, 1.0, 1.0])[0, 1]   # answer consistency, the last column
    assert float(line.split()[-1]) == pytest.approx(want, abs=5e-4)
