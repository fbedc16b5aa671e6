"""Verification-corpus rows as records, and figures per source: shared by training (verifier_run, judge)
and evaluation (bench.verifier_eval), so that neither imports the other."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from qascore.records import Record


def to_records(rows: Sequence[dict[str, Any]]) -> tuple[list[Record], list[int]]:
    recs = [Record(id=r["id"], question=r["question"], candidate=r["candidate"], references=list(r["references"]),
                   negatives=list(r.get("negatives", [])), extra={"source": r["source"], "kind": r["kind"]})
            for r in rows]
    return recs, [int(r["label"]) for r in rows]


def source_groups(rows: Sequence[dict[str, Any]]) -> dict[str, list[int]]:
    """Row indices: "all", then one list per source."""
    groups = {"all": list(range(len(rows)))}
    for i, r in enumerate(rows):
        groups.setdefault(r["source"], []).append(i)
    return groups


def by_source(probs: np.ndarray, labels: Sequence[int], rows: Sequence[dict], threshold: float) -> dict[str, Any]:
    """AUROC and accuracy at `threshold`, on all rows and per source."""
    from qascore.meta.classification import auroc, binary_scores

    out = {}
    for name, idx in source_groups(rows).items():
        y = [labels[i] for i in idx]
        p = probs[idx]
        out[name] = {"n": len(idx), "auroc": auroc(p, y) if 0 < sum(y) < len(y) else float("nan"),
                     "accuracy": binary_scores(p, y, threshold).accuracy}
    return out
