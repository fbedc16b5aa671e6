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


def load(name: str, **options: Any) -> Metric:
    """A metric object by name; options are the metric's keyword arguments."""
    return _resolve(name)(**options)


def list_metrics() -> dict[str, str]:
    """Every metric name with its one-line description (imports each family)."""
    out = {}
    for name in _REGISTRY:
        try:
            out[name] = _resolve(name).description
        except ImportError as err:  # an optional dependency is missing
            out[name] = f"(unavailable: {err})"
    return out
