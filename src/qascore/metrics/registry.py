"""Metric names -> classes. Families register lazily so `import qascore` stays cheap.

Each entry is "module:Class"; the module is imported only when the metric is
loaded, so a user of `em` never imports torch.
"""

from __future__ import annotations

import importlib
from typing import Any

from qascore.metrics.base import Metric

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
        raise KeyError(f"unknown metric '{name}'; known: {', '.join(sorted(_REGISTRY))}")
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
    if ":" in name:
        name, given = parse_spec(name)
        twice = sorted(set(given) & set(options))
        if twice:
            raise ValueError(f"{name}: option '{twice[0]}' is given in the spec and as a keyword")
        options = {**given, **options}
    return _resolve(name.strip())(**options)


def list_metrics() -> dict[str, str]:
    """Every metric name with its one-line description (imports each family)."""
    out = {}
    for name in _REGISTRY:
        try:
            out[name] = _resolve(name).description
        except ImportError as err:  # an optional dependency is missing
            out[name] = f"(unavailable: {err})"
    return out
