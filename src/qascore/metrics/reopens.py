"""Where an answer reopens itself: a learned reading of the unit (sentence, line or dash-, semicolon- or
bracket-led clause) at which an answer revises, doubts or re-checks what it has stated ("1,440. Let me add it up
the long way: ... = 1,540. So 1,540 minutes." reopens at "Let me"; "Mont Blanc. Thinking about it more, ..."
at "Thinking").

A logistic regression over the words that open a unit and the words in it (`unit_features`), trained on
hand-written answers that revise, re-check or stand by what they said (`qascore-lab train reopens`; weights:
resources/judge/reopens.json.gz). The judge reads it to find what an answer settles on
(`answer_match.settled`); the model is read once per process, on first use.
"""

from __future__ import annotations

import gzip
import json
import math
import re
from functools import lru_cache
from pathlib import Path
from typing import Any, Sequence

from qascore.runtime import defaults

DEFAULT = defaults.RESOURCES / "judge" / "reopens.json.gz"
# a unit ends at a sentence's end, a line break, a semicolon, a spaced dash or an ellipsis, and before a bracket
_BREAK = re.compile(r"(?<=[.!?])[\"')\]*]*\s+|\n+|\s*;\s+|\s+[\u2014\u2013-]{1,2}\s+|\.\.\.+\s*|\u2026\s*|\s+(?=[(\[])")
_TOKEN = re.compile(r"[^\W\d_]+|\d+|[^\w\s]")
OPENING = 5  # the words that open a unit, read apart from the rest


def units(text: str) -> list[tuple[int, int]]:
    """(start, end) of each unit of `text` that holds a word or a digit."""
    out, start = [], 0
    for m in _BREAK.finditer(text):
        out.append((start, m.start()))
        start = m.end()
    out.append((start, len(text)))
    return [(a, b) for a, b in out if re.search(r"\w", text[a:b])]


def unit_features(unit: str, after_line: bool) -> list[str]:
    """The opening words ("o:let", "o2:let me", by place: "o0:let") and every word ("w:reconsider") of a unit,
    numbers as "<n>"; "nl" where it starts a line."""
    toks = ["<n>" if t.isdigit() else t for t in _TOKEN.findall(unit.lower())]
    head = toks[:OPENING]
    feats = [f"o{i}:{t}" for i, t in enumerate(head[:2])] + [f"o:{t}" for t in head]
    feats += [f"o2:{a} {b}" for a, b in zip(head, head[1:])]
    feats += [f"w:{t}" for t in set(toks)] + [f"w2:{a} {b}" for a, b in set(zip(toks, toks[1:]))]
    return feats + (["nl"] if after_line else [])


@lru_cache(maxsize=4)
def load(path: str = str(DEFAULT)) -> dict[str, Any]:
    """The weights: {"bias": b, "weights": {feature: w}, "threshold": t, ...} (JSON, gzipped where named .gz)."""
    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(f"reopens: model file {p} not found (train one with `qascore-lab train reopens`)")
    raw = gzip.decompress(p.read_bytes()) if p.suffix == ".gz" else p.read_bytes()
    model: dict[str, Any] = json.loads(raw.decode("utf-8"))
    if not {"bias", "weights", "threshold"} <= set(model):
        raise ValueError(f"reopens: model file {p} needs bias, weights and threshold")
    return model


def probability(model: dict[str, Any], unit: str, after_line: bool) -> float:
    """P(the unit reopens what the answer said before it)."""
    w = model["weights"]
    z = model["bias"] + sum(w.get(f, 0.0) for f in set(unit_features(unit, after_line)))
    return 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, z))))


def after_line(text: str, start: int) -> bool:
    """The unit starting at `start` opens a line."""
    return "\n" in text[max(0, start - 2):start]


def unit_probabilities(text: str, path: str = str(DEFAULT)) -> list[tuple[int, int, float]]:
    """(start, end, P(the unit reopens the answer)) of every unit of `text`; the first unit's is 0."""
    model = load(path)
    spans = units(text)
    return [(a, b, 0.0 if k == 0 else probability(model, text[a:b], after_line(text, a)))
            for k, (a, b) in enumerate(spans)]


def reopened_at(spans: Sequence[tuple[int, int, float]], threshold: float | None = None) -> int | None:
    """Where the first unit that reopens the answer starts, from its `unit_probabilities`, at the model's threshold
    unless another is given; None where none does."""
    cut = load()["threshold"] if threshold is None else threshold
    return next((a for a, _, p in spans[1:] if p >= cut), None)


def reopening(text: str, path: str = str(DEFAULT), threshold: float | None = None) -> int | None:
    """Where the first unit after the first that reopens the answer starts (its offset in `text`), or None; at the
    model's threshold unless another is given."""
    cut = load(path)["threshold"] if threshold is None else threshold
    return reopened_at(unit_probabilities(text, path), cut)
