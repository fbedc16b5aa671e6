"""KPQA's rank-pair ("win-lose match") agreement (KPQA paper, Sec. 5.4 and Table 7).

For each question answered by two systems, keep it only when the human scores
of the two answers differ by at least `min_gap`; then count how often the
metric orders the two answers as the humans do. Result: percentage of matches.

Gap rule: the paper's text says "greater than 2", but the sample counts it
reports (93 on MS-MARCO, 193 on AVSD) are what ">= 2" gives on the released
files (strict "> 2" gives 89 and 186), so `inclusive=True` is the default; a
tolerance of 1e-9 absorbs float noise in averaged human scores.

Metric ties (both answers get the same metric score, e.g. two BLEU-1 zeros):
the paper does not say. Default `ties="miss"`: a tie does not rank the answers
the way humans do, so it is not a match. "half" counts it as half a match,
"drop" removes the pair.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from qascore.meta.correlation import as_vector
from qascore.meta.correlation import Floats

TIES = ("miss", "half", "drop")
_EPS = 1e-9


@dataclass(frozen=True)
class PairAgreement:
    percent: float
    matches: float
    n_pairs: int
    n_metric_ties: int
    n_candidates: int      # pairs before the gap filter
    min_gap: float
    ties: str

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def selected_pairs(human_a: Floats, human_b: Floats, min_gap: float = 2.0,
                   inclusive: bool = True) -> np.ndarray:
    """Boolean mask of pairs whose human gap passes the filter."""
    ha, hb = as_vector(human_a, "human_a"), as_vector(human_b, "human_b")
    if len(ha) != len(hb):
        raise ValueError(f"human_a and human_b differ in length ({len(ha)} vs {len(hb)})")
    gap = np.abs(ha - hb)
    return gap >= min_gap - _EPS if inclusive else gap > min_gap + _EPS


def rank_pair_agreement(human_a: Floats, human_b: Floats, metric_a: Floats,
                        metric_b: Floats, *, min_gap: float = 2.0, inclusive: bool = True,
                        ties: str = "miss") -> PairAgreement:
    """Percentage of selected pairs where sign(metric_a - metric_b) == sign(human_a - human_b)."""
    if ties not in TIES:
        raise ValueError(f"unknown tie rule '{ties}'; choose from {TIES}")
    ha, hb = as_vector(human_a, "human_a"), as_vector(human_b, "human_b")
    ma, mb = as_vector(metric_a, "metric_a"), as_vector(metric_b, "metric_b")
    if not (len(ha) == len(hb) == len(ma) == len(mb)):
        raise ValueError("human_a, human_b, metric_a and metric_b must have the same length")
    keep = selected_pairs(ha, hb, min_gap, inclusive)
    if min_gap <= 0:  # human ties can only survive a zero gap; they carry no order to agree with
        keep &= ha != hb
    hs = np.sign(ha[keep] - hb[keep])
    md = ma[keep] - mb[keep]
    tie = md == 0
    agree = (np.sign(md) == hs) & ~tie
    n_ties = int(tie.sum())
    if ties == "half":
        matches, n = float(agree.sum()) + 0.5 * n_ties, int(keep.sum())
    elif ties == "drop":
        matches, n = float(agree.sum()), int(keep.sum()) - n_ties
    else:
        matches, n = float(agree.sum()), int(keep.sum())
    percent = 100.0 * matches / n if n else float("nan")
    return PairAgreement(percent, matches, n, n_ties, len(ha), min_gap, ties)
