"""System-level agreement: does a metric's estimate of each system's quality match the gold one?

Used for AVA's system-wise evaluation (estimated vs gold Accuracy / P@1 / MAP /
MRR per system) and for any per-system average of a metric vs human averages.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import asdict, dataclass
from typing import Any, Hashable, Mapping, Sequence

import numpy as np
from scipy import stats

from qascore.meta.correlation import as_vector, pearson_rows
from qascore.meta.correlation import Floats


@dataclass(frozen=True)
class SystemAgreement:
    n_systems: int
    pearson: float        # NaN with fewer than 2 systems or a constant side
    kendall_tau_b: float  # agreement of the two system rankings
    kendall_p: float
    rmse: float           # in the units of the scores (e.g. P@1 in [0, 1])
    max_abs_error: float

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def system_means(systems: Sequence[Hashable], scores: Floats) -> "OrderedDict[Hashable, float]":
    """Average score per system, systems in order of first appearance."""
    s = as_vector(scores, "scores")
    if len(systems) != len(s):
        raise ValueError(f"systems and scores differ in length ({len(systems)} vs {len(s)})")
    sums: OrderedDict[Hashable, list[float]] = OrderedDict()
    for name, v in zip(systems, s):
        sums.setdefault(name, []).append(float(v))
    return OrderedDict((k, float(np.mean(v))) for k, v in sums.items())


def system_agreement(estimated: Mapping[Hashable, float], gold: Mapping[Hashable, float]) -> SystemAgreement:
    """Pearson, Kendall tau-b and RMSE between estimated and gold per-system values."""
    if set(estimated) != set(gold):
        missing = sorted(map(str, set(estimated) ^ set(gold)))
        raise ValueError(f"estimated and gold name different systems: {missing}")
    names = list(gold)
    if not names:
        raise ValueError("no systems")
    e = as_vector([estimated[k] for k in names], "estimated")
    g = as_vector([gold[k] for k in names], "gold")
    err = e - g
    r = float(pearson_rows(e, g)[0]) if len(names) >= 2 else float("nan")
    if len(names) >= 2 and len(set(e)) > 1 and len(set(g)) > 1:
        kt = stats.kendalltau(e, g, variant="b")
        tau, p = float(kt.statistic), float(kt.pvalue)
    else:
        tau, p = float("nan"), float("nan")
    return SystemAgreement(len(names), r, tau, p, float(np.sqrt(np.mean(err ** 2))), float(np.max(np.abs(err))))


def accuracy_by_system(systems: Sequence[Hashable], decisions: Sequence[bool], labels: Sequence[int]
                       ) -> tuple["OrderedDict[Hashable, float]", "OrderedDict[Hashable, float]", SystemAgreement]:
    """Each system's accuracy as a metric's decisions estimate it and as the labels give it, and their
    agreement (AVA's system-wise use: a system's accuracy without annotating its outputs)."""
    est = system_means(systems, [float(d) for d in decisions])
    gold = system_means(systems, [float(y) for y in labels])
    return est, gold, system_agreement(est, gold)
