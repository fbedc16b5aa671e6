"""qascore-lab: train the learned parts, time metrics, and run the papers' benchmarks.

`qascore-lab train TARGET`, `qascore-lab bench TARGET`, `qascore-lab meta --benchmark NAME`.
The command line is built the way `qascore`'s is (one-line errors, --debug, --progress).
"""

from __future__ import annotations

import sys

from qascore.cli import main as _core_main

COMMANDS: dict[str, tuple[str, str]] = {
    "train": ("qascore_lab.cli.train", "train a learned component (kpqa, ava, square, verifier, judge, ...)"),
    "bench": ("qascore_lab.cli.bench", "time metrics against reference implementations"),
    "meta": ("qascore_lab.cli.meta", "correlate metrics with human judgments on a public benchmark "
                                     "(--benchmark) or a file"),
}


def main(argv: list[str] | None = None) -> int:
    return _core_main(argv, commands=COMMANDS, prog="qascore-lab", description=__doc__.splitlines()[0])


if __name__ == "__main__":
    sys.exit(main())
