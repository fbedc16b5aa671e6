"""`metrics.reopens`: an answer's units, their features, and where a (hand-made) model finds a reopening."""

from __future__ import annotations

import json

import pytest

from qascore.metrics import reopens


# Each row: a text and its units (a unit ends at a sentence's end, a line break, a semicolon, a spaced dash or an
# ellipsis, and before a bracket; a decimal point or a comma inside a number ends none).
@pytest.mark.parametrize("text, expected", [
    ("Canberra. Wait, it is Sydney.", ["Canberra.", "Wait, it is Sydney."]),
    ("Mont Blanc — or is it? Monte Rosa.", ["Mont Blanc", "or is it?", "Monte Rosa."]),
    ("4.5 km (about 2.8 mi); done", ["4.5 km", "(about 2.8 mi)", "done"]),
    ("v1: 6\nv2: 12", ["v1: 6", "v2: 12"]),
    ("Márquez... or am I thinking of Llosa?", ["Márquez", "or am I thinking of Llosa?"]),
    ("1,440 minutes.", ["1,440 minutes."]),
    ("", []),
])
def test_units(text, expected):
    assert [text[a:b] for a, b in reopens.units(text)] == expected


def test_unit_features_read_the_opening_words_apart_from_the_rest():
    feats = reopens.unit_features("Let me add it up: 24 x 60.", after_line=True)
    assert {"o0:let", "o1:me", "o2:let me", "o:add", "w:up", "w:<n>", "w2:<n> x", "nl"} <= set(feats)
    assert "o:x" not in feats and "o0:me" not in feats  # only the first OPENING words open the unit


@pytest.fixture()
def wait_model(tmp_path):
    """A model that reads a unit opening with "wait" or "edit" as a reopening: log-odds -2 + 4."""
    path = tmp_path / "reopens.json"
    path.write_text(json.dumps({"bias": -2.0, "weights": {"o0:wait": 4.0, "o0:edit": 4.0}, "threshold": 0.5}))
    return str(path)


@pytest.mark.parametrize("text, expected", [
    ("Canberra. Wait, it is Sydney.", "Wait, it is Sydney."),
    ("Canberra.\n\nEdit: Sydney.", "Edit: Sydney."),
    ("Wait. Canberra.", None),                      # the first unit opens the answer; it reopens nothing
    ("Canberra. It has been the capital since 1913.", None),
])
def test_reopening_is_the_first_later_unit_at_the_threshold(wait_model, text, expected):
    at = reopens.reopening(text, wait_model)
    assert (None if at is None else text[at:]) == expected


def test_probability_is_the_logistic_of_bias_plus_weights(wait_model):
    model = reopens.load(wait_model)
    assert reopens.probability(model, "Wait, Sydney.", False) == pytest.approx(1 / (1 + 2.718281828459045 ** -2))
    assert reopens.probability(model, "Sydney.", False) == pytest.approx(1 / (1 + 2.718281828459045 ** 2))


def test_a_model_without_its_fields_is_refused(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"weights": {}}))
    with pytest.raises(ValueError, match="needs bias, weights and threshold"):
        reopens.load(str(bad))
    with pytest.raises(FileNotFoundError, match="train one with"):
        reopens.load(str(tmp_path / "missing.json"))


def test_the_shipped_model_loads():
    model = reopens.load()
    assert 0 < model["threshold"] < 1 and len(model["weights"]) > 100
