"""AS2 ranking measures, KPQA rank-pair agreement and system-level agreement on hand-made cases."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from qascore.meta import rank_pair_agreement, ranking_scores, system_agreement, system_means
from qascore.meta.ranking import average_precision, reciprocal_rank


# -- P@1 / MAP / MRR -----------------------------------------------------------------------
def test_ranking_hand_case():
    # q1: scores .9 .5 .7 .1, labels 0 1 0 1 -> ranked labels 0 0 1 1 (by .9 .7 .5 .1)
    #     P@1 = 0, AP = (1/3 + 2/4)/2 = 5/12, RR = 1/3
    # q2: scores .3 .8, labels 1 0 -> ranked 0 1: P@1 0, AP 1/2, RR 1/2
    # q3: scores .6 .2 .4, labels 1 0 1 -> ranked 1 1 0: P@1 1, AP 1, RR 1
    # q4: no positive -> excluded
    qids = ["q1"] * 4 + ["q2"] * 2 + ["q3"] * 3 + ["q4"] * 2
    scores = [.9, .5, .7, .1, .3, .8, .6, .2, .4, .5, .6]
    labels = [0, 1, 0, 1, 1, 0, 1, 0, 1, 0, 0]
    res = ranking_scores(qids, scores, labels)
    assert res.p_at_1 == pytest.approx(1 / 3)
    assert res.map == pytest.approx((5 / 12 + 1 / 2 + 1) / 3)
    assert res.mrr == pytest.approx((1 / 3 + 1 / 2 + 1) / 3)
    assert (res.n_questions, res.n_excluded) == (3, 1)


@pytest.mark.parametrize("ranked,ap,rr", [
    ([1, 0, 0], 1.0, 1.0),
    ([0, 1, 0, 1], (1 / 2 + 2 / 4) / 2, 1 / 2),
    ([0, 0, 0, 1], 1 / 4, 1 / 4),
    ([1, 1, 1], 1.0, 1.0),
    ([0, 0], 0.0, 0.0),
])
def test_ap_and_rr(ranked, ap, rr):
    arr = np.array(ranked, dtype=bool)
    assert average_precision(arr) == pytest.approx(ap)
    assert reciprocal_rank(arr) == pytest.approx(rr)


def test_ties_keep_input_order_and_interleaved_questions():
    # equal scores: the candidate given first ranks first
    assert ranking_scores(["a", "a"], [0.5, 0.5], [0, 1]).p_at_1 == 0.0
    assert ranking_scores(["a", "a"], [0.5, 0.5], [1, 0]).p_at_1 == 1.0
    # questions need not be contiguous
    res = ranking_scores(["a", "b", "a", "b"], [0.1, 0.9, 0.8, 0.2], [0, 1, 1, 0])
    assert (res.p_at_1, res.map, res.mrr) == (1.0, 1.0, 1.0)


def test_ranking_bad_input():
    with pytest.raises(ValueError, match="no question"):
        ranking_scores(["a", "a"], [0.1, 0.2], [0, 0])
    with pytest.raises(ValueError, match="length"):
        ranking_scores(["a"], [0.1, 0.2], [0, 1])


# -- rank-pair ("win-lose match") ------------------------------------------------------------
HUMAN_A = [5.0, 1.0, 4.0, 3.0, 1.0, 5.0]
HUMAN_B = [1.0, 4.0, 2.0, 2.5, 3.0, 3.5]
#   gaps:    4    3    2    .5   2    1.5   -> kept with >= 2: items 0, 1, 2, 4
METRIC_A = [0.9, 0.2, 0.3, 0.9, 0.5, 0.1]
METRIC_B = [0.1, 0.6, 0.3, 0.1, 0.4, 0.9]
#   item 0: human A>B, metric A>B  match;  item 1: human B>A, metric B>A  match
#   item 2: metric tie;                    item 4: human B>A, metric A>B  miss


@pytest.mark.parametrize("ties,percent,n", [("miss", 50.0, 4), ("half", 62.5, 4), ("drop", 2 / 3 * 100, 3)])
def test_rank_pair_hand_case(ties, percent, n):
    res = rank_pair_agreement(HUMAN_A, HUMAN_B, METRIC_A, METRIC_B, ties=ties)
    assert res.percent == pytest.approx(percent)
    assert res.n_pairs == n and res.n_metric_ties == 1 and res.n_candidates == 6


def test_rank_pair_gap_rule():
    strict = rank_pair_agreement(HUMAN_A, HUMAN_B, METRIC_A, METRIC_B, inclusive=False)
    assert strict.n_pairs == 2 and strict.percent == 100.0  # only gaps 4 and 3 pass "> 2"
    # float noise in averaged scores: 3.4285714 - 1.4285714 is kept by ">= 2"
    res = rank_pair_agreement([10 / 7 + 2], [10 / 7], [1.0], [0.0])
    assert res.n_pairs == 1 and res.percent == 100.0


# -- system level -------------------------------------------------------------------------------
def test_system_means_and_agreement_hand_case():
    means = system_means(["s1", "s2", "s1", "s3", "s2", "s3"], [1, 3, 3, 2, 5, 4])
    assert dict(means) == {"s1": 2.0, "s2": 4.0, "s3": 3.0}
    gold = {"s1": 0.50, "s2": 0.70, "s3": 0.60}
    est = {"s1": 0.55, "s2": 0.60, "s3": 0.65}
    res = system_agreement(est, gold)
    # errors .05 -.10 .05 -> RMSE = sqrt((.0025+.01+.0025)/3) = sqrt(.005)
    assert res.rmse == pytest.approx(math.sqrt(0.005))
    assert res.max_abs_error == pytest.approx(0.10)
    # rankings: gold s2 > s3 > s1, estimate s3 > s2 > s1: pairs (s1,s2)+ (s1,s3)+ (s2,s3)- -> tau 1/3
    assert res.kendall_tau_b == pytest.approx(1 / 3)
    assert res.pearson == pytest.approx(stats.pearsonr([0.55, 0.60, 0.65], [0.50, 0.70, 0.60])[0])
    assert res.n_systems == 3


def test_system_agreement_bad_input():
    with pytest.raises(ValueError, match="different systems"):
        system_agreement({"a": 1.0}, {"b": 1.0})
    one = system_agreement({"a": 0.4}, {"a": 0.5})
    assert one.rmse == pytest.approx(0.1) and math.isnan(one.kendall_tau_b)
