"""Answer-sentence-selection ranking measures: P@1, MAP, MRR.

Input: flat lists of (question id, score, label). Candidates of one question
are ranked by score, highest first. Conventions:

- Questions with no positive candidate are excluded (the standard "filtered"
  setting of WikiQA/TrecQA); how many were excluded is reported.
- Equal scores keep the order in which the candidates were given (a stable
  sort), so results are deterministic; pass scores without ties if that order
  should not matter.
- AP of a question = mean over its positives of precision at that positive's
  rank (all positives of the question are in the list, as in AS2 data).
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import asdict, dataclass
from typing import Any, Hashable, Sequence

import numpy as np

from qascore.meta.classification import as_labels
from qascore.meta.correlation import as_vector
from qascore.meta.correlation import Floats


@dataclass(frozen=True)
class RankingScores:
    p_at_1: float
    map: float
    mrr: float
    n_questions: int
    n_excluded: int

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def group_by_question(qids: Sequence[Hashable], scores: Floats,
                      labels: Sequence[Any]) -> "OrderedDict[Hashable, tuple[np.ndarray, np.ndarray]]":
    """qid -> (scores, labels) in input order; questions in order of first appearance."""
    s, y = as_vector(scores, "scores"), as_labels(labels)
    if not (len(qids) == len(s) == len(y)):
        raise ValueError(f"qids, scores and labels differ in length ({len(qids)}, {len(s)}, {len(y)})")
    groups: OrderedDict[Hashable, list[int]] = OrderedDict()
    for i, q in enumerate(qids):
        groups.setdefault(q, []).append(i)
    return OrderedDict((q, (s[ix], y[ix])) for q, ix in groups.items())


def ranked_labels(scores: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Labels in rank order (score descending, ties in input order)."""
    return labels[np.argsort(-scores, kind="stable")]


def precision_at_1(ranked: np.ndarray) -> float:
    return float(ranked[0])


def average_precision(ranked: np.ndarray) -> float:
    hits = np.flatnonzero(ranked)
    if len(hits) == 0:
        return 0.0
    return float(np.mean(np.arange(1, len(hits) + 1) / (hits + 1)))


def reciprocal_rank(ranked: np.ndarray) -> float:
    hits = np.flatnonzero(ranked)
    return float(1.0 / (hits[0] + 1)) if len(hits) else 0.0


def ranking_scores(qids: Sequence[Hashable], scores: Floats, labels: Sequence[Any]) -> RankingScores:
    """P@1, MAP and MRR averaged over questions that have at least one positive."""
    p1, ap, rr = [], [], []
    excluded = 0
    for s, y in group_by_question(qids, scores, labels).values():
        if not y.any():
            excluded += 1
            continue
        r = ranked_labels(s, y)
        p1.append(precision_at_1(r))
        ap.append(average_precision(r))
        rr.append(reciprocal_rank(r))
    if not p1:
        raise ValueError("no question has a positive candidate; P@1/MAP/MRR are undefined")
    return RankingScores(float(np.mean(p1)), float(np.mean(ap)), float(np.mean(rr)), len(p1), excluded)
