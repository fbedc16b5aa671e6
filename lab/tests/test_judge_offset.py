"""`qascore-lab train judge-offset`: the offset's maximum-likelihood fit, checked against closed forms."""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

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


def _routed(tmp_path: Path) -> tuple[Path, Path]:
    """A routing card and its sentence card (one logistic feature each), and one wrong list answer to a question
    whose only reference is a sentence: the sentence card reads it."""
    from qascore.runtime.delta import file_sha256

    plain = {"features": ["verifier"], "platt": [1.0, 0.0], "threshold": 0.5,
             "model": {"kind": "logistic", "mean": [0.0], "scale": [1.0], "coef": [1.0], "intercept": 0.0}}
    (tmp_path / "s.json").write_text(json.dumps(plain))
    card = tmp_path / "judge.json"
    card.write_text(json.dumps({**plain, "sentences": {"card": "s.json", "sha256": file_sha256(tmp_path / "s.json"),
                                                        "min_words": 6}}))
    rows = tmp_path / "rows.jsonl"
    rows.write_text(json.dumps({"question": "Name the two moons of Mars.", "candidate": "Phobos, Deimos and Titan.",
                                "references": ["The two moons of Mars are Phobos and Deimos."], "label": 0}) + "\n")
    return card, rows


def test_a_routed_card_is_fitted_on_the_rows_its_short_gold_card_reads(tmp_path):
    """A routed card's offset goes on its short-gold card: a row whose every reference is a sentence is read by the
    sentence card, so a rule that fires only there gives the fit no row."""
    card, rows = _routed(tmp_path)
    with pytest.raises(SystemExit, match="long_list fires on none of the 1 rows"):
        run(argparse.Namespace(feature="long_list", rows=[str(rows)], card=str(card)))


def test_with_sentences_one_offset_goes_on_both_cards_and_the_routing_card_names_the_new_one(tmp_path):
    """`--sentences`: the sentence card's rows join the fit (here the only row: one wrong answer, so the offset is the
    bound), both cards get the feature and the one offset, and the routing card records the sentence card's new
    hash, which `judge.read_card` checks."""
    from qascore.metrics import judge
    from qascore.runtime.delta import file_sha256

    card, rows = _routed(tmp_path)
    run(argparse.Namespace(feature="long_list", rows=[str(rows)], card=str(card), sentences=True))
    outer, inner = json.loads(card.read_text()), json.loads((tmp_path / "s.json").read_text())
    assert outer["offsets"]["long_list"] == inner["offsets"]["long_list"] == pytest.approx(-20.0, abs=1e-4)
    assert outer["features"] == inner["features"] == ["verifier", "long_list"]
    assert outer["sentences"]["sha256"] == file_sha256(tmp_path / "s.json")
    judge.read_card.cache_clear()  # the run read the cards before it wrote them
    assert judge.read_card(str(card))["sentences"]["loaded"]["offsets"] == {"long_list": inner["offsets"]["long_list"]}
