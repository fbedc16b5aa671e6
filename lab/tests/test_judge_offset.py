"""`qascore-lab train judge-offset`: the offset's maximum-likelihood fit, checked against closed forms."""

from __future__ import annotations

import argparse
import json
import math

import numpy as np
import pytest

from qascore_lab.train.judge_offset import fit_offset, run


@pytest.mark.parametrize("log_odds,labels,expected", [
    ([0.0, 0.0, 0.0, 0.0], [1, 0, 0, 0], math.log(1 / 3)),     # one right of four at even odds: odds 1:3
    ([2.0, 2.0], [1, 0], -2.0),                                 # half right: the offset cancels the log-odds
    ([1.0, 1.0, 1.0], [0, 0, 0], -20.0),                        # none right: the bound
])
def test_the_offset_is_the_maximum_likelihood_one(log_odds, labels, expected):
    assert fit_offset(np.array(log_odds), np.array(labels, dtype=float)) == pytest.approx(expected, abs=1e-4)


def test_a_feature_already_on_the_card_is_refused(tmp_path):
    card = tmp_path / "judge.json"
    card.write_text(json.dumps({"features": ["verifier", "short_list"], "offsets": {}}))
    with pytest.raises(SystemExit, match="not yet on the card"):
        run(argparse.Namespace(feature="short_list", rows=[], card=str(card)))


def test_a_routed_card_is_refused(tmp_path):
    """An offset fitted on a routed card would read its sentence rows with the short card: fit each card first."""
    card = tmp_path / "judge.json"
    card.write_text(json.dumps({"features": ["verifier"], "offsets": {},
                                "sentences": {"card": "judge-sentences.json", "sha256": "0" * 12, "min_words": 6}}))
    with pytest.raises(SystemExit, match="routes sentence golds"):
        run(argparse.Namespace(feature="short_list", rows=[], card=str(card)))
