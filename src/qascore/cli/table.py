"""The corpus table `score` prints (whole file or chunked): a table, or JSON."""

from __future__ import annotations

import sys
from typing import Any, Sequence

from qascore import jsonio


def print_corpus(rows: Sequence[tuple[str, float, str]], n: int, fmt: str, out: Any = None) -> None:
    """(label, corpus, signature) rows as `score` prints them: a table, or JSON (NaN as null); `out` stdout."""
    out = sys.stdout if out is None else out
    if fmt == "json":
        jsonio.dump({label: {"corpus": c, "n": n, "signature": sig} for label, c, sig in rows}, out, indent=2)
        print(file=out)
        return
    width = max(len("metric"), *(len(label) for label, _, _ in rows))
    print(f"{'metric':<{width}}  {'corpus':>8}  n={n}", file=out)
    for label, c, _ in rows:
        print(f"{label:<{width}}  {c:8.4f}", file=out)
    print(file=out)
    for _, _, sig in rows:
        print(f"signature: {sig}", file=out)
