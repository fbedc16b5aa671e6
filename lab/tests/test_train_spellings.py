"""`qascore-lab train spellings`: the edit costs against a table worked by hand."""

from __future__ import annotations

import math

import pytest

from qascore_lab.train.spellings import costs


def test_costs_are_add_one_log_odds_of_each_edit() -> None:
    """One positive ("colour"/"color": one "u" more) and one negative ("color"/"colon": "n" for "r"): two edits
    seen, each class's total 1 + 2 + 1 = 4, so an edit seen once among positives costs log(2/4) - log(1/4) = log 2,
    once among negatives -log 2, and one never seen log(1/4) - log(1/4) = 0."""
    table, unseen = costs([("colour", "color", "p", 1), ("color", "colon", "q", 0)])
    assert table == {"+u": pytest.approx(math.log(2), abs=1e-4), "n>r": pytest.approx(-math.log(2), abs=1e-4)}
    assert unseen == pytest.approx(0.0)
