"""Figures the docs quote from a shipped model's metadata agree with it (one source for each fact)."""

from __future__ import annotations

import json
from pathlib import Path

from qascore.runtime import defaults
from qascore.runtime.delta import read_meta

REPO = Path(__file__).resolve().parents[1]


def test_ava_threshold_and_temperature_in_the_docs_are_the_stored_ones():
    meta = read_meta(defaults.RESOURCES / "ava" / "ava.safetensors")
    threshold, temperature = f"{meta['threshold']:.3f}", f"{meta['temperature']:.3f}"
    readme, card = (REPO / "README.md").read_text(), (REPO / "docs" / "ava.md").read_text()
    assert f"| {threshold} (stored; `details.correct`) |" in readme
    assert f"stored with the model ({threshold})" in card and f"stored {threshold} " in card
    assert f"Temperature {temperature} and threshold {threshold}" in " ".join(card.split())


def test_judge_threshold_in_the_docs_is_the_cards():
    card = json.loads((defaults.RESOURCES / "judge" / "judge.json").read_text())
    threshold = f"{card['threshold']:.4f}"
    readme, doc = (REPO / "README.md").read_text(), (REPO / "docs" / "judge.md").read_text()
    assert f"| {threshold} (stored; `details.correct`) |" in readme
    assert f"| {threshold} (the card's) |" in doc
