"""Parsing of `NAME[:key=value,...]` metric specs shared by the commands."""

from __future__ import annotations

import json
from typing import Any, Sequence


def parse_value(text: str) -> Any:
    low = text.lower()
    if low in ("true", "false"):
        return low == "true"
    if low in ("none", "null"):
        return None
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def parse_metric_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """'bertscore:layer=4,idf=true' -> ('bertscore', {'layer': 4, 'idf': True})."""
    name, _, rest = spec.partition(":")
    options: dict[str, Any] = {}
    for item in filter(None, rest.split(",")):
        if "=" not in item:
            raise ValueError(f"metric option '{item}' in '{spec}' must look like key=value")
        key, value = item.split("=", 1)
        options[key.strip()] = parse_value(value.strip())
    return name.strip(), options


def labelled_specs(specs: Sequence[str]) -> list[tuple[str, str, dict[str, Any]]]:
    """(label, name, options) per `-m` spec; a metric asked for twice is labelled by its full spec."""
    parsed = [parse_metric_spec(spec) for spec in specs]
    names = [name for name, _ in parsed]
    labels = [spec if names.count(name) > 1 else name for spec, name in zip(specs, names)]
    if len(set(labels)) != len(labels):
        raise ValueError("the same metric spec is given twice")
    return [(label, name, opts) for label, (name, opts) in zip(labels, parsed)]
