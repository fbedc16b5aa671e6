"""JSON that every parser accepts: NaN and infinities are written as null.

Why: Python's json writes bare NaN, which JSON.parse, jq and most other readers
reject; an undefined correlation (a constant column) must stay readable.
"""

from __future__ import annotations

import json
import math
from typing import IO, Any


def finite(obj: Any) -> Any:
    """`obj` with every NaN/inf float (nested in dicts, lists, tuples) replaced by None."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k: finite(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [finite(v) for v in obj]
    return obj


def dumps(obj: Any, **kw: Any) -> str:
    return json.dumps(finite(obj), allow_nan=False, **kw)


def dump(obj: Any, fh: IO[str], **kw: Any) -> None:
    json.dump(finite(obj), fh, allow_nan=False, **kw)
