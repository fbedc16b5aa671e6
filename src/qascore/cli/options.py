"""`-m NAME[:key=value,...]` on the command line: split the spec, load the metric, name the culprit.

Values stay text here; each metric's declared options (qascore.metrics.options)
parse them strictly, so `idf=no` is False and `idf=maybe` is an error that
quotes `-m bertscore:idf=maybe` back to the user. The functions live in
qascore.metrics.registry (the engines and the server use them too); the CLI
imports them from here.
"""

from __future__ import annotations

from typing import Any, Sequence

from qascore.metrics.registry import labelled_specs, load_metric, load_named, output_label, parse_metric_spec

__all__ = ["parse_metric_spec", "labelled_specs", "output_label", "load_named", "load_metric", "load_metrics"]


def load_metrics(specs: Sequence[str], *, with_specs: bool = False) -> Any:
    """(label, metric) per -m; a metric asked for twice with different options is labelled by its full spec.

    `with_specs`: also the (label, name, text options) they were built from, for engines that build
    their own copies (Ray actors) through the same `load_named`.
    """
    parsed = labelled_specs(specs)
    metrics = [(label, load_named(name, opts, spec)) for (label, name, opts), spec in zip(parsed, specs)]
    return (parsed, metrics) if with_specs else metrics
