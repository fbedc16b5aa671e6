"""Does metric A correlate with humans better than metric B, on the same items?

Two tests, both one-sided (H1: corr(human, A) > corr(human, B)):

- Williams' test (Williams 1959, in the form of Graham & Baldwin 2014): the two
  correlations are dependent because they share the human variable, so the
  correlation between A and B enters the variance. t has n-3 degrees of freedom.
  Defined for Pearson; with method="spearman" it is applied to ranks (Pearson
  on average ranks), an approximation in common use. Not defined for Kendall.
- Paired bootstrap: the same item resamples for A and B; p is the share of
  resamples in which A's coefficient is <= B's, and the CI is the percentile
  interval of the difference (A minus B).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from qascore.meta.correlation import Floats
from scipy import stats

from qascore.meta.correlation import (DEFAULT_RESAMPLES, DEFAULT_SEED, paired, as_vector, bootstrap_indices,
                                      coefficient, pearson_rows, percentile_ci, rank_rows, resampled)

TESTS = ("williams", "bootstrap")


@dataclass(frozen=True)
class Comparison:
    """Result of comparing corr(human, A) with corr(human, B)."""

    method: str
    test: str
    r_a: float
    r_b: float
    diff: float
    p_value: float
    n: int
    statistic: float | None = None   # Williams' t
    r_ab: float | None = None        # corr(A, B), used by Williams
    ci_low: float | None = None      # bootstrap CI of r_a - r_b
    ci_high: float | None = None
    n_resamples: int | None = None
    seed: int | None = None

    @property
    def significant(self) -> bool:
        """At the conventional 0.05 level (one-sided)."""
        return self.p_value < 0.05

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "significant": self.significant}


def williams_t(r12: float, r13: float, r23: float, n: int) -> float:
    """Williams' t for H0 rho12 = rho13, where variable 1 is shared (here: humans).

    t = (r12 - r13) sqrt((n-1)(1+r23)) / sqrt(2K(n-1)/(n-3) + ((r12+r13)^2/4)(1-r23)^3),
    K = 1 - r12^2 - r13^2 - r23^2 + 2 r12 r13 r23.
    """
    if n <= 3:
        raise ValueError(f"Williams' test needs n > 3, got {n}")
    k = 1 - r12 ** 2 - r13 ** 2 - r23 ** 2 + 2 * r12 * r13 * r23
    den = 2 * k * (n - 1) / (n - 3) + ((r12 + r13) ** 2 / 4) * (1 - r23) ** 3
    if den <= 0:  # A and B identical up to scale: no evidence either way
        return 0.0
    return float((r12 - r13) * np.sqrt((n - 1) * (1 + r23)) / np.sqrt(den))


def williams_test(human: Floats, a: Floats, b: Floats,
                  method: str = "pearson") -> Comparison:
    """One-sided Williams' test that A correlates better with humans than B does."""
    h, va = paired(human, a)
    _, vb = paired(human, b)
    if method == "spearman":
        h, va, vb = (rank_rows(v)[0] for v in (h, va, vb))
    elif method != "pearson":
        raise ValueError("Williams' test is defined for pearson (and spearman on ranks); "
                         "use test='bootstrap' for kendall")
    r12, r13, r23 = (float(pearson_rows(x, y)[0]) for x, y in ((h, va), (h, vb), (va, vb)))
    if np.isnan(r12) or np.isnan(r13) or np.isnan(r23):
        raise ValueError("a constant score vector has no correlation; Williams' test is undefined")
    n = len(h)
    t = williams_t(r12, r13, r23, n)
    return Comparison(method, "williams", r12, r13, r12 - r13, float(stats.t.sf(t, n - 3)), n,
                      statistic=t, r_ab=r23)


def paired_bootstrap(human: Floats, a: Floats, b: Floats,
                     method: str = "pearson", *, n_resamples: int = DEFAULT_RESAMPLES,
                     seed: int = DEFAULT_SEED, level: float = 0.95) -> Comparison:
    """p = share of resamples where coef(human, A) <= coef(human, B); CI of the difference."""
    h, va = paired(human, a)
    _, vb = paired(human, b)
    r_a, _ = coefficient(h, va, method)
    r_b, _ = coefficient(h, vb, method)
    if np.isnan(r_a) or np.isnan(r_b):
        raise ValueError("a constant score vector has no correlation; the paired bootstrap is undefined")
    idx = bootstrap_indices(len(h), n_resamples, seed)
    diff = resampled(h, va, method, idx) - resampled(h, vb, method, idx)
    valid = diff[~np.isnan(diff)]
    p = float(np.mean(valid <= 0)) if len(valid) else float("nan")
    lo, hi = percentile_ci(diff, level)
    return Comparison(method, "bootstrap", r_a, r_b, r_a - r_b, p, len(h), ci_low=lo, ci_high=hi,
                      n_resamples=n_resamples, seed=seed)


def compare_correlations(human: Floats, a: Floats, b: Floats,
                         method: str = "pearson", test: str = "williams", *,
                         n_resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED,
                         level: float = 0.95) -> Comparison:
    """Is corr(human, a) greater than corr(human, b)? One entry point for both tests."""
    as_vector(human, "human")
    if test == "williams":
        return williams_test(human, a, b, method)
    if test == "bootstrap":
        return paired_bootstrap(human, a, b, method, n_resamples=n_resamples, seed=seed, level=level)
    raise ValueError(f"unknown test '{test}'; choose from {TESTS}")
