"""Where command output goes: a file written whole or not at all, or standard output for `-o -`.

Why: a wrong `-o` directory used to fail after a long scoring run, and an
error mid-write left half a file that looked like a result. The path is
checked before any work, and the file appears only once it is complete.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path
from typing import IO, Callable

from qascore.errors import UsageError

STDOUT = "-"


def check_writable(path: str | None, flag: str = "-o") -> None:
    """Fail now, before scoring, if `path` cannot be written."""
    if path is None or path == STDOUT:
        return
    p = Path(path)
    if p.is_dir():
        raise UsageError(f"{flag} {path}: is a directory; give a file name")
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.is_dir():
        raise UsageError(f"{flag} {path}: folder {parent} does not exist")
    if not os.access(parent, os.W_OK | os.X_OK) or (p.exists() and not os.access(p, os.W_OK)):
        raise UsageError(f"{flag} {path}: not writable (permission denied)")


def write_whole(path: str, write: Callable[[IO[str]], None]) -> None:
    """Call `write(fh)` on standard output for '-', else on a temporary file renamed into place at the end."""
    if path == STDOUT:
        write(sys.stdout)
        sys.stdout.flush()
        return
    target = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".part", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            write(fh)
        os.chmod(tmp, _mode_for(target))  # mkstemp's 0600 would hide the result from the group
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _mode_for(target: Path) -> int:
    """The existing file's permissions, else what open() would give a new file (0666 less the umask)."""
    if target.exists():
        return target.stat().st_mode & 0o777
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask
