"""Thresholded classification and AUROC against sklearn and hand-computed cases."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import accuracy_score, f1_score, precision_score, recall_score, roc_auc_score

from qascore.meta import auroc, binary_scores, dev_test_scores, tune_threshold


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("threshold", [0.2, 0.5, 0.8])
def test_binary_scores_match_sklearn(seed, threshold):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, size=50)
    s = np.clip(0.3 * y + rng.uniform(size=50), 0, 1).round(2)
    res = binary_scores(s, y, threshold)
    pred = s >= threshold
    assert res.accuracy == pytest.approx(accuracy_score(y, pred))
    assert res.precision == pytest.approx(precision_score(y, pred, zero_division=0))
    assert res.recall == pytest.approx(recall_score(y, pred, zero_division=0))
    assert res.f1 == pytest.approx(f1_score(y, pred, zero_division=0))


def test_binary_scores_hand_case():
    # scores .9 .8 .4 .3 .1, labels 1 0 1 0 0, threshold .35 -> predicted 1 1 1 0 0
    # tp = 2, fp = 1, fn = 0: P = 2/3, R = 1, F1 = 0.8, accuracy = 4/5
    res = binary_scores([0.9, 0.8, 0.4, 0.3, 0.1], [1, 0, 1, 0, 0], 0.35)
    assert (res.precision, res.recall, res.f1, res.accuracy) == pytest.approx((2 / 3, 1.0, 0.8, 0.8))
    nothing = binary_scores([0.1, 0.2], [1, 0], 0.5)
    assert (nothing.precision, nothing.recall, nothing.f1) == (0.0, 0.0, 0.0)


@pytest.mark.parametrize("objective", ["accuracy", "f1"])
@pytest.mark.parametrize("seed", range(5))
def test_tuned_threshold_is_optimal_on_dev(objective, seed):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, size=40)
    s = (0.4 * y + rng.uniform(size=40)).round(2)
    t = tune_threshold(s, y, objective)
    best = getattr(binary_scores(s, y, t), objective)
    # brute force over every observed score as a threshold, and beyond both ends
    for cand in np.concatenate([np.unique(s), [s.max() + 1]]):
        assert getattr(binary_scores(s, y, cand), objective) <= best + 1e-12


def test_tune_threshold_hand_case_and_dev_test_protocol():
    # dev: positives at .7 .9, negatives at .2 .6: the best accuracy (1.0) first reached at (0.6+0.7)/2
    assert tune_threshold([0.2, 0.6, 0.7, 0.9], [0, 0, 1, 1]) == pytest.approx(0.65)
    res = dev_test_scores([0.2, 0.6, 0.7, 0.9], [0, 0, 1, 1], [0.64, 0.66, 0.1], [1, 1, 0])
    assert res.threshold == pytest.approx(0.65)
    assert res.accuracy == pytest.approx(2 / 3) and res.recall == pytest.approx(0.5)
    with pytest.raises(ValueError, match="objective"):
        tune_threshold([0.1, 0.2], [0, 1], "auc")


@pytest.mark.parametrize("seed", range(6))
def test_auroc_matches_sklearn_with_ties(seed):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, size=80)
    s = np.round(0.5 * y + rng.uniform(size=80), 1)  # coarse rounding -> many ties
    assert auroc(s, y) == pytest.approx(roc_auc_score(y, s))


def test_auroc_hand_case():
    # positives .8 .4, negatives .4 .2: pairs (pos > neg) .8>.4, .8>.2, .4>.2 = 3 wins, 1 tie -> 3.5/4
    assert auroc([0.8, 0.4, 0.4, 0.2], [1, 1, 0, 0]) == pytest.approx(0.875)
    with pytest.raises(ValueError, match="both"):
        auroc([0.1, 0.2], [1, 1])
    with pytest.raises(ValueError, match="0/1"):
        auroc([0.1, 0.2], [2, 1])


def test_log_loss_matches_sklearn():
    from sklearn.metrics import log_loss as sk_log_loss

    from qascore.meta.classification import log_loss

    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, size=40)
    p = rng.uniform(0.01, 0.99, size=40)
    assert log_loss(p, y) == pytest.approx(sk_log_loss(y, p))


@pytest.mark.parametrize("a, q, expected", [
    # logits +a (a share q of them positive) and -a (a share q negative): the loss is least where
    # sigmoid(a / T) = q, i.e. T = a / logit(q)
    (4.0, 0.8, 4.0 / np.log(4.0)),
    (np.log(4.0), 0.8, 1.0),            # already calibrated
    (1.0, 0.9, 1.0 / np.log(9.0)),      # under-confident: T < 1 sharpens
])
def test_fit_temperature_hand_cases(a, q, expected):
    from qascore.meta.classification import fit_temperature

    n_pos = round(10 * q)
    logits = [a] * 10 + [-a] * 10
    labels = [1] * n_pos + [0] * (10 - n_pos) + [0] * n_pos + [1] * (10 - n_pos)
    assert fit_temperature(logits, labels) == pytest.approx(expected, rel=1e-4)


def test_paired_auroc_hand_cases_and_sklearn():
    """Identical models differ by 0 (p = 1); a perfect model against its reverse by 1 (p = 0); the point
    estimate is sklearn's AUROC difference."""
    from qascore.meta.classification import paired_auroc

    y = [0, 1, 0, 1, 1, 0, 1, 0]
    s = [0.1, 0.9, 0.2, 0.8, 0.7, 0.3, 0.6, 0.4]
    same = paired_auroc(s, s, y, n_resamples=200)
    assert (same.difference, same.ci_low, same.ci_high, same.p) == (0.0, 0.0, 0.0, 1.0)
    flip = paired_auroc(s, [-v for v in s], y, n_resamples=200)
    assert (flip.difference, flip.ci_low, flip.ci_high, flip.p) == (1.0, 1.0, 1.0, 0.0)
    rng = np.random.default_rng(0)
    yy = rng.integers(0, 2, 300)
    a, b = yy + rng.normal(0, 1.0, 300), yy + rng.normal(0, 1.5, 300)
    res = paired_auroc(a, b, yy, n_resamples=300)
    assert res.difference == pytest.approx(roc_auc_score(yy, a) - roc_auc_score(yy, b), abs=1e-12)
    assert res.ci_low < res.difference < res.ci_high and res.n == 300 and res.n_groups == 300
    with pytest.raises(ValueError, match="groups"):
        paired_auroc(a, b, yy, groups=[0] * 10)


def test_paired_auroc_resamples_groups_whole():
    """Rows copied five times carry no more evidence than the originals: resampled by group, the CI is about
    the originals' width; resampled row by row it is far too narrow."""
    from qascore.meta.classification import paired_auroc

    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, 200)
    a, b = y + rng.normal(0, 1.0, 200), y + rng.normal(0, 1.2, 200)
    width = lambda r: r.ci_high - r.ci_low  # noqa: E731
    base = paired_auroc(a, b, y, n_resamples=400)
    rep = lambda v: np.repeat(v, 5)  # noqa: E731
    grouped = paired_auroc(rep(a), rep(b), rep(y), groups=rep(np.arange(200)), n_resamples=400)
    rows = paired_auroc(rep(a), rep(b), rep(y), n_resamples=400)
    assert grouped.n_groups == 200 and grouped.difference == pytest.approx(base.difference)
    assert 0.75 < width(grouped) / width(base) < 1.33
    assert width(rows) / width(base) < 0.6
