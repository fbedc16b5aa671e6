"""A metric used as a correct/incorrect classifier: threshold tuned on dev, applied to test.

Convention: an item is predicted positive when score >= threshold. Precision is
0 when nothing is predicted positive, recall 0 when there is no positive, and
F1 0 when precision + recall is 0 (scikit-learn's zero_division=0).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Sequence

import numpy as np
from scipy import stats

from qascore.meta.correlation import DEFAULT_RESAMPLES, DEFAULT_SEED, as_vector, percentile_ci
from qascore.meta.correlation import Floats

OBJECTIVES = ("accuracy", "f1", "precision", "recall")


@dataclass(frozen=True)
class BinaryScores:
    threshold: float
    accuracy: float
    precision: float
    recall: float
    f1: float
    n: int
    n_positive: int

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def as_labels(labels: Sequence[Any] | np.ndarray, name: str = "labels") -> np.ndarray:
    """0/1 (or bool) labels as a bool array; anything else is refused."""
    arr = np.asarray(labels)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional")
    if arr.dtype != bool:
        uniq = set(np.unique(arr).tolist())
        if not uniq <= {0, 1}:
            raise ValueError(f"{name} must be 0/1 or booleans, got values {sorted(uniq)[:5]}")
    return arr.astype(bool)


def _checked(scores: Floats, labels: Sequence[Any] | np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    s, y = as_vector(scores, "scores"), as_labels(labels)
    if len(s) != len(y):
        raise ValueError(f"scores and labels differ in length ({len(s)} vs {len(y)})")
    if len(s) == 0:
        raise ValueError("no items")
    return s, y


def binary_scores(scores: Floats, labels: Sequence[Any], threshold: float) -> BinaryScores:
    """Accuracy, precision, recall, F1 of `score >= threshold` against labels."""
    s, y = _checked(scores, labels)
    pred = s >= threshold
    tp = int(np.sum(pred & y))
    fp = int(np.sum(pred & ~y))
    fn = int(np.sum(~pred & y))
    prec = tp / (tp + fp) if tp + fp else 0.0
    rec = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * prec * rec / (prec + rec) if prec + rec else 0.0
    return BinaryScores(float(threshold), float(np.mean(pred == y)), prec, rec, f1, len(s), int(y.sum()))


def candidate_thresholds(scores: np.ndarray) -> np.ndarray:
    """Midpoints between consecutive distinct scores, plus one below and one above all."""
    u = np.unique(scores)
    mids = (u[:-1] + u[1:]) / 2
    return np.concatenate([[u[0] - 1.0], mids, [u[-1] + 1.0]])


def tune_threshold(dev_scores: Floats, dev_labels: Sequence[Any], objective: str = "accuracy") -> float:
    """The threshold that maximises `objective` on dev.

    Only midpoints between distinct dev scores can change the predictions, so
    they are the whole search space. Ties between equally good thresholds go to
    the lowest one (deterministic).
    """
    if objective not in OBJECTIVES:
        raise ValueError(f"unknown objective '{objective}'; choose from {OBJECTIVES}")
    s, y = _checked(dev_scores, dev_labels)
    cands = candidate_thresholds(s)
    pred = s[None, :] >= cands[:, None]
    tp = (pred & y).sum(axis=1)
    fp = (pred & ~y).sum(axis=1)
    fn = (~pred & y).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        prec = np.where(tp + fp > 0, tp / np.maximum(tp + fp, 1), 0.0)
        rec = np.where(tp + fn > 0, tp / np.maximum(tp + fn, 1), 0.0)
        f1 = np.where(prec + rec > 0, 2 * prec * rec / np.where(prec + rec > 0, prec + rec, 1), 0.0)
    acc = (pred == y).mean(axis=1)
    value = {"accuracy": acc, "f1": f1, "precision": prec, "recall": rec}[objective]
    return float(cands[int(np.argmax(value))])


def log_loss(probs: Floats, labels: Sequence[Any], eps: float = 1e-12) -> float:
    """Mean negative log-likelihood of binary labels under probabilities (clipped to [eps, 1 - eps])."""
    p, y = _checked(probs, labels)
    p = np.clip(p, eps, 1 - eps)
    return float(-np.mean(np.where(y, np.log(p), np.log1p(-p))))


def fit_temperature(dev_logits: Floats, dev_labels: Sequence[Any]) -> float:
    """The temperature T minimising the log loss of sigmoid(logit / T) on dev (temperature scaling,
    Guo et al. 2017): one number that makes a classifier's probabilities calibrated without moving its
    ranking (AUROC) or, with the threshold mapped alike, its decisions."""
    from scipy.optimize import minimize_scalar

    z, y = _checked(dev_logits, dev_labels)
    y = y.astype(np.float64)

    def loss(log_t: float) -> float:
        u = z / np.exp(log_t)
        return float(np.mean(np.logaddexp(0.0, u) - y * u))  # -log-likelihood, stable for large |u|

    return float(np.exp(minimize_scalar(loss, bounds=(-4.0, 4.0), method="bounded").x))


def dev_test_scores(dev_scores: Floats, dev_labels: Sequence[Any], test_scores: Floats,
                    test_labels: Sequence[Any], objective: str = "accuracy") -> BinaryScores:
    """Tune on dev, report on test: the protocol that keeps the threshold honest."""
    return binary_scores(test_scores, test_labels, tune_threshold(dev_scores, dev_labels, objective))


def auroc(scores: Floats, labels: Sequence[Any] | np.ndarray) -> float:
    """Area under the ROC curve = P(score_pos > score_neg) + 0.5 P(tie) (Mann-Whitney U
    with average ranks), the value scikit-learn's roc_auc_score gives with ties."""
    s, y = _checked(scores, labels)
    n_pos, n_neg = int(y.sum()), int((~y).sum())
    if n_pos == 0 or n_neg == 0:
        raise ValueError("AUROC needs both positive and negative labels")
    ranks = stats.rankdata(s, method="average")
    u = ranks[y].sum() - n_pos * (n_pos + 1) / 2
    return float(u / (n_pos * n_neg))


