"""`train judge-retire`: a retired rule's splits take the branch a 0 takes, and the card decides as it did with
the rule silent (hand-worked trees)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from qascore.metrics import judge
from qascore_lab.train.judge_retire import pinned, rewrite

# features [a, r, b]: split on r (r <= 0.5: left), left child splits on b, right child is a leaf
TREE = {"feature": np.array([1, 2, -2, -2, -2], np.int16), "threshold": np.array([0.5, 1.0, -2, -2, -2]),
        "left": np.array([1, 2, -1, -1, -1], np.int16), "right": np.array([4, 3, -1, -1, -1], np.int16),
        "value": np.array([0.0, 0.0, 1.0, 2.0, -5.0])}


def test_pinning_keeps_the_branch_a_zero_takes_and_renumbers_the_rest():
    out = pinned(TREE, {1}, {0: 0, 2: 1})
    # r = 0 goes left, to the split on b, now feature 1; the right leaf (-5) is gone
    assert out["feature"].tolist() == [1, -2, -2] and out["value"].tolist() == [0.0, 1.0, 2.0]
    assert out["left"].tolist() == [1, -1, -1] and out["right"].tolist() == [2, -1, -1]
    x = np.array([[0.0, 0.0, 0.5], [9.0, 1.0, 3.0]])
    assert judge.tree_values(out, x[:, [0, 2]]).tolist() == judge.tree_values(TREE, x * [1, 0, 1]).tolist() == [1.0, 2.0]


def test_a_retired_card_decides_as_the_old_one_with_the_rule_silent(tmp_path):
    card = {"features": ["a", "r", "b"], "platt": [1.0, 0.0], "threshold": 0.5, "offsets": {"r": -3.0},
            "model": {"kind": "trees", "init": 0.0, "learning_rate": 1.0, "trees": [TREE], "monotone": {"r": -1}},
            "importance": {"a": 0.1, "r": 0.2, "b": 0.3}}
    path = tmp_path / "judge.json"
    judge.write_card(card, path)
    old = judge.read_card(str(path))
    rewrite(path, ["r"], "test")
    judge.read_card.cache_clear()  # read once per process: this one is rewritten
    new = judge.read_card(str(path))
    assert new["features"] == ["a", "b"] and new["offsets"] == {} and new["model"]["monotone"] == {}
    assert new["importance"] == {"a": 0.1, "b": 0.3} and json.loads(path.read_text())["retired"] == {"r": "test"}
    x = np.random.default_rng(0).uniform(-1, 2, size=(50, 3))
    x[:, 1] = np.round(x[:, 1])
    silent = x * [1, 0, 1]
    assert np.allclose(judge.predict(new, x[:, [0, 2]]), judge.predict(old, silent))
    with pytest.raises(SystemExit, match="no feature r"):
        rewrite(path, ["r"], "test")
