"""`python -m qascore_lab.bench.threads N`: bertscore on 500 distinct QGEval rows with N torch threads, one line of JSON.

The measurement behind qascore's thread default (docs/devices.md): run it with N = 1 and 2, with
OMP_WAIT_POLICY=ACTIVE and PASSIVE, with and without another busy process, and compare seconds.
Rows: each QGEval question against the first 300 characters of its passage (distinct questions only).
"""

from __future__ import annotations

import json
import os
import sys
import time


def main(argv: list[str] | None = None) -> None:
    import torch

    args = sys.argv[1:] if argv is None else argv
    threads = int(args[0]) if args else 1
    torch.set_num_threads(threads)
    from qascore.metrics.registry import load
    from qascore.records import Record
    from qascore_lab.datasets import qgeval

    seen: set[str] = set()
    rows = []
    for r in qgeval.load(with_metrics=False):
        if r.candidate not in seen:
            seen.add(r.candidate)
            rows.append(Record(question=r.references[0], candidate=r.candidate, references=[r.context[:300]]))
    rows = rows[:500]
    metric = load("bertscore")
    metric.score(rows[:4])  # model loaded before timing
    t = time.perf_counter()
    metric.score(rows)
    print(json.dumps({"threads": threads, "omp_wait_policy": os.environ.get("OMP_WAIT_POLICY", "unset"),
                      "seconds": round(time.perf_counter() - t, 2), "rows": len(rows),
                      "load_average": round(os.getloadavg()[0], 2)}))


if __name__ == "__main__":
    main()
