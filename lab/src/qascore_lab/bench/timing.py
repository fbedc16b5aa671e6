"""The one timing rule of the benches: run a step several times and keep the fastest.

On a shared machine the fastest run is the one least disturbed by other work.
"""

from __future__ import annotations

import time
from typing import Any, Callable


def fastest(fn: Callable[[], Any], repeat: int, before: Callable[[], None] | None = None) -> tuple[Any, float]:
    """(last result, fastest wall-clock seconds) of `repeat` runs; `before` runs untimed each time."""
    best, out = float("inf"), None
    for _ in range(max(1, repeat)):
        if before is not None:
            before()
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return out, best
