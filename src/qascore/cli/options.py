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
    """'bertscore:layer=4,idf=true' -> ('bertscore', {'layer': '4', 'idf': 'true'})."""
    name, _, rest = spec.partition(":")
    options: dict[str, str] = {}
    for item in filter(None, (part.strip() for part in rest.split(","))):
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise UsageError(f"-m {spec}: metric option '{item}' must look like key=value")
        if key.strip() in options:
            raise UsageError(f"-m {spec}: option '{key.strip()}' is given twice")
        options[key.strip()] = value.strip()
    if not name.strip():
        raise UsageError(f"-m {spec}: the metric name is empty (see `qascore list`)")
    return name.strip(), options


def labelled_specs(specs: Sequence[str]) -> list[tuple[str, str, dict[str, str]]]:
    """(label, name, options) per `-m` spec, options still text; a metric asked for twice is labelled
    by its full spec. Every engine (local, Ray actors, the server) builds its metrics from these with
    `load_named`, so typed options are parsed, and their errors worded, the same everywhere."""
    parsed = [parse_metric_spec(spec) for spec in specs]
    names = [name for name, _ in parsed]
    labels = [spec if names.count(name) > 1 else name for spec, name in zip(specs, names)]
    if len(set(labels)) != len(labels):
        raise UsageError("the same metric spec is given twice")
    return [(label, name, opts) for label, (name, opts) in zip(labels, parsed)]


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
