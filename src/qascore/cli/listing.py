"""`qascore list`: every metric with one line."""

from __future__ import annotations

import argparse

from qascore.metrics.registry import list_metrics


def add_arguments(p: argparse.ArgumentParser) -> None:
    pass


def run(args: argparse.Namespace) -> int:
    rows = list_metrics()
    width = max(map(len, rows))
    for name, desc in rows.items():
        print(f"{name:<{width}}  {desc}")
    return 0
