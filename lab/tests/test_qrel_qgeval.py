"""QGEval loader (reads ../shared/data; slow, skipped when the data is absent)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from qascore_lab.datasets import DataNotFound, qgeval
from qascore_lab.meta import qgeval_benchmarks

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def records():
    try:
        return qgeval.load()
    except DataNotFound as err:
        pytest.skip(f"QGEval data not available: {err}")


def test_shape_and_fields(records):
    assert len(records) == 1500
    assert len({r.context for r in records}) == 100
    assert len({r.extra["source"] for r in records}) == 15
    for r in records[:50]:
        assert r.candidate and r.context and len(r.references) == 1
        assert all(1.0 <= r.extra[d] <= 3.0 for d in qgeval.DIMENSIONS)
        assert "qgeval:QRelScore" in r.extra and "qgeval:UniEval:relevance" in r.extra


@pytest.mark.parametrize("dimension,expected", [("relevance", -0.010), ("answerability", 0.098)])
def test_authors_qrelscore_column_aligned(records, dimension, expected):
    # the QGEval authors' QRelScore column against the human scores, joined row by row
    x = np.array([r.extra["qgeval:QRelScore"] for r in records])
    y = np.array([r.extra[dimension] for r in records])
    assert stats.pearsonr(x, y)[0] == pytest.approx(expected, abs=0.0015)


def test_benchmark_builder(records):
    bench = qgeval_benchmarks.benchmark(dimension="answerability")
    recs = bench.datasets["squad"]
    assert bench.name == "qgeval" and len(recs) == 1500
    assert all(r.extra["human"] == r.extra["answerability"] for r in recs)
    with pytest.raises(ValueError):
        qgeval_benchmarks.benchmark(dimension="beauty")
