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
