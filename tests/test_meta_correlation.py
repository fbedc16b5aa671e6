"""Correlations, bootstrap CIs and the A-vs-B tests, against scipy and hand-computed values."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from qascore.meta import compare_correlations, correlate, correlate_all, kendall, pearson, spearman
from qascore.meta.compare import paired_bootstrap, williams_t, williams_test
from qascore.meta.correlation import bootstrap_indices, percentile_ci, resampled


def _data(seed: int, n: int, ties: bool):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    y = 0.6 * x + rng.normal(size=n)
    if ties:  # human-like 1-5 scores and a metric with many zeros
        x = np.round(np.clip(x * 1.2 + 3, 1, 5))
        y = np.where(y < 0, 0.0, np.round(y, 1))
    return x, y


CASES = [(seed, n, ties) for seed in (0, 1, 2) for n in (5, 40, 300) for ties in (False, True)]


@pytest.mark.parametrize("seed,n,ties", CASES)
def test_point_estimates_match_scipy(seed, n, ties):
    x, y = _data(seed, n, ties)
    for ours, ref in ((pearson, stats.pearsonr), (spearman, stats.spearmanr)):
        value, p = ours(x, y)
        res = ref(x, y)
        assert value == pytest.approx(res.statistic, abs=1e-12)
        assert p == pytest.approx(res.pvalue, rel=1e-9, abs=1e-15)
    tau, p = kendall(x, y)
    res = stats.kendalltau(x, y, variant="b")
    assert tau == pytest.approx(res.statistic, abs=1e-12)
    assert p == pytest.approx(res.pvalue, rel=1e-9)


# Hand-computed small tables.
# x = 1..5, y = 2,1,4,3,5: Pearson r = sum(dx*dy)/sqrt(sum dx^2 sum dy^2) = 8/10 = 0.8;
# no ties so rho = r of ranks = 0.8; pairs: 10, discordant (1,2),(3,4) -> tau = (8-2)/10 = 0.6.
# With ties y = 1,1,2,2,3 against x = 1..5: concordant 8, discordant 0, ties in y only 2 pairs:
# tau_b = 8 / sqrt(10 * 8) = 0.894427...; Pearson = 5/sqrt(10*2.8) = 0.944911...
HAND = [
    ([1, 2, 3, 4, 5], [2, 1, 4, 3, 5], 0.8, 0.8, 0.6),
    ([1, 2, 3, 4, 5], [1, 1, 2, 2, 3], 5 / math.sqrt(28), None, 8 / math.sqrt(80)),
    ([1, 2, 3, 4, 5], [5, 4, 3, 2, 1], -1.0, -1.0, -1.0),
]


@pytest.mark.parametrize("x,y,r,rho,tau", HAND)
def test_hand_computed(x, y, r, rho, tau):
    assert pearson(x, y)[0] == pytest.approx(r)
    if rho is not None:
        assert spearman(x, y)[0] == pytest.approx(rho)
    assert kendall(x, y)[0] == pytest.approx(tau)


def test_spearman_with_ties_uses_average_ranks():
    # ranks of y = 1,1,2,2,3 are 1.5,1.5,3.5,3.5,5 -> Pearson with 1..5 = 4.5/sqrt(10*2.3)... by hand:
    # dy = -1.5,-1.5,0.5,0.5,2; sum dx*dy = 3+1.5+0+0.5+4 = 9; sum dy^2 = 2.25*2+.25*2+4 = 9
    assert spearman([1, 2, 3, 4, 5], [1, 1, 2, 2, 3])[0] == pytest.approx(9 / math.sqrt(10 * 9))


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="NaN"):
        pearson([1, 2, float("nan")], [1, 2, 3])
    with pytest.raises(ValueError, match="length"):
        pearson([1, 2, 3], [1, 2])
    with pytest.raises(ValueError, match="at least 3"):
        spearman([1, 2], [1, 2])
    with pytest.raises(ValueError, match="unknown correlation"):
        correlate([1, 2, 3], [1, 2, 3], "cosine")


def test_constant_scores_give_nan_not_a_number():
    r, p = pearson([1, 2, 3, 4], [1, 1, 1, 1])
    assert math.isnan(r) and math.isnan(p)


def test_bootstrap_is_deterministic_by_seed_and_brackets_the_estimate():
    x, y = _data(3, 120, False)
    a = correlate_all(x, y, n_resamples=300, seed=7)
    b = correlate_all(x, y, n_resamples=300, seed=7)
    c = correlate_all(x, y, n_resamples=300, seed=8)
    for m in ("pearson", "spearman", "kendall"):
        assert a[m] == b[m]
        assert (a[m].ci_low, a[m].ci_high) != (c[m].ci_low, c[m].ci_high)
        assert a[m].ci_low < a[m].value < a[m].ci_high
        assert a[m].n_resamples == 300 and a[m].seed == 7


def test_bootstrap_matches_a_plain_loop():
    """The vectorised resampling equals scipy on each resample, and the CI is its percentiles."""
    x, y = _data(4, 60, True)
    idx = bootstrap_indices(len(x), 50, seed=1)
    for method, ref in (("pearson", stats.pearsonr), ("spearman", stats.spearmanr)):
        ours = resampled(x, y, method, idx)
        loop = np.array([ref(x[i], y[i]).statistic for i in idx])
        np.testing.assert_allclose(ours, loop, atol=1e-12)
        lo, hi = percentile_ci(ours, 0.9)
        assert (lo, hi) == pytest.approx(tuple(np.quantile(loop, [0.05, 0.95])))


def test_ci_width_shrinks_with_more_items():
    small = correlate(*_data(5, 30, False), n_resamples=400)
    large = correlate(*_data(5, 1000, False), n_resamples=400)
    assert large.ci_high - large.ci_low < small.ci_high - small.ci_low


# -- Williams' test ----------------------------------------------------------------------
def test_williams_t_hand_computed():
    # r12=.6, r13=.4, r23=.5, n=50:
    # K = 1 - .36 - .16 - .25 + 2(.6)(.4)(.5) = .47
    # denominator = 2K(n-1)/(n-3) + ((r12+r13)^2/4)(1-r23)^3 = .94*49/47 + .25*.125 = .98 + .03125 = 1.01125
    # t = (.2) sqrt(49 * 1.5) / sqrt(1.01125)
    assert williams_t(0.6, 0.4, 0.5, 50) == pytest.approx(0.2 * math.sqrt(73.5) / math.sqrt(1.01125))
    # r12=.4, r13=.5, r23=.1, n=103: K = .62; den = 1.24*1.02 + (.81/4)(.729) = 1.2648 + .1476225
    assert williams_t(0.4, 0.5, 0.1, 103) == pytest.approx(-0.1 * math.sqrt(102 * 1.1) / math.sqrt(1.4124225))


def test_williams_test_on_data_uses_the_three_correlations():
    rng = np.random.default_rng(11)
    h = rng.normal(size=80)
    a = h + rng.normal(size=80)
    b = h + 2 * rng.normal(size=80)
    res = williams_test(h, a, b)
    r12, r13, r23 = stats.pearsonr(h, a)[0], stats.pearsonr(h, b)[0], stats.pearsonr(a, b)[0]
    t = williams_t(r12, r13, r23, 80)
    assert res.statistic == pytest.approx(t)
    assert res.p_value == pytest.approx(stats.t.sf(t, 77))
    assert res.r_a == pytest.approx(r12) and res.r_b == pytest.approx(r13) and res.r_ab == pytest.approx(r23)
    # Swapping A and B flips t, and the one-sided p becomes 1 - p.
    swapped = williams_test(h, b, a)
    assert swapped.statistic == pytest.approx(-t)
    assert swapped.p_value == pytest.approx(1 - res.p_value)


def test_williams_spearman_is_pearson_on_ranks():
    x, y = _data(6, 50, True)
    z = y + np.random.default_rng(6).normal(size=50)
    res = williams_test(x, y, z, "spearman")
    rk = [stats.rankdata(v) for v in (x, y, z)]
    assert res.statistic == pytest.approx(williams_test(rk[0], rk[1], rk[2], "pearson").statistic)
    with pytest.raises(ValueError, match="bootstrap"):
        williams_test(x, y, z, "kendall")


# -- paired bootstrap --------------------------------------------------------------------
def test_paired_bootstrap_by_hand_loop_and_seed():
    rng = np.random.default_rng(12)
    h = rng.normal(size=60)
    a = h + rng.normal(size=60)
    b = h + 1.3 * rng.normal(size=60)
    res = paired_bootstrap(h, a, b, "pearson", n_resamples=200, seed=3)
    idx = np.random.default_rng(3).integers(0, 60, size=(200, 60))
    diff = np.array([stats.pearsonr(h[i], a[i])[0] - stats.pearsonr(h[i], b[i])[0] for i in idx])
    assert res.p_value == pytest.approx(np.mean(diff <= 0))
    assert (res.ci_low, res.ci_high) == pytest.approx(tuple(np.quantile(diff, [0.025, 0.975])))
    assert res == paired_bootstrap(h, a, b, "pearson", n_resamples=200, seed=3)


def test_comparison_of_a_metric_with_itself_is_never_significant():
    x, y = _data(7, 100, False)
    for test in ("williams", "bootstrap"):
        res = compare_correlations(x, y, y, test=test, n_resamples=100)
        assert res.diff == 0 and not res.significant
    assert compare_correlations(x, y, y, test="bootstrap", n_resamples=100).p_value == 1.0


@pytest.mark.parametrize("method", ["pearson", "spearman", "kendall"])
def test_clear_winner_is_significant_with_bootstrap(method):
    rng = np.random.default_rng(13)
    h = rng.normal(size=300)
    good, bad = h + 0.3 * rng.normal(size=300), h + 3 * rng.normal(size=300)
    res = compare_correlations(h, good, bad, method=method, test="bootstrap", n_resamples=200, seed=1)
    assert res.significant and res.ci_low > 0
    assert not compare_correlations(h, bad, good, method=method, test="bootstrap", n_resamples=200).significant


def test_unknown_test_name():
    with pytest.raises(ValueError, match="unknown test"):
        compare_correlations([1, 2, 3, 4], [1, 2, 3, 4], [4, 3, 2, 1], test="fisher")


@pytest.mark.parametrize("test", ["williams", "bootstrap"])
def test_comparison_with_a_constant_metric_is_an_error(test):
    with pytest.raises(ValueError, match="constant"):
        compare_correlations([1, 2, 3, 4, 5], [1, 3, 2, 5, 4], [0, 0, 0, 0, 0], test=test, n_resamples=20)
