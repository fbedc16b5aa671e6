"""Second-level dispatch for commands with per-family targets (train, bench)."""

from __future__ import annotations

import argparse
import importlib
import sys


def add_targets(p: argparse.ArgumentParser, targets: dict[str, tuple[str, str]]) -> None:
    """targets: name -> ("module", help). Each module has add_arguments(p) and run(args)."""
    sub = p.add_subparsers(dest="target", metavar="TARGET", required=True)
    argv = sys.argv[2:3]
    for name, (module, help_) in targets.items():
        q = sub.add_parser(name, help=help_, description=help_)
        if argv and argv[0] == name:
            importlib.import_module(module).add_arguments(q)
        q.set_defaults(_target_module=module)


def run_target(args: argparse.Namespace) -> int:
    return int(importlib.import_module(args._target_module).run(args) or 0)