def auroc_resampled(scores: Floats, labels: Sequence[Any] | np.ndarray, idx: np.ndarray) -> np.ndarray:
    """AUROC on each bootstrap resample (rows of `idx`, e.g. `correlation.bootstrap_indices`), vectorised as
    `auroc`; NaN where a resample holds one class only (`percentile_ci` leaves those out)."""
    s, y = _checked(scores, labels)
    ss, yy = s[idx], y[idx]
    ranks = stats.rankdata(ss, method="average", axis=-1)
    n_pos = yy.sum(axis=1)
    n_neg = yy.shape[1] - n_pos
    u = (ranks * yy).sum(axis=1) - n_pos * (n_pos + 1) / 2
    both = (n_pos > 0) & (n_neg > 0)
    return np.where(both, u / np.maximum(n_pos * n_neg, 1), np.nan)


def accuracy_resampled(scores: Floats, labels: Sequence[Any] | np.ndarray, threshold: float,
                       idx: np.ndarray) -> np.ndarray:
    """Accuracy of `score >= threshold` on each bootstrap resample (rows of `idx`); the threshold stays fixed."""
    s, y = _checked(scores, labels)
    return np.asarray(((s[idx] >= threshold) == y[idx]).mean(axis=1), dtype=float)


@dataclass(frozen=True)
class AurocDifference:
    """AUROC(a) - AUROC(b) on the same rows, with a bootstrap CI and p = share of resamples where a <= b."""

    difference: float
    ci_low: float
    ci_high: float
    p: float
    n: int
    n_groups: int
    n_resamples: int
    seed: int


def paired_auroc(a: Floats, b: Floats, labels: Sequence[Any],
                 groups: Sequence[Any] | None = None, *, n_resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED,
                 level: float = 0.95) -> AurocDifference:
    """Is model a's AUROC above model b's on the same rows? A paired bootstrap that resamples whole
    `groups` (e.g. the rows of one question, which are not independent), so a dev-split gain smaller
    than the split's noise shows as a CI that spans 0."""
    sa, y = _checked(a, labels)
    sb, _ = _checked(b, labels)
    keys = np.asarray(groups if groups is not None else np.arange(len(y)))
    if len(keys) != len(y):
        raise ValueError(f"{len(keys)} groups for {len(y)} rows")
    _, inverse = np.unique(keys, return_inverse=True)
    order = np.argsort(inverse, kind="stable")
    members = np.split(order, np.flatnonzero(np.diff(inverse[order])) + 1)
    rng = np.random.default_rng(seed)
    diffs = []
    for _ in range(n_resamples):
        idx = np.concatenate([members[g] for g in rng.integers(0, len(members), len(members))])
        if 0 < y[idx].sum() < len(idx):
            diffs.append(auroc(sa[idx], y[idx]) - auroc(sb[idx], y[idx]))
    d = np.asarray(diffs)
    lo, hi = percentile_ci(d, level)
    return AurocDifference(auroc(sa, y) - auroc(sb, y), lo, hi, float(np.mean(d <= 0)), len(y), len(members),
                           n_resamples, seed)
