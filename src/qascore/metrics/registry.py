"""Metric names -> classes. Families register lazily so `import qascore` stays cheap.

Each entry is "module:Class"; the module is imported only when the metric is
loaded, so a user of `em` never imports torch.
"""

from __future__ import annotations

import importlib
from typing import Any, Sequence

from qascore.record_checks import terminal_safe
from qascore.errors import UsageError
from qascore.metrics.base import Metric
from qascore.metrics.options import OptionError

# One line per metric name. Families add their rows here.
_REGISTRY: dict[str, str] = {
    "ava": "qascore.metrics.verifiers:AVA",
    "em": "qascore.metrics.lexical:ExactMatch",
    "f1": "qascore.metrics.lexical:TokenF1",
    "bleu1": "qascore.metrics.lexical:Bleu1",
    "bleu2": "qascore.metrics.lexical:Bleu2",
    "bleu3": "qascore.metrics.lexical:Bleu3",
    "bleu4": "qascore.metrics.lexical:Bleu4",
    "rougeL": "qascore.metrics.lexical:RougeL",
    "meteor": "qascore.metrics.meteor:Meteor",
    "cider": "qascore.metrics.cider:Cider",
    "qrelscore": "qascore.metrics.qrelscore:QRelScore",
    "qrelscore-lrm": "qascore.metrics.qrelscore:QRelLRM",
    "qrelscore-grg": "qascore.metrics.qrelscore:QRelGRG",
    "ref-qrelscore": "qascore.metrics.qrelscore:RefQRelScore",
    "answerability": "qascore.metrics.answerability:Answerability",
    "square": "qascore.metrics.square:Square",
    "judge": "qascore.metrics.judge:Judge",
    "bertscore": "qascore.metrics.bertscore:BertScore",
    "kpqa-bleu1": "qascore.metrics.kpqa:KpqaBleu1",
    "kpqa-rougeL": "qascore.metrics.kpqa:KpqaRougeL",
    "kpqa-bertscore": "qascore.metrics.kpqa:KpqaBertScore",
    "kp-bleu1": "qascore.metrics.kpqa:KpBleu1",
    "kp-rougeL": "qascore.metrics.kpqa:KpRougeL",
    "kp-bertscore": "qascore.metrics.kpqa:KpBertScore",
}


def metric_class(name: str) -> type[Metric]:
    """The class registered under `name` (imports its family); KeyError naming the known ones."""
    return _resolve(name)


def _resolve(name: str) -> type[Metric]:
    if name not in _REGISTRY:
        raise KeyError(f"unknown metric '{terminal_safe(name, 100)}'; known: {', '.join(sorted(_REGISTRY))}")
    module, cls = _REGISTRY[name].split(":")
    return getattr(importlib.import_module(module), cls)


def parse_spec(spec: str) -> tuple[str, dict[str, str]]:
    """'bertscore:layer=4,idf=true' -> ('bertscore', {'layer': '4', 'idf': 'true'}): the command line's
    `-m` syntax, for every caller. Values stay text (each metric's declared options parse them)."""
    name, _, rest = spec.partition(":")
    options: dict[str, str] = {}
    for item in filter(None, (part.strip() for part in rest.split(","))):
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise ValueError(f"metric option '{item}' must look like key=value")
        if key.strip() in options:
            raise ValueError(f"option '{key.strip()}' is given twice")
        options[key.strip()] = value.strip()
    if not name.strip():
        raise ValueError("the metric name is empty (see `qascore list`)")
    return name.strip(), options


def load(name: str, **options: Any) -> Metric:
    """A metric object by name, or by a spec string as `-m` takes it (`load("bertscore:layer=4,idf=true")`);
    options are the metric's keyword arguments (`load("bertscore", layer=4)`), and may be mixed with a spec."""
    if not isinstance(name, str):
        raise TypeError(f"qascore.load takes a metric name or spec as a string (such as 'f1' or "
                        f"'bertscore:layer=4'), got {type(name).__name__}; qascore.list_metrics() names them")
    if ":" in name:
        name, given = parse_spec(name)
        twice = sorted(set(given) & set(options))
        if twice:
            raise ValueError(f"{name}: option '{twice[0]}' is given in the spec and as a keyword")
        options = {**given, **options}
    return _resolve(name.strip())(**options)


def module_of(name: str) -> str:
    """The module that defines a registered metric (without importing it)."""
    return _REGISTRY[name].split(":")[0]


def list_metrics() -> dict[str, str]:
    """Every metric name with its one-line description (imports each family)."""
    out = {}
    for name in _REGISTRY:
        try:
            out[name] = _resolve(name).description
        except ImportError as err:  # an optional dependency is missing
            out[name] = f"(unavailable: {err})"
    return out


# -- `-m` specs for every engine (the CLI, Ray actors, the server): parse, label, load; errors quote the spec.
def parse_metric_spec(spec: str) -> tuple[str, dict[str, str]]:
    """'bertscore:layer=4,idf=true' -> ('bertscore', {'layer': '4', 'idf': 'true'}); errors quote the spec."""
    try:
        return parse_spec(spec)
    except ValueError as err:
        raise UsageError(f"-m {terminal_safe(spec, 200)}: {err}") from None


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
    try:
        specs = metric_class(name).option_specs()
    except (KeyError, ImportError):  # an unknown name is reported when it is loaded
        return name
    signed = [f"{k}={v}" for k, v in options.items() if k not in specs or specs[k].signed]
    return ":".join([name, ",".join(signed)]) if signed else name


def load_named(name: str, options: dict[str, str], spec: str | None = None) -> Any:
    """The metric `name` with text `options` checked by its declared option specs; errors quote the spec."""
    try:
        return load(name, **options)
    except OptionError as err:
        raise UsageError(f"-m {name}:{err.key}={err.value}: {err.message}") from None
    except KeyError as err:
        raise UsageError(f"-m {terminal_safe(spec or name, 200)}: {err.args[0]}") from None


def load_metric(spec: str) -> Any:
    """The metric a `-m` spec names, its options checked; errors quote the spec back."""
    name, options = parse_metric_spec(spec)
    return load_named(name, options, spec)
