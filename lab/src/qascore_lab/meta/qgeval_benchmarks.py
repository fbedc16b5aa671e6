"""QGEval (SQuAD half) as a meta benchmark: QG metrics against one of its seven human dimensions.

Data comes from qascore_lab.datasets.qgeval; the QGEval authors' own metric scores
ride along in each record's extra, so their QRelScore can be correlated on the
same rows. `dimension_table` puts qascore's metrics beside all 15 shipped metrics, as Pearson r with
relevance, answerability and answer consistency (`qascore-lab meta --benchmark qgeval` prints it).
"""

from __future__ import annotations

import math
import os
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from qascore.meta.correlation import pearson
from qascore.records import Record
from qascore_lab.datasets import qgeval
from qascore_lab.meta.benchmarks import Benchmark


def benchmark(root: str | os.PathLike[str] | None = None, dimension: str = "relevance") -> Benchmark:
    """The `qgeval` meta benchmark: sample-level correlation with one human dimension (default relevance)."""
    if dimension not in qgeval.DIMENSIONS:
        raise ValueError(f"dimension must be one of {qgeval.DIMENSIONS}, got '{dimension}'")
    records = qgeval.load(root)
    for rec in records:
        rec.extra["human"] = rec.extra[dimension]
    return Benchmark(name="qgeval", title=f"QGEval SQuAD: 1,500 generated questions vs human {dimension}",
                     kind="correlation", datasets={"squad": records}, labels={"squad": "QGEval-SQuAD"},
                     methods=("pearson", "spearman", "kendall"),
                     notes=[f"human = {dimension} (mean of 3 annotators, 1-3); authors' metric scores in extra['qgeval:<metric>']"])


# -- the dimension table: Pearson with relevance / answerability / answer consistency, for qascore's metrics
#    beside the 15 metrics whose scores QGEval ships (metric_result.csv, computed by the QGEval authors).
TABLE_DIMENSIONS = ("relevance", "answerability", "answer_consistency")
DEFAULT_METRICS = ("answerability", "qrelscore")
SHIPPED = ("BLEU-4", "METEOR", "ROUGE-L", "BERTScore", "MoverScore", "BLEURT", "Q-BLEU4", "QSTS", "BARTScore-ref",
           "BARTScore-src", "GPTScore-ref", "GPTScore-src", "UniEval", "QRelScore", "RQUGE")


def shipped_scores(records: Sequence[Record], column: str, dimension: str) -> np.ndarray:
    """A shipped metric's scores per record (NaN where absent); a column scored per dimension (GPTScore,
    UniEval, BARTScore's dict form) gives its score for `dimension`, NaN when it has none for it."""
    out = np.full(len(records), np.nan)
    for i, rec in enumerate(records):
        value = rec.extra.get(f"qgeval:{column}", rec.extra.get(f"qgeval:{column}:{dimension}"))
        if isinstance(value, (int, float)):
            out[i] = float(value)
    return out


def dimension_table(records: Sequence[Record], ours: Mapping[str, np.ndarray],
                    dimensions: Sequence[str] = TABLE_DIMENSIONS) -> list[dict[str, Any]]:
    """One row per metric (qascore's first, then the shipped columns): Pearson r with each human dimension
    over the records where the metric has a score, and that n."""
    rows = []
    cols: list[tuple[str, str, Callable[[str], np.ndarray]]] = \
        [(spec, "qascore", lambda d, s=scores: np.asarray(s, dtype=float)) for spec, scores in ours.items()]
    cols += [(c, "QGEval authors", lambda d, c=c: shipped_scores(records, c, d)) for c in SHIPPED]
    for name, source, get in cols:
        row: dict[str, Any] = {"metric": name, "source": source, "pearson": {}, "n": {}}
        for dim in dimensions:
            x = get(dim)
            y = np.array([float(r.extra[dim]) for r in records])
            keep = ~np.isnan(x)
            row["n"][dim] = int(keep.sum())
            row["pearson"][dim] = pearson(x[keep], y[keep])[0] if keep.sum() > 2 else float("nan")
        rows.append(row)
    return rows


def format_table(rows: Sequence[Mapping[str, Any]], dimensions: Sequence[str] = TABLE_DIMENSIONS) -> str:
    w = max(len(r["metric"]) for r in rows)
    heads = [d.replace("_", " ") for d in dimensions]
    lines = [f"{'metric':<{w}}  {'scored by':<14}  " + "  ".join(f"{h:>18}" for h in heads)]
    for r in rows:
        cells = [f"{r['pearson'][d]:>18.3f}" if not math.isnan(r["pearson"][d]) else f"{'--':>18}" for d in dimensions]
        lines.append(f"{r['metric']:<{w}}  {r['source']:<14}  " + "  ".join(cells))
    return "\n".join(lines)
