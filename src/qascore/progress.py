"""Progress bars for long work: on stderr, only when it is a terminal or asked for."""

from __future__ import annotations

import os
import sys
from typing import Iterable, Iterator, TypeVar

T = TypeVar("T")


def enabled() -> bool:
    flag = os.environ.get("QASCORE_PROGRESS")
    if flag is not None:
        return flag not in ("0", "false", "no", "")
    return sys.stderr.isatty()


def progress(items: Iterable[T], *, total: int | None = None, desc: str = "", min_total: int = 64) -> Iterator[T]:
    """Wrap an iterable in a tqdm bar when there is enough work to watch."""
    if total is None and hasattr(items, "__len__"):
        total = len(items)  # type: ignore[arg-type]
    if not enabled() or (total is not None and total < min_total):
        yield from items
        return
    from tqdm import tqdm

    yield from tqdm(items, total=total, desc=desc, file=sys.stderr, leave=False, dynamic_ncols=True)
