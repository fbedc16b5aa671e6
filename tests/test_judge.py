"""The stacked judge: its feature rules and the calibrated probability, against hand computation."""

from __future__ import annotations

import math

import numpy as np
import pytest

from qascore.metrics.judge import contains, predict


@pytest.mark.parametrize("candidate, refs, expected", [
    ("The capital is Paris.", ["Paris"], 1.0),
    ("It is the Eiffel Tower", ["eiffel tower"], 1.0),
    ("Parisian food", ["Paris"], 0.0),           # whole words only
    ("London", ["Paris", "London"], 1.0),       # any reference
    ("London", [""], 0.0),                      # an empty reference never matches
    ("A year: 1945.", ["1945"], 1.0),
])
def test_contains(candidate, refs, expected):
    assert contains(candidate, refs) == expected


def test_predict_by_hand():
    card = {"features": ["ava_logit", "kpqa_rougeL"], "mean": [1.0, 0.0], "scale": [2.0, 1.0], "coef": [0.5, -1.0],
            "intercept": 0.25, "platt": [2.0, -0.5]}
    x = np.array([[3.0, 1.0], [1.0, 0.0]])
    # z = [[1, 1], [0, 0]]; logit = [0.5 - 1 + 0.25, 0.25] = [-0.25, 0.25]; platt: [-1.0, 0.0]
    expected = [1 / (1 + math.exp(1.0)), 0.5]
    assert np.allclose(predict(card, x), expected)
    # a full feature matrix (every column of FEATURES) is narrowed to the card's columns
    full = np.array([[3.0, 9.0, 1.0, 9.0, 9.0], [1.0, 9.0, 0.0, 9.0, 9.0]])
    assert np.allclose(predict(card, full), expected)


def test_out_of_fold_probabilities():
    """Out-of-fold (folds by question) probabilities of an informative feature rank the classes; all in (0, 1)."""
    from qascore.meta.classification import auroc
    from qascore.train.judge import out_of_fold

    rng = np.random.default_rng(0)
    n = 400
    y = rng.integers(0, 2, n)
    informative = y + rng.normal(0, 0.3, n)           # separates the classes in every fold
    x = np.column_stack([informative, rng.normal(size=n)])
    groups = [f"q{i // 4}" for i in range(n)]
    probs = out_of_fold(x, list(y), groups, c=1.0)
    assert auroc(probs, list(y)) > 0.95
    assert ((probs > 0) & (probs < 1)).all()
