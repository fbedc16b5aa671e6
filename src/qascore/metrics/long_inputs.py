"""Long inputs: one rule for saying that a model metric did not read all of a text.

Why: `ava`/`square` flagged `details.truncated`, `bertscore` printed a Python
warning per call, `judge` said nothing. Now every model metric that cuts (or
reads in windows up to a cap) does two things through this module:

- `details.truncated` (bool, every record): True where some text of the record
  was longer than the metric reads (`TRUNCATED`, `flags_detail`);
- `report(metric, records, flags, rule)`: one tally per metric. The command line
  calls `defer()` before scoring and `flush()` at the end, so a run prints ONE
  warning line per metric however many chunks or calls it took. Library use
  (nothing deferred) gets one Python `TruncationWarning` per call instead.

What each metric reads (its "rule") is in docs/long-inputs.md.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Any, Sequence

TRUNCATED = "truncated"
_MAX_IDS = 3


@dataclass
class _Tally:
    cut: int = 0
    total: int = 0
    rule: str = ""
    ids: list[str] = field(default_factory=list)


_deferred = False
_tally: dict[str, _Tally] = {}


def flags_detail(flags: Sequence[bool]) -> list[bool]:
    """`details.truncated` for a call: one bool per record."""
    return [bool(f) for f in flags]


def _ids(records: Sequence[Any], flags: Sequence[bool]) -> list[str]:
    out = []
    for k, (rec, f) in enumerate(zip(records, flags)):
        if f:
            rid = getattr(rec, "id", None)
            out.append(str(rid) if rid not in (None, "") else f"#{k + 1}")
    return out


def report(metric: str, records: Sequence[Any], flags: Sequence[bool], rule: str) -> None:
    """Count the records whose text was cut (`rule`: what the metric reads, e.g. 'the first 512 tokens')."""
    n_cut = sum(bool(f) for f in flags)
    if _deferred:
        t = _tally.setdefault(metric, _Tally(rule=rule))
        t.cut += n_cut
        t.total += len(flags)
        if len(t.ids) < _MAX_IDS:
            t.ids.extend(_ids(records, flags)[:_MAX_IDS - len(t.ids)])
        return
    if n_cut:
        from qascore.runtime.encoder import TruncationWarning  # the one category (a UserWarning); torch-free import here

        warnings.warn(line(metric, n_cut, len(flags), rule, _ids(records, flags)[:_MAX_IDS]),
                      TruncationWarning, stacklevel=3)


def line(metric: str, n_cut: int, total: int, rule: str, ids: Sequence[str]) -> str:
    more = ", ..." if n_cut > len(ids) else ""
    return (f"{metric}: {n_cut} of {total} records had a text longer than it reads ({rule}); scored on "
            f"that part, details.truncated marks them (ids: {', '.join(ids)}{more}; docs/long-inputs.md)")


def defer() -> None:
    """Tally from now on instead of warning per call (the command line)."""
    global _deferred
    _deferred = True
    _tally.clear()


def summary() -> list[str]:
    """One line per metric that cut something since `defer()`."""
    return [line(m, t.cut, t.total, t.rule, t.ids) for m, t in _tally.items() if t.cut]


def flush() -> None:
    """Print the summary through qascore's warning channel and stop deferring."""
    global _deferred
    from qascore import messages

    for text in summary():
        messages.warn(text)
    _tally.clear()
    _deferred = False
