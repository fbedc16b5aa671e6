"""`-m NAME[:key=value,...]` on the command line: split the spec, load the metric, name the culprit.

Values stay text here; each metric's declared options (qascore.metrics.options)
parse them strictly, so `idf=no` is False and `idf=maybe` is an error that
quotes `-m bertscore:idf=maybe` back to the user.
"""

from __future__ import annotations

from typing import Any, Sequence

from qascore.errors import UsageError
from qascore.metrics.options import OptionError


def parse_metric_spec(spec: str) -> tuple[str, dict[str, str]]:
    """'bertscore:layer=4,idf=true' -> ('bertscore', {'layer': '4', 'idf': 'true'}); errors quote the spec."""
    from qascore.metrics.registry import parse_spec

    try:
        return parse_spec(spec)
    except ValueError as err:
        raise UsageError(f"-m {spec}: {err}") from None


def labelled_specs(specs: Sequence[str]) -> list[tuple[str, str, dict[str, str]]]:
    """(label, name, options) per `-m` spec, options still text; a metric asked for twice is labelled
    by its full spec. Every engine (local, Ray actors, the server) builds its metrics from these with
    `load_named`, so typed options are parsed, and their errors worded, the same everywhere."""
    parsed = [parse_metric_spec(spec) for spec in specs]
    names = [name for name, _ in parsed]
    labels = [spec if names.count(name) > 1 else output_label(name, opts) for spec, (name, opts) in zip(specs, parsed)]
    if len(set(labels)) != len(labels):
        raise UsageError("the same metric spec is given twice")
    return [(label, name, opts) for label, (name, opts) in zip(labels, parsed)]


def output_label(name: str, options: dict[str, str]) -> str:
    """The key a metric's scores get: its name, plus every given option that changes the numbers
    (`ava:dtype=bf16`), so an output file tells such runs apart; batch sizes and devices leave it alone."""
    from qascore.metrics.registry import metric_class

    try:
        specs = metric_class(name).option_specs()
    except (KeyError, ImportError):  # an unknown name is reported when it is loaded
        return name
    signed = [f"{k}={v}" for k, v in options.items() if k not in specs or specs[k].signed]
    return ":".join([name, ",".join(signed)]) if signed else name


def load_named(name: str, options: dict[str, str], spec: str | None = None) -> Any:
    """The metric `name` with text `options` checked by its declared option specs; errors quote the spec."""
    from qascore.metrics.registry import load

    try:
        return load(name, **options)
    except OptionError as err:
        raise UsageError(f"-m {name}:{err.key}={err.value}: {err.message}") from None
    except KeyError as err:
        raise UsageError(f"-m {spec or name}: {err.args[0]}") from None


def load_metric(spec: str) -> Any:
    """The metric a `-m` spec names, its options checked; errors quote the spec back."""
    name, options = parse_metric_spec(spec)
    return load_named(name, options, spec)
