"""Parsing of `NAME[:key=value,...]` metric specs shared by the commands."""

from __future__ import annotations

import json
from typing import Any


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
