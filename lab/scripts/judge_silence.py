"""Which of the judge's rules earn their place: each rule read as silent on labelled rows, without a refit.

Usage, from the repo root:
  python lab/scripts/judge_silence.py FILE.jsonl [FILE.jsonl ...] [--rule NAME ...] [--show N]
One pass of the shipped judge over the rows (question, candidate, references, label) keeps each record's card and
feature row; then, for each rule feature on a card (default: every `judge.SIGNALS` feature), the card decides again
with that column set to 0, as `qascore-lab train judge-retire` would make it decide: decisions fixed and broken
against the labels, per file, and `--show` rows of each. Round 2026-12-01f of lab/results/judge.md read it.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np


def capture(rows: list[dict[str, Any]]) -> list[tuple[dict[str, Any], list[int], np.ndarray]]:
    """(card, row indices, feature matrix) for each card that scored some of `rows`."""
    import qascore
    from qascore.metrics import judge

    got: list[tuple[dict[str, Any], list[int], np.ndarray]] = []
    score_with, features = judge.Judge._score_with, judge.features

    def kept(self: Any, card: dict[str, Any], records: list[Any]) -> Any:
        seen: dict[str, np.ndarray] = {}

        def feature_rows(*args: Any, **kwargs: Any) -> np.ndarray:
            seen["x"] = features(*args, **kwargs)
            return seen["x"]
        judge.features = feature_rows
        try:
            out = score_with(self, card, records)
        finally:
            judge.features = features
        got.append((card, [int(r.id) for r in records], seen["x"]))
        return out

    judge.Judge._score_with = kept  # type: ignore[method-assign]
    try:
        qascore.load("judge").score([{"id": str(k), "question": r["question"], "candidate": r["candidate"],
                                      "references": r["references"]} for k, r in enumerate(rows)])
    finally:
        judge.Judge._score_with = score_with  # type: ignore[method-assign]
    return got


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="+", type=Path)
    ap.add_argument("--rule", action="append", default=None)
    ap.add_argument("--show", type=int, default=0)
    args = ap.parse_args()
    sys.path[:0] = ["src", "lab/src"]
    from qascore.metrics import judge

    rows = [dict(json.loads(line), _file=f.name) for f in args.files for line in open(f, encoding="utf-8") if line.strip()]
    parts = capture(rows)
    labels = np.array([bool(r["label"]) for r in rows])
    for rule in args.rule or judge.SIGNALS:
        right_before, right_after = np.zeros(len(rows), bool), np.zeros(len(rows), bool)
        fires = 0
        for card, idx, x in parts:
            thr = float(card["threshold"])
            right_before[idx] = (judge.predict(card, x) >= thr) == labels[idx]
            right_after[idx] = right_before[idx]
            if rule in card["features"]:
                k = card["features"].index(rule)
                fires += int((x[:, k] > 0).sum())
                silent = x.copy()
                silent[:, k] = 0.0
                right_after[idx] = (judge.predict(card, silent) >= thr) == labels[idx]
        fixed, broken = ~right_before & right_after, right_before & ~right_after
        per: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        for i in np.flatnonzero(fixed | broken):
            per[rows[i]["_file"]][0 if fixed[i] else 1] += 1
        print(f"{rule:14s} fires {fires:6d}  silent: fixed {int(fixed.sum()):4d} broken {int(broken.sum()):4d}  "
              + "; ".join(f"{f} +{a}/-{b}" for f, (a, b) in sorted(per.items())))
        for i in np.flatnonzero(fixed | broken)[:args.show]:
            r = rows[i]
            print(f"    {'FIX' if fixed[i] else 'BRK'} {r['_file']} | {r['question'][:60]} | {r['candidate'][:90]!r}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
