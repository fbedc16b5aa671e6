"""qascore: automatic scores for question answering and question generation, proven against humans.

The command line is a thin layer; every command calls the Python API.

Subcommands live in their own modules and are imported only when used, so
`qascore list` does not pay for torch.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from qascore import messages, progress
from qascore.metrics import long_inputs
from qascore.runtime import devices
from qascore.version import __version__
from qascore.cli.errors import OneLineParser, debug_requested, error, guarded, hold_closed_std_streams
from qascore.cli.quiet import quiet

# name -> (module, one-line help). Each module defines add_arguments(p) and run(args) -> int.
COMMANDS: dict[str, tuple[str, str]] = {
    "score": ("qascore.cli.score", "score a file of records with one or more metrics"),
    "meta": ("qascore.cli.meta", "correlate metrics with human judgments in a file of records"),
    "serve": ("qascore.cli.serve", "serve metrics over HTTP for training loops (micro-batched; FastAPI)"),
    "list": ("qascore.cli.listing", "list the metrics"),
    "explain": ("qascore.cli.explain", "show per-token KPW and IDF weights (terminal and HTML)"),
    "models": ("qascore.cli.models", "install or list the packages that carry model weights"),
}


def build_parser(commands: dict[str, tuple[str, str]] | None = None, prog: str = "qascore",
                 description: str | None = None) -> argparse.ArgumentParser:
    """The parser of `qascore` (or, given its commands, of another program built the same way: `qascore-lab`)."""
    parser = OneLineParser(prog=prog, description=description or __doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"{prog} {__version__}")
    parser.add_argument("--debug", action="store_true",
                        help="show the Python traceback of an error (also QASCORE_DEBUG=1); anywhere on the line")
    parser.add_argument("--progress", action="store_true",
                        help="progress lines and bars on stderr even when it is not a terminal (also "
                             "QASCORE_PROGRESS=1); anywhere on the line")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    wanted = sys.argv[1] if len(sys.argv) > 1 else None
    for name, (module, help_) in (COMMANDS if commands is None else commands).items():
        p = sub.add_parser(name, help=help_, description=help_)
        # Import a subcommand's module only when it is the one asked for.
        if name == wanted:
            importlib.import_module(module).add_arguments(p)
        p.set_defaults(_module=module)
    return parser


def main(argv: list[str] | None = None, *, commands: dict[str, tuple[str, str]] | None = None,
         prog: str = "qascore", description: str | None = None) -> int:
    """Parse and run one command; errors end as one line and exit 2 (`--debug`: the traceback)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    closed = hold_closed_std_streams()
    if "standard output" in closed:
        return error("standard output is closed (started with >&-?); qascore prints its results there: "
                     "redirect it to a file or to /dev/null instead")
    debug = debug_requested(argv)
    devices.quiet_omp_wait()  # before torch loads its OpenMP runtime
    long_inputs.defer()  # one truncation line per metric, at the end
    quiet(debug)
    messages.reset()
    progress.configure(sys.stderr.isatty() or "--progress" in argv)
    # --debug and --progress are accepted anywhere on the line, so they can be added to any command.
    sys.argv = [sys.argv[0], *(a for a in argv if a not in ("--debug", "--progress"))]

    def run() -> int:
        parser = build_parser(commands, prog, description)
        try:
            args = parser.parse_args()
        except SystemExit as done:  # argparse has printed its usage line or --help
            return int(done.code or 0)
        if not args.command:
            parser.print_help()
            return 2
        return int(importlib.import_module(args._module).run(args) or 0)

    try:
        return guarded(run, debug)
    finally:
        long_inputs.flush()


if __name__ == "__main__":
    sys.exit(main())
