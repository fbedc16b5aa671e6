"""`-m NAME[:key=value,...]` on the command line: split the spec, load the metric, name the culprit.

Values stay text here; each metric's declared options (qascore.metrics.options)
parse them strictly, so `idf=no` is False and `idf=maybe` is an error that
quotes `-m bertscore:idf=maybe` back to the user.
"""

from __future__ import annotations

from typing import Any

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


def load_metric(spec: str) -> Any:
    """The metric a `-m` spec names, its options checked; errors quote the spec back."""
    from qascore.metrics.registry import load

    name, options = parse_metric_spec(spec)
    try:
        return load(name, **options)
    except OptionError as err:
        raise UsageError(f"-m {name}:{err.key}={err.value}: {err.message}") from None
    except KeyError as err:
        raise UsageError(f"-m {spec}: {err.args[0]}") from None
