"""Where command output goes: a file written whole or not at all, or standard output for `-o -`.

Why: a wrong `-o` directory used to fail after a long scoring run, and an
error mid-write left half a file that looked like a result. The path is
checked before any work, and the file appears only once it is complete.

What `-o PATH` may be (issue 27): a regular file (replaced whole) or a path
that does not exist yet. A symlink is written through: the file it points to
gets the result and the link stays a link. A directory, FIFO, device or
socket is refused before any work, since renaming a finished file over it
would replace it. An input of the same command (its data file, `--idf-from`,
a model or tagger path, standard input redirected from the file) is refused by
every writer (`check_output`: `score -o`, `meta --html`, `explain --html`);
`score` accepts it with `--overwrite-input`. The check creates and removes a
probe file in the folder where the temporary file will go, so a folder that
cannot hold files (a read-only mount, /proc) fails now, named, not after
scoring. A file replaced keeps its permissions (and its owner, where the
process may set it), as the chunked path's FILE.part does (issue 42).
"""

from __future__ import annotations

import errno
import os
import stat
import sys
import tempfile
from pathlib import Path
from typing import IO, Callable, Iterable

from qascore.errors import UsageError
from qascore.stream import naming, take_permissions

STDOUT = "-"

_KINDS = ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a directory"))


def real_target(path: str) -> Path:
    """The file `path` names, symlinks followed (the link itself is kept; its target is written)."""
    return Path(os.path.realpath(path))


def check_writable(path: str | None, flag: str = "-o") -> str | None:
    """Fail now, before scoring, unless `path` can take a file written whole; the real path to write.

    '-' and None come back unchanged.
    """
    if path is None or path == STDOUT:
        return path
    if not path.strip():  # '' would name the current folder ("is a directory")
        raise UsageError(f"{flag} {path!r}: an empty file name; give a file name, or - for standard output")
    if path.endswith(("/", os.sep)) and not os.path.isdir(path):  # `-o new.jsonl/` names a folder, not a file
        raise UsageError(f"{flag} {path}: ends with '/', so it names a folder, and there is none; give a file name")
    try:
        os.stat(path)
    except OSError as err:
        if err.errno == errno.ELOOP:  # loopa -> loopb -> loopa: renaming a file over it would destroy the links
            raise UsageError(f"{flag} {path}: is a loop of symlinks that leads to no file; give a file name") from None
    target = real_target(path)
    kind = special_kind(target)
    if kind == "a directory":
        raise UsageError(f"{flag} {path}: is a directory; give a file name")
    if kind:
        raise UsageError(f"{flag} {path}: is {kind}, not a regular file; qascore writes a finished file and "
                         f"renames it into place, which would replace it; give a file name")
    parent = target.parent
    if not parent.is_dir():
        raise UsageError(f"{flag} {path}: folder {parent} does not exist")
    if target.exists() and not os.access(target, os.W_OK):
        raise UsageError(f"{flag} {path}: not writable (permission denied)")
    probe(parent, f"{flag} {path}")
    return str(target)


def special_kind(path: Path) -> str:
    """'a FIFO (named pipe)', 'a directory', ... for what is at `path` (links followed), '' for a regular
    file or nothing."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return ""
    return next((name for test, name in _KINDS if test(mode)), "")


def check_partial(path: str, flag: str = "-o") -> None:
    """The chunked run's FILE.part: absent or a regular file, never a link (it is opened for writing)."""
    p = Path(path)
    if p.is_symlink():
        raise UsageError(f"{flag}: {path} is a symlink; remove it (qascore keeps unfinished results there)")
    kind = special_kind(p)
    if kind:
        raise UsageError(f"{flag}: {path} is {kind}; remove it (qascore keeps unfinished results there)")


def probe(folder: Path, what: str) -> None:
    """Create and remove a file where the temporary file will go; UsageError naming `what` if it fails."""
    try:
        fd, name = tempfile.mkstemp(prefix=".qascore-probe-", dir=folder)
    except OSError as err:
        raise UsageError(f"{what}: cannot create files in {folder} ({err.strerror or err})") from None
    os.close(fd)
    os.unlink(name)


def check_output(path: str | None, inputs: Iterable[str | None], flag: str = "-o", *,
                 allowed: bool | None = None, resume: bool = False) -> str | None:
    """Every writer's check, before any work (`score -o`, `meta --html`, `explain --html`): `path` is not one
    of the command's `inputs` (by any name: a link, a relative path; standard input redirected from it) and
    can take a file written whole. `allowed` is the command's --overwrite-input (None: it has none).
    Returns the real path to write ('-' and None unchanged)."""
    refuse_overwriting_input(inputs, path, allowed=allowed, resume=resume, flag=flag)
    return check_writable(path, flag)


def spec_paths(specs: Iterable[str]) -> list[str]:
    """The values of `-m NAME:key=value` options that name existing files (model and tagger paths): inputs
    too, which no output may replace."""
    out = []
    for spec in specs:
        _, _, rest = spec.partition(":")
        for item in rest.split(","):
            value = item.partition("=")[2].strip()
            if value and os.path.lexists(value):
                out.append(value)
    return out


def _same(src: str, output: str) -> bool:
    try:
        if src == STDOUT:  # standard input redirected from the output file (`< out.jsonl`)
            here = os.fstat(0)
            return stat.S_ISREG(here.st_mode) and os.path.samestat(here, os.stat(output))
        return os.path.samefile(src, output)
    except (OSError, ValueError):
        return False


def refuse_overwriting_input(inputs: Iterable[str | None], output: str | None, *, allowed: bool | None = None,
                             resume: bool = False, flag: str = "-o") -> None:
    """An output naming one of the inputs (by any path: a link, a relative name) destroys it: refused unless
    `allowed` (--overwrite-input; None where the command has no such flag); never with --resume, which would
    continue the input as its own output."""
    if output is None or output == STDOUT or not os.path.exists(output):
        return
    for src in inputs:
        if src is None or not _same(src, output):
            continue
        name = "standard input" if src == STDOUT else src
        if resume:
            raise UsageError(f"{flag} {output}: is the input {name}; --resume cannot continue an input as "
                             f"its own output")
        if allowed is None:
            raise UsageError(f"{flag} {output}: is the input {name}; writing there would destroy it; give "
                             f"another file name")
        if not allowed:
            raise UsageError(f"{flag} {output}: is the input {name}; scoring would overwrite it (pass "
                             f"--overwrite-input if that is what you want)")


def write_whole(path: str, write: Callable[[IO[str]], object]) -> None:
    """Call `write(fh)` on standard output for '-', else on a temporary file renamed into place at the end."""
    if path == STDOUT:
        with naming("standard output"):  # a full disk or `ulimit -f` says where it could not write
            write(sys.stdout)
            sys.stdout.flush()
        return
    target = real_target(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".part", dir=target.parent)
    try:
        with naming(target), os.fdopen(fd, "w", encoding="utf-8") as fh:
            write(fh)
            # mkstemp's 0600 would hide a new result from the group; a file replaced keeps its mode and owner
            take_permissions(fh.fileno(), target)
        kind = special_kind(target)
        if kind:  # appeared while scoring: never rename over it
            raise UsageError(f"{path}: is now {kind}; the result was not written")
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def say_written(output: str | None, n: int) -> None:
    """Where `score` wrote its records (as `meta --html` and `explain` say theirs), on stderr."""
    if output and output != STDOUT:
        print(f"wrote {n} records to {output}", file=sys.stderr)
