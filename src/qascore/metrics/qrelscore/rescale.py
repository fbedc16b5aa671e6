"""Rescaling baselines b_LRM and b_GRG (eq. 5; appendix F), stored as JSON in the package.

A baseline is the mean raw score over random (question, context) pairs with
low lexical overlap; it depends on the model and on every option that changes
raw values, so entries are keyed by part, model id and configuration string.
`qascore-lab train qrel-baselines` computes and writes them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from qascore.runtime.defaults import RESOURCES

BASELINES = RESOURCES / "qrelscore" / "baselines.json"


def key(part: str, model: str, config: str) -> str:
    return f"{part}|{model}|{config}"


def read(path: Path = BASELINES) -> dict[str, dict[str, Any]]:
    if not path.exists():
        return {}
    return json.loads(path.read_text(encoding="utf-8")).get("baselines", {})


def lookup(part: str, model: str, config: str, path: Path = BASELINES) -> float | None:
    entry = read(path).get(key(part, model, config))
    return None if entry is None else float(entry["b"])


def write(entries: dict[str, dict[str, Any]], path: Path = BASELINES) -> None:
    """Merge `entries` into the file (other entries are kept)."""
    data = {"baselines": {**read(path), **entries}}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")


def apply(raw: float, b: float | None) -> float:
    """(x - b) / (1 - b); identity when no baseline is known."""
    if b is None:
        return raw
    return (raw - b) / (1.0 - b)
