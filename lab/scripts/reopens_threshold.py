"""The judge's decisions on labelled sets for each threshold of a reopening model (`qascore.metrics.reopens`).

Usage, from the repo root, with the judge card shipped:
  python lab/scripts/reopens_threshold.py MODEL.json.gz 0.1,0.15,0.2 DEV.jsonl [DEV.jsonl ...]
Only the rows where some unit reaches the lowest threshold can change; the judge scores them without a reopening
and at each threshold, and the errors per set are printed (the threshold with the fewest errors over the dev sets
is the one to ship: `qascore-lab train reopens --threshold T`).
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

import qascore
from qascore.metrics import reopens
from qascore.text import answer_match as am


def main() -> int:
    model_path, thresholds, paths = sys.argv[1], [float(t) for t in sys.argv[2].split(",")], sys.argv[3:]
    rows = [(str(Path(p)), json.loads(line)) for p in paths for line in open(p, encoding="utf-8") if line.strip()]
    lo = min(thresholds)
    rows = [(p, r) for p, r in rows if reopens.reopening(am.undressed(r["candidate"]), model_path, lo) is not None]
    # the judge reads every unit with MODEL (also for `asserted.revised_at`'s evidence) and reopens at `cut` (None: never)
    probabilities, reopened_at = reopens.unit_probabilities, reopens.reopened_at
    cut: list[float | None] = [None]
    reopens.unit_probabilities = lambda text, path=None: probabilities(text, model_path)
    reopens.reopened_at = lambda spans, threshold=None: None if cut[0] is None else reopened_at(spans, cut[0])

    def errors() -> Counter:
        res = qascore.score("judge", questions=[r["question"] for _, r in rows],
                            candidates=[r["candidate"] for _, r in rows], references=[r["references"] for _, r in rows])
        return Counter(p for (p, r), c in zip(rows, res.correct) if c != bool(r["label"]))

    print(f"{len(rows)} rows reach {lo}; the others cannot change")
    e0 = errors()
    print("no reopening:", dict(e0), sum(e0.values()))
    for t in thresholds:
        cut[0] = t
        e = errors()
        print(f"threshold {t}: errors {dict(e)}, {sum(e.values())} in all")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
