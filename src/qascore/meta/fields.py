"""Reading judgments and precomputed scores out of records, with errors that name line and field."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from qascore.records import InputError, Record

_TRUE = {"1", "true", "yes", "correct"}
_FALSE = {"0", "false", "no", "incorrect"}
# p/r/f and P/R/F name the same parts: older scored files used capitals for BERTScore.
_OLD_PARTS = {"p": "P", "r": "R", "f": "F", "P": "p", "R": "r", "F": "f"}


def field_value(rec: Record, key: str) -> Any:
    """A core attribute, an extra key, or a dotted path into extra (e.g. `scores.bleu1` in a
    file written by `qascore score -o`); None when absent."""
    value: Any = {**{k: getattr(rec, k) for k in rec.present}, **rec.extra}
    if key in value:  # a column named with a dot: `scores.bleu1` in a table written by `qascore score -o x.csv`
        return value[key]
    for part in key.split("."):
        if isinstance(value, dict) and part in value:
            value = value[part]
        elif isinstance(value, dict) and _OLD_PARTS.get(part) in value:
            value = value[_OLD_PARTS[part]]  # files written before 0.1.0's one shape named BERTScore's parts P/R/F
        else:
            return None
    return value


def human_scores(records: Sequence[Record], key: str) -> np.ndarray:
    """The human judgment of every record, as floats; a bad one is an InputError naming it."""
    out = np.empty(len(records))
    for i, rec in enumerate(records):
        out[i] = number_field(rec, key)
    return out


def number_field(rec: Record, key: str) -> float:
    """A numeric field of a record: core attribute, extra key, or dotted path into extra
    (e.g. `scores.bleu1` in a file written by `qascore score -o`)."""
    value = field_value(rec, key)
    if value is None:
        raise InputError("is missing (needed as a number for meta-evaluation)",
                         source=rec.source, line=rec.line, field=key)
    if isinstance(value, bool):
        raise InputError(f"must be a number, got {value!r}", source=rec.source, line=rec.line, field=key)
    try:
        num = float(value)
    except (TypeError, ValueError):
        raise InputError(f"must be a number, got {value!r}", source=rec.source, line=rec.line, field=key) from None
    if not np.isfinite(num):
        raise InputError(f"must be a finite number, got {value!r}", source=rec.source, line=rec.line, field=key)
    return num


def text_field(rec: Record, key: str) -> str:
    """Any present field as text (e.g. a split name)."""
    value = field_value(rec, key)
    if value is None:
        raise InputError("is missing", source=rec.source, line=rec.line, field=key)
    return str(value)


def label_field(rec: Record, key: str) -> bool:
    """A binary label: true/false, 0/1 (numbers or strings), yes/no, correct/incorrect."""
    value = field_value(rec, key)
    if value is None:
        raise InputError("is missing (needed as a 0/1 label)", source=rec.source, line=rec.line, field=key)
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)) and value in (0, 1):
        return bool(value)
    text = str(value).strip().lower()
    if text in _TRUE or text in _FALSE:
        return text in _TRUE
    raise InputError(f"must be a 0/1 label, got {value!r}", source=rec.source, line=rec.line, field=key)


def labels(records: Sequence[Record], key: str) -> np.ndarray:
    return np.array([label_field(r, key) for r in records], dtype=bool)
