"""Correlation of a metric with human judgments: r, rho, tau-b, p-values, bootstrap CIs.

Pearson and Spearman are computed here in numpy, vectorised over bootstrap
resamples (a 1,000-resample CI on 1,000 items takes milliseconds). Kendall's
tau-b and its p-value come from scipy (an O(n log n) algorithm); we only loop
it over resamples. p-values are two-sided; Pearson and Spearman use the t-test
with n-2 degrees of freedom (the test the KPQA paper, Appendix C.2, names).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Sequence

import numpy as np
from scipy import stats

# What the statistics accept: a list of floats or a numpy array (converted on entry).
Floats = Sequence[float] | np.ndarray

METHODS = ("pearson", "spearman", "kendall")
DEFAULT_RESAMPLES = 1000
DEFAULT_SEED = 12345
# Below this many items a percentile bootstrap CI is too coarse to trust: with 5 items most resamples
# repeat 2-3 items, and an interval reaching 1.000 says little. `meta` warns below it (docs/meta.md).
SMALL_N = 30


@dataclass(frozen=True)
class Correlation:
    """One coefficient with its test and (optionally) a percentile bootstrap CI."""

    method: str
    value: float
    p_value: float
    n: int
    ci_low: float | None = None
    ci_high: float | None = None
    level: float | None = None
    n_resamples: int | None = None
    seed: int | None = None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def as_vector(values: Floats | np.ndarray, name: str = "values") -> np.ndarray:
    """1-D float array; NaN or inf is refused, since it would silently poison a coefficient."""
    arr = np.asarray(values, dtype=float)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or infinite values")
    return arr


def paired(x: Floats, y: Floats) -> tuple[np.ndarray, np.ndarray]:
    x, y = as_vector(x, "x"), as_vector(y, "y")
    if len(x) != len(y):
        raise ValueError(f"x and y differ in length ({len(x)} vs {len(y)})")
    if len(x) < 3:
        raise ValueError(f"a correlation needs at least 3 items, got {len(x)}")
    return x, y


# -- point estimates, row-wise over a 2-D batch -------------------------------
def pearson_rows(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Pearson r of each row of x with the same row of y; NaN where a row is constant."""
    x, y = _in_range(np.atleast_2d(x)), _in_range(np.atleast_2d(y))
    x = x - x.mean(axis=-1, keepdims=True)
    y = y - y.mean(axis=-1, keepdims=True)
    num = (x * y).sum(axis=-1)
    den = np.sqrt((x * x).sum(axis=-1) * (y * y).sum(axis=-1))
    with np.errstate(invalid="ignore", divide="ignore"):
        r = np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)
    return np.clip(r, -1.0, 1.0)


def _in_range(a: np.ndarray) -> np.ndarray:
    """Rows whose values are so large (1e300) or small (1e-200) that their squares overflow or underflow,
    divided by their largest magnitude (r does not change with scale); other rows as they are, bit for bit."""
    m = np.abs(a).max(axis=-1, keepdims=True)
    extreme = (m > 1e100) | ((m > 0) & (m < 1e-100))
    return np.where(extreme, a / np.where(m > 0, m, 1.0), a) if extreme.any() else a


def rank_rows(x: np.ndarray) -> np.ndarray:
    """Average ranks (ties share the mean rank) of each row, as Spearman requires."""
    return stats.rankdata(np.atleast_2d(x), method="average", axis=-1)


def _t_test_p(r: float, n: int) -> float:
    """Two-sided p of H0 rho=0 by t = r sqrt((n-2)/(1-r^2)), df = n-2."""
    if abs(r) >= 1.0:
        return 0.0
    t = r * np.sqrt((n - 2) / (1.0 - r * r))
    return float(2 * stats.t.sf(abs(t), n - 2))


def pearson(x: Floats, y: Floats) -> tuple[float, float]:
    """(r, two-sided p)."""
    x, y = paired(x, y)
    r = float(pearson_rows(x, y)[0])
    return r, (float("nan") if np.isnan(r) else _t_test_p(r, len(x)))


def spearman(x: Floats, y: Floats) -> tuple[float, float]:
    """(rho, two-sided p): Pearson on average ranks, t-test p as scipy.stats.spearmanr."""
    x, y = paired(x, y)
    rho = float(pearson_rows(rank_rows(x), rank_rows(y))[0])
    return rho, (float("nan") if np.isnan(rho) else _t_test_p(rho, len(x)))


