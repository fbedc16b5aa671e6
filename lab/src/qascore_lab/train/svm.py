"""AVA's linear baseline (paper section 5.1): an SVM over four similarity features.

x1 = is-included(s, t): 1 when the target contains a short answer s of the
     reference (WikiQA's annotated answer phrases; any of them);
x2 = sim-text(r, t), x3 = sim-text(r, q), x4 = sim-text(q, t), with
sim-text(a, b) = 2 |tok(a) ∩ tok(b)| / (|tok(a)| + |tok(b)|) over token sets.

Trained with scikit-learn's SVC (linear kernel) and Platt scaling. The model is stored as JSON (weights, bias, Platt A/B), never a
pickle, and applied without scikit-learn.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

from qascore.text.squad import normalize_answer, squad_tokens

FEATURES = ("is_included(s,t)", "sim_text(r,t)", "sim_text(r,q)", "sim_text(q,t)")


def sim_text(a: str, b: str) -> float:
    """Dice overlap of token sets (the paper's 'sort of Jaccard similarity')."""
    ta, tb = set(squad_tokens(a)), set(squad_tokens(b))
    if not ta and not tb:
        return 0.0
    return 2.0 * len(ta & tb) / (len(ta) + len(tb))


def is_included(shorts: Sequence[str], target: str) -> float:
    """1.0 when any short answer, normalised, occurs in the normalised target."""
    t = f" {normalize_answer(target)} "
    for s in shorts:
        n = normalize_answer(s)
        if n and f" {n} " in t:
            return 1.0
    return 0.0


def features(question: str, reference: str, target: str, shorts: Sequence[str] = ()) -> list[float]:
    return [is_included(shorts, target), sim_text(reference, target), sim_text(reference, question),
            sim_text(question, target)]


@dataclass
class LinearAVA:
    """w·x + b, Platt-scaled: P(correct) = 1 / (1 + exp(A (w·x + b) + B))."""

    weights: list[float]
    bias: float
    platt_a: float
    platt_b: float
    threshold: float = 0.5
    features: tuple[str, ...] = FEATURES

    def decision(self, x: np.ndarray) -> np.ndarray:
        return np.asarray(x, dtype=float) @ np.asarray(self.weights) + self.bias

    def predict_proba(self, x: np.ndarray) -> np.ndarray:
        return 1.0 / (1.0 + np.exp(self.platt_a * self.decision(x) + self.platt_b))

    def save(self, path: str | Path, extra: dict | None = None) -> None:
        obj = asdict(self)
        obj["features"] = list(self.features)
        obj.update(extra or {})
        Path(path).write_text(json.dumps(obj, indent=2) + "\n", encoding="utf-8")

    @classmethod
    def load(cls, path: str | Path) -> "LinearAVA":
        obj = json.loads(Path(path).read_text(encoding="utf-8"))
        return cls(obj["weights"], obj["bias"], obj["platt_a"], obj["platt_b"], obj.get("threshold", 0.5),
                   tuple(obj.get("features", FEATURES)))


def fit(x: np.ndarray, y: Sequence[int], *, seed: int = 13, c: float = 1.0,
        class_weight: str | None = "balanced") -> LinearAVA:
    """Linear SVC + Platt scaling; positive class = label 1.

    Platt scaling is fitted by scikit-learn's CalibratedClassifierCV(method="sigmoid",
    ensemble=False): the form sklearn >= 1.9 recommends in place of the deprecated
    SVC(probability=True) the paper used (same sigmoid on cross-validated SVM scores).
    Classes are balanced by default: AVA data are ~1:5 positive:negative and an
    unweighted hinge loss on four weak features collapses to "always incorrect".
    """
    from sklearn.calibration import CalibratedClassifierCV
    from sklearn.svm import SVC

    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=int)
    cal = CalibratedClassifierCV(SVC(kernel="linear", C=c, class_weight=class_weight, random_state=seed), method="sigmoid",
                                 ensemble=False, cv=5)
    cal.fit(x, y)
    if list(cal.classes_) != [0, 1]:
        raise ValueError(f"SVM needs both labels 0 and 1, got {cal.classes_}")
    inner = cal.calibrated_classifiers_[0]
    svm, sig = inner.estimator, inner.calibrators[0]
    return LinearAVA(svm.coef_[0].tolist(), float(svm.intercept_[0]), float(sig.a_), float(sig.b_))
