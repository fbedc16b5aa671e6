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
    find = reopens.reopening
    rows = [(str(Path(p)), json.loads(line)) for p in paths for line in open(p, encoding="utf-8") if line.strip()]
    lo = min(thresholds)
    rows = [(p, r) for p, r in rows if find(am.undressed(r["candidate"]), model_path, lo) is not None]
    table: dict[str, int] = {}
    reopens.reopening = lambda text, path=None, threshold=None: table.get(text)  # the judge reads where `table` says

    def errors() -> Counter:
        res = qascore.score("judge", questions=[r["question"] for _, r in rows],
                            candidates=[r["candidate"] for _, r in rows], references=[r["references"] for _, r in rows])
        return Counter(p for (p, r), c in zip(rows, res.correct) if c != bool(r["label"]))

    print(f"{len(rows)} rows reach {lo}; the others cannot change")
    e0 = errors()
    print("no reopening:", dict(e0), sum(e0.values()))
    for t in thresholds:
        table.clear()
        for _, r in rows:
            w = am.undressed(r["candidate"])
            if (at := find(w, model_path, t)) is not None:
                table[w] = at
        e = errors()
        print(f"threshold {t}: {len(table)} reopen; errors {dict(e)}, {sum(e.values())} in all")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