def kendall(x: Floats, y: Floats) -> tuple[float, float]:
    """(tau-b, two-sided p) with the tie-corrected normal approximation when ties exist."""
    x, y = paired(x, y)
    res = stats.kendalltau(x, y, variant="b")
    return float(res.statistic), float(res.pvalue)


_POINT = {"pearson": pearson, "spearman": spearman, "kendall": kendall}


def coefficient(x: Floats, y: Floats, method: str) -> tuple[float, float]:
    """(value, p) for one of METHODS."""
    if method not in _POINT:
        raise ValueError(f"unknown correlation '{method}'; choose from {METHODS}")
    return _POINT[method](x, y)


# -- bootstrap -----------------------------------------------------------------
# Bounds of one bootstrap: its (resamples x items) index matrix is held in memory (8 bytes a draw), so
# 99,999,999,999,999 resamples ended in a MemoryError (issue 42). 200 million draws are 1.6 GB.
MAX_RESAMPLES = 1_000_000
MAX_DRAWS = 200_000_000


def bootstrap_indices(n: int, n_resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED) -> np.ndarray:
    """(n_resamples, n) item indices drawn with replacement. The same seed gives the same
    resamples, so every metric (and both sides of a paired test) sees the same draws."""
    if n_resamples < 1:
        raise ValueError("n_resamples must be at least 1")
    if n_resamples > MAX_RESAMPLES or n_resamples * n > MAX_DRAWS:
        most = max(1, min(MAX_RESAMPLES, MAX_DRAWS // max(n, 1)))
        raise ValueError(f"--resamples {n_resamples}: a bootstrap of {n} items takes at most {most} resamples here "
                         f"(its draws are held in memory: resamples x items at most {MAX_DRAWS:,})")
    if isinstance(seed, (int, np.integer)) and seed < 0:
        raise ValueError(f"--seed {seed}: expected an integer >= 0")
    return np.random.default_rng(seed).integers(0, n, size=(n_resamples, n))


def resampled(x: Floats, y: Floats, method: str, idx: np.ndarray) -> np.ndarray:
    """The coefficient on each resample (rows of idx); NaN where a resample is constant."""
    x, y = paired(x, y)
    if method == "pearson":
        return pearson_rows(x[idx], y[idx])
    if method == "spearman":
        return pearson_rows(rank_rows(x[idx]), rank_rows(y[idx]))
    if method == "kendall":
        out = np.empty(len(idx))
        for i, row in enumerate(idx):
            out[i] = stats.kendalltau(x[row], y[row], variant="b").statistic
        return out
    raise ValueError(f"unknown correlation '{method}'; choose from {METHODS}")


def percentile_ci(values: np.ndarray, level: float = 0.95) -> tuple[float, float]:
    """Percentile interval, ignoring NaN resamples (constant draws)."""
    if not 0 < level < 1:
        raise ValueError("level must be between 0 and 1")
    vals = values[~np.isnan(values)]
    if len(vals) == 0:
        return float("nan"), float("nan")
    alpha = (1 - level) / 2
    lo, hi = np.quantile(vals, [alpha, 1 - alpha])
    return float(lo), float(hi)


def correlate(human: Floats, metric: Floats, method: str = "pearson", *,
              ci: bool = True, n_resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED,
              level: float = 0.95) -> Correlation:
    """Correlation of metric scores with human scores, with a percentile bootstrap CI."""
    return correlate_all(human, metric, (method,), ci=ci, n_resamples=n_resamples, seed=seed,
                         level=level)[method]


def correlate_all(human: Floats, metric: Floats, methods: Sequence[str] = METHODS, *,
                  ci: bool = True, n_resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED,
                  level: float = 0.95) -> dict[str, Correlation]:
    """Every requested coefficient; all CIs use the same resamples (drawn from `seed`)."""
    h, m = paired(human, metric)
    idx = bootstrap_indices(len(h), n_resamples, seed) if ci else None
    out = {}
    for method in methods:
        value, p = coefficient(h, m, method)
        if idx is None:
            out[method] = Correlation(method, value, p, len(h))
        else:
            lo, hi = percentile_ci(resampled(h, m, method, idx), level)
            out[method] = Correlation(method, value, p, len(h), lo, hi, level, n_resamples, seed)
    return out
