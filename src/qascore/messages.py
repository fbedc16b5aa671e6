"""qascore's one channel for warnings a user should see: `qascore: warning: ...` on stderr, one line each.

Why: Python's warnings print the source line that raised them and repeat per
call site; a user needs what happened and which record, once.
"""

from __future__ import annotations

import sys

from qascore.record_checks import terminal_safe

_seen: set[str] = set()


def warn(message: str, *, once: bool = True) -> None:
    """Print one warning line (each distinct message once per process unless once=False)."""
    if once and message in _seen:
        return
    _seen.add(message)
    print(f"qascore: warning: {terminal_safe(message)}", file=sys.stderr, flush=True)  # ids, texts: inert


def first_time(key: str) -> bool:
    """True the first time `key` is asked about in this command run (e.g. one warning per input file)."""
    key = "\0" + key  # never a message
    if key in _seen:
        return False
    _seen.add(key)
    return True


def reset() -> None:
    """Forget which warnings were printed (each command run starts afresh)."""
    _seen.clear()
