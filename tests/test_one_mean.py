"""Whole-file and chunked scoring print one corpus mean (exactly rounded sum), and each metric empties
its own memos (`Metric.forget_memos`) between chunks."""

from __future__ import annotations

import random

import pytest

from qascore.metrics.base import exact_mean
from qascore.stream import ExactMean


def test_exact_mean_where_a_plain_float_sum_loses_the_small_term():
    xs = [1e16, 1.0, -1e16]
    assert sum(xs) / 3 == 0.0            # what a running float sum gives
    assert exact_mean(xs) == pytest.approx(1 / 3)
    assert exact_mean([]) == 0.0


@pytest.mark.parametrize("chunk", [1, 3, 7, 1000])
def test_whole_file_mean_equals_chunked_mean_bit_for_bit(chunk):
    rng = random.Random(chunk)
    xs = [rng.random() * 10 ** rng.randint(-8, 8) for _ in range(500)]
    streamed = ExactMean()
    for i in range(0, len(xs), chunk):
        streamed.extend(xs[i:i + chunk])
    assert streamed.value == exact_mean(xs)


def test_metric_corpus_is_the_exact_mean():
    import qascore

    recs = [{"candidate": c, "references": ["a b c"]} for c in ["a", "a b", "a b c", "x", "b c"] * 7]
    res = qascore.load("f1").score(recs)
    assert res.corpus == exact_mean(res.scores)


def test_kpqa_metric_forgets_its_keyphrase_weights_memo():
    from qascore.metrics.registry import load
    from qascore.runtime.cache import shared

    memo = shared(("kpw-cache", "test-only"), dict)
    memo["k"] = 1
    load("f1").forget_memos()              # a lexical metric leaves KPW's memo alone
    assert memo == {"k": 1}
    load("kpqa-rougeL").forget_memos()     # the tagger is not loaded for this
    assert memo == {}
