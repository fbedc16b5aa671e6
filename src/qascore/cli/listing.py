"""`qascore list [NAME ...] [-v]`: every metric with one line; with a name or -v, its options too."""

from __future__ import annotations

import argparse
from typing import Any

from qascore.metrics.registry import list_metrics, metric_class, module_of

# `qascore list` prints the metrics by family, in this order (by module); within a family, as registered.
FAMILIES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("word overlap with the references", ("lexical", "meteor", "cider")),
    ("embedding similarity", ("bertscore",)),
    ("keyphrase-weighted overlap (KPQA)", ("kpqa",)),
    ("answer verifiers: P(correct)", ("verifiers", "square", "judge")),
    ("question generation: relevance to the passage (QRelScore) and answerability", ("qrelscore", "answerability")),
)


def by_family(names: list[str]) -> list[tuple[str, list[str]]]:
    """(family, its names) in FAMILIES' order; a metric of no listed family comes last, under "other"."""
    family = {mod: label for label, mods in FAMILIES for mod in mods}
    groups: dict[str, list[str]] = {label: [] for label, _ in FAMILIES}
    for name in names:
        groups.setdefault(family.get(module_of(name).rsplit(".", 1)[-1], "other"), []).append(name)
    return [(label, members) for label, members in groups.items() if members]


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("names", nargs="*", metavar="NAME", help="metrics whose options to show (default: all names)")
    p.add_argument("--verbose", "-v", action="store_true", help="show every metric's options")


def run(args: argparse.Namespace) -> int:
    if args.names:
        for k, name in enumerate(args.names):
            if k:
                print()
            print_options(name)
        return 0
    rows = list_metrics()
    width = max(map(len, rows))
    print("metrics by family; `qascore list NAME` shows one's options")
    for family, names in by_family(list(rows)):
        print(f"\n{family}:")
        for name in names:
            print(f"  {name:<{width}}  {rows[name]}")
            if args.verbose and not rows[name].startswith("(unavailable"):
                print_options(name, indent="      ", header=False)
    return 0


def print_options(name: str, indent: str = "  ", header: bool = True) -> None:
    """NAME, its description, and one line per option: name, type/range, default, help."""
    cls = metric_class(name)
    specs = cls.option_specs()
    if header:
        print(f"{name}: {cls.description}")
        print(f"needs: {', '.join(cls.requires)}")
        print("options (-m NAME:key=value,...):" if specs else "options: none")
    rows = [(key, opt.kind(), _default_text(cls, key, opt), opt.help) for key, opt in specs.items()]
    if not rows:
        return
    w = [max(len(r[i]) for r in rows) for i in range(2)]
    for key, kind, default, help_ in rows:
        print(f"{indent}{key:<{w[0]}}  {kind:<{w[1]}}  default {default}: {help_}")


def _default_text(cls: type, key: str, opt: Any) -> str:
    """An option's default as `-m` writes it; a threshold stored with the model also with its value
    (`stored (0.5421)`), read as the metric reads it (`Metric.decision_threshold`, from the model's metadata)."""
    text = opt.default_text()
    if key != "threshold" or opt.default is not None or opt.none != "stored":
        return text
    try:
        value = cls().decision_threshold()
    except Exception:  # noqa: BLE001 - a model that cannot be read now: the listing still prints
        return text
    return text if value is None else f"{text} ({value:g})"
