"""How the command line ends: one `qascore: error: ...` line and exit 2, never a traceback.

Why: a user who mistypes a flag or feeds a bad file needs the file, line and
field, not a stack. `--debug` (or QASCORE_DEBUG=1) re-raises for developers.
Ctrl-C prints one line and exits 130, as shells expect.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
import threading
from typing import Callable, Iterator, NoReturn

from qascore.errors import MissingDependency
from qascore.record_checks import terminal_safe

EXIT_USAGE = 2
EXIT_INTERNAL = 1
EXIT_INTERRUPTED = 130
EXIT_TERMINATED = 143  # 128 + SIGTERM, as shells report a process ended by it


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where the program is so that it ends as Ctrl-C does: files cleaned up, one line."""


@contextlib.contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """While a command runs, SIGTERM raises Terminated (a KeyboardInterrupt): unfinished temporary files
    are removed, an empty FILE.part too, and the command prints one line and exits 143."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def raise_terminated(signum: int, frame: object) -> NoReturn:
        raise Terminated()

    old = signal.signal(signal.SIGTERM, raise_terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, old)


class OneLineParser(argparse.ArgumentParser):
    """argparse whose errors are one `qascore: error: ...` line (and exit 2), as every other error is."""

    def error(self, message: str) -> NoReturn:
        command = self.prog if self.prog != "qascore" else "qascore"
        print(f"qascore: error: {terminal_safe(message)} (`{command} --help` lists the options)", file=sys.stderr)
        raise SystemExit(EXIT_USAGE)

# Optional Python packages and how to get them (a missing one imported by a metric names its module).
INSTALL_HINTS: dict[str, str] = {
    "pycocoevalcap": "pip install 'qascore[coco]'",
    "bert_score": "pip install bert-score==0.3.13",
    "matplotlib": "pip install matplotlib",
}


_STD = ((0, "standard input", "stdin", "r"), (1, "standard output", "stdout", "w"), (2, "standard error", "stderr", "w"))


def hold_closed_std_streams() -> list[str]:
    """The standard streams the process was started without (`<&-`, `>&-`, `2>&-`), by name.

    Each closed descriptor is given /dev/null, so no file qascore opens later takes its number (a library's
    message to fd 2 would land in a result file). A closed stderr then discards messages (the exit status
    still tells); standard input stays None in `sys`, so reading `-` says it is closed
    (records.stdin_bytes); the caller refuses a closed standard output."""
    closed = []
    for fd, name, attr, mode in _STD:
        try:
            os.fstat(fd)
            continue
        except OSError:
            closed.append(name)
        null = os.open(os.devnull, os.O_RDWR)
        if null != fd:
            os.dup2(null, fd)
            os.close(null)
        if attr == "stderr" and getattr(sys, attr) is None:
            sys.stderr = open(fd, mode, closefd=False)  # noqa: SIM115 -- the process's own stream
    return closed


def debug_requested(argv: list[str]) -> bool:
    flag = os.environ.get("QASCORE_DEBUG", "").strip().lower()
    return "--debug" in argv or flag not in ("", "0", "false", "no")


def error(message: str) -> int:
    print(f"qascore: error: {terminal_safe(message)}", file=sys.stderr)
    return EXIT_USAGE


def message_of(err: BaseException) -> tuple[str, int]:
    """The one line to print for an exception, and the exit status."""
    if isinstance(err, MissingDependency):
        return f"{err.what} is needed here but not installed; {err.install}", EXIT_USAGE
    if isinstance(err, ImportError):
        name = (err.name or "").split(".")[0]
        hint = INSTALL_HINTS.get(name, f"pip install {name}" if name else "see README")
        return f"an optional dependency is missing ({err}); {hint}", EXIT_USAGE
    if isinstance(err, KeyError):
        return str(err.args[0]) if err.args else "missing key", EXIT_USAGE
    if isinstance(err, OSError) and err.filename is not None:
        return f"{err.filename}: {err.strerror or err}", EXIT_USAGE
    if isinstance(err, (ValueError, OSError, RuntimeError)):
        return str(err), EXIT_USAGE
    return (f"internal error: {type(err).__name__}: {err} (a bug: please report it with the output of "
            f"--debug)", EXIT_INTERNAL)


def guarded(run: Callable[[], int], debug: bool) -> int:
    """Run a command; turn every exception into one line and an exit status unless debugging."""
    try:
        with sigterm_as_interrupt():
            return run()
    except Terminated:
        if debug:
            raise
        print("\nqascore: terminated (SIGTERM)", file=sys.stderr)
        return EXIT_TERMINATED
    except KeyboardInterrupt:
        if debug:
            raise
        print("\nqascore: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader went away (`qascore score ... -o - | head`): stop quietly, as Unix tools do.
        try:
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115 -- keeps the interpreter's final flush silent
        except OSError:
            pass
        return EXIT_USAGE
    except Exception as err:  # noqa: BLE001 -- the one place that turns errors into messages
        if debug:
            raise
        text, status = message_of(err)
        print(f"qascore: error: {terminal_safe(text)}", file=sys.stderr)  # echoed names and texts stay inert
        return status
