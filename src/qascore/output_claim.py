"""One writer per `-o FILE` of chunked scoring: FILE.part is held under an exclusive lock for the whole run.

Why: two chunked runs writing the same FILE at once each opened FILE.part and
wrote into it, so FILE came out as a mix of both runs (and one of them said it
had written records it had not). Now a run takes an exclusive, non-blocking
`flock` on FILE.part before it reads or truncates it; a second run finds it
held and stops at once with an error naming the file, before writing anything.

The lock is checked against the path after it is taken: a run that opened
FILE.part just as another renamed it to FILE would otherwise lock (and then
truncate) the finished FILE. The lock goes with the process, so a killed run
leaves FILE.part free for `--resume`.
"""

from __future__ import annotations

import os
from pathlib import Path

from qascore.errors import UsageError

try:
    import fcntl
except ImportError:  # not POSIX: no advisory locks; one writer per file is then the user's to keep
    fcntl = None  # type: ignore[assignment]

_FLAGS = os.O_RDWR | getattr(os, "O_CLOEXEC", 0)


class OutputBusy(UsageError):
    """Another run is writing the same output."""


def _busy(part: Path) -> OutputBusy:
    return OutputBusy(f"{part}: another qascore run is writing this output now (it holds a lock on the file); "
                      f"wait for it to finish, or give another -o")


def claim(part: Path) -> tuple[int, bool]:
    """Open `part` (created private, 0600, when absent) and lock it for this run: (fd, created).

    Nothing in the file is changed here; the caller truncates or appends once it holds the lock.
    """
    for _ in range(100):  # each retry means the file was renamed or removed under us: rare, never endless
        try:
            fd, created = os.open(part, _FLAGS | os.O_CREAT | os.O_EXCL, 0o600), True
        except FileExistsError:
            try:
                fd, created = os.open(part, _FLAGS), False
            except FileNotFoundError:
                continue
        try:
            _lock(fd, part)
            if _same_file(fd, part):
                return fd, created
        except BaseException:
            os.close(fd)
            raise
        os.close(fd)  # renamed away (a run that finished) or replaced while we took it: take the new one
    raise _busy(part)


def _lock(fd: int, path: Path) -> None:
    """Take this run's exclusive lock on `fd` (the file at `path`), or refuse at once if another run holds it."""
    if fcntl is not None:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise _busy(path) from None


def adopt(fd: int, source: Path, part: Path) -> int:
    """Move `source` (a finished FILE being resumed) to `part` while holding both locks; the new fd of `part`.

    `fd` holds `part` (an empty file made by `claim`); `source` is locked before the rename, so the file at
    `part` is held by this run at every moment.
    """
    new = os.open(source, _FLAGS)
    try:
        _lock(new, source)
        os.replace(source, part)
    except BaseException:
        os.close(new)
        raise
    os.close(fd)
    return new


def _same_file(fd: int, path: Path) -> bool:
    try:
        return os.path.samestat(os.fstat(fd), os.stat(path))
    except FileNotFoundError:
        return False
