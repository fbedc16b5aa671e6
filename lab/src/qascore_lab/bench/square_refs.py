"""`qascore-lab bench square-refs`: the SQuArE paper's Table 5 ablation with one trained model.

Table 5 (Gabburo et al., on WQA) varies what SQuArE reads beside the target: one negative reference
(AVA-TQR(-)), positives only (SQuArE(+)), and 3, 5 or a random 1-5 references of both kinds; more
references and negatives score higher. Here the same shipped (or given) `square` model reads WikiQA
test targets with each reference configuration, so only the references change between rows.

Targets: every candidate of the WikiQA test questions with at least two correct and two wrong
candidates, so each kind can be drawn for every target. References come from the question's other
candidates, "blind" (`train.square_data.build_examples`): every target of a question gets the same
number of each kind, so the count does not give the label away; a question with fewer than asked
gives what it has (the mean counts are printed). Accuracy applies the model's stored threshold.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

import numpy as np

from qascore_lab.train.square_data import RefSpec

# name -> (label as in the paper's table, what is read)
CONFIGS: dict[str, tuple[str, RefSpec]] = {
    "neg1": ("1 negative (AVA-TQR(-))", RefSpec(neg=1)),
    "neg3": ("3 negatives", RefSpec(neg=3)),
    "neg5": ("5 negatives", RefSpec(neg=5)),
    "pos1": ("1 positive (AVA-TQR)", RefSpec(pos=1)),
    "pos3": ("3 positives", RefSpec(pos=3)),
    "pos5": ("5 positives (SQuArE(+))", RefSpec(pos=5)),
    "both3": ("3 of both", RefSpec(total=(3, 3))),
    "both5": ("5 of both (SQuArE)", RefSpec(total=(5, 5))),
    "both1to5": ("1-5 of both (SQuArE [1,5])", RefSpec(total=(1, 5))),
}


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--model", default=None, help="square delta (default: the shipped one)")
    p.add_argument("--configs", default=",".join(CONFIGS), help=f"which rows ({', '.join(CONFIGS)})")
    p.add_argument("--data", default=None, help="data root (default: $QASCORE_DATA or ../shared/data)")
    p.add_argument("--seed", type=int, default=13, help="seed of the reference draws")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--json", default=None, help="also write the table as JSON here")


def questions(data: Path) -> list[Any]:
    """WikiQA test questions with at least two correct and two wrong candidates."""
    from qascore_lab.datasets.as2 import read_wikiqa

    return [q for q in read_wikiqa(data / "wikiqa", "test") if len(q.positives) >= 2 and len(q.negatives) >= 2]


def run(args: argparse.Namespace) -> int:
    import torch

    from qascore.meta.classification import auroc
    from qascore.metrics.registry import load_named
    from qascore_lab.datasets import data_root
    from qascore_lab.train.square_data import BuildStats, build_examples

    torch.set_num_threads(args.threads)
    names = [c.strip() for c in args.configs.split(",") if c.strip()]
    unknown = [c for c in names if c not in CONFIGS]
    if unknown:
        raise SystemExit(f"bench square-refs: unknown config(s) {unknown}; choose from {', '.join(CONFIGS)}")
    qs = questions(data_root(args.data))
    metric = load_named("square", {"model": args.model} if args.model else {}, "square")
    threshold = metric.decision_threshold()
    table: dict[str, Any] = {}
    for name in names:
        label, spec = CONFIGS[name]
        stats = BuildStats()
        examples = build_examples(qs, spec, seed=args.seed, stats=stats)
        recs = [e.to_record() for e in examples]
        y = np.array([e.label for e in examples])
        t0 = time.time()
        p = np.asarray(metric.score(recs).scores, dtype=float)
        table[name] = {"label": label, "n": len(recs), "positives": int(y.sum()), "auroc": auroc(p, y),
                       "accuracy": float(((p >= threshold) == (y == 1)).mean()),
                       "mean_pos_refs": stats.pos_refs / max(stats.targets, 1),
                       "mean_neg_refs": stats.neg_refs / max(stats.targets, 1), "seconds": round(time.time() - t0, 1)}
        print(f"{name}: " + json.dumps(table[name]), flush=True)
    print(f"\nWikiQA test, {len(qs)} questions with >= 2 correct and >= 2 wrong candidates; threshold {threshold:.3f}")
    print("| references read | targets | mean +/- refs | accuracy | AUROC |\n|---|---|---|---|---|")
    for r in table.values():
        print(f"| {r['label']} | {r['n']} | {r['mean_pos_refs']:.2f} / {r['mean_neg_refs']:.2f} | "
              f"{r['accuracy']:.3f} | {r['auroc']:.3f} |")
    if args.json:
        Path(args.json).write_text(json.dumps(table, indent=2) + "\n", encoding="utf-8")
    return 0
