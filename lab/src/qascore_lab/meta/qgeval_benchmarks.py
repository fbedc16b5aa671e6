"""QGEval (SQuAD half) as a meta benchmark: QG metrics against one of its seven human dimensions.

Data comes from qascore_lab.datasets.qgeval; the QGEval authors' own metric scores
ride along in each record's extra, so their QRelScore can be correlated on the
same rows.
"""

from __future__ import annotations

import os

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
