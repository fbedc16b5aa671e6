"""Progress bars for long work: on stderr, only when it is a terminal or asked for."""

from __future__ import annotations

import os
import sys
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Iterable, Iterator, TypeVar

T = TypeVar("T")


_cli: bool | None = None  # set by the command line: a terminal watches it, or --progress was given


def configure(on: bool) -> None:
    """The command line's choice (stderr is a terminal, or --progress); library use never calls this."""
    global _cli
    _cli = on


def enabled() -> bool:
    """Bars and progress lines: QASCORE_PROGRESS=1/0 decides where set; else only a command line run on a
    terminal or with --progress draws them. A library caller (a training loop) gets none by default."""
    flag = os.environ.get("QASCORE_PROGRESS")
    if flag is not None:
        return flag not in ("0", "false", "no", "")
    return bool(_cli)


def quiet_library() -> None:
    """No model-loading bars from transformers / huggingface_hub in library use unless the user chose
    (their HF_HUB_DISABLE_PROGRESS_BARS, or QASCORE_PROGRESS=1, wins)."""
    if "HF_HUB_DISABLE_PROGRESS_BARS" in os.environ or enabled():
        return
    os.environ["HF_HUB_DISABLE_PROGRESS_BARS"] = "1"  # read when transformers is first imported
    if "transformers" in sys.modules:  # imported before qascore: switch its bars off directly
        try:
            sys.modules["transformers"].utils.logging.disable_progress_bar()
        except AttributeError:
            pass


# The metric being scored, outermost first: a metric that runs another inside (`judge` runs `ava` and
# `kpqa-rougeL`) is the one its bars are named after. A context variable, so server threads do not mix.
_SCORING: ContextVar[str | None] = ContextVar("qascore_scoring", default=None)


@contextmanager
def scoring(name: str) -> Iterator[None]:
    """Name the bars drawn inside after metric `name`, unless a metric outside it already named them."""
    token = _SCORING.set(name) if _SCORING.get() is None else None
    try:
        yield
    finally:
        if token is not None:
            _SCORING.reset(token)


def label(desc: str = "") -> str:
    """What a bar is called: the metric being scored (the outermost), else `desc`."""
    return _SCORING.get() or desc


def progress(items: Iterable[T], *, total: int | None = None, desc: str = "", min_total: int = 64) -> Iterator[T]:
    """Wrap an iterable in a tqdm bar when there is enough work to watch; the bar is named after the metric
    being scored (`label`), else `desc`."""
    if total is None and hasattr(items, "__len__"):
        total = len(items)  # type: ignore[arg-type]
    if not enabled() or (total is not None and total < min_total):
        yield from items
        return
    from tqdm import tqdm

    yield from tqdm(items, total=total, desc=label(desc), file=sys.stderr, leave=False, dynamic_ncols=True)
