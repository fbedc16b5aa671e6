"""`qascore bench qrelscore`: batched QRelScore vs one example at a time, same models, same rows, one run.

The reference side does what the authors' released scorer does: every
(question, context) example on its own (batch size 1), the context-only LM
pass recomputed for every question. qascore's side sorts by length, packs
batches, and computes identical inputs once (QG data has many questions per
passage, so the context-only pass is shared). Both sides produce the raw LRM
and GRG of every row; the largest difference is printed, so the timings are
of equal work. Rows: QGEval's SQuAD rows (every system's question for a few
passages) when ../shared/data is there, else a small built-in set.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np

_FALLBACK_CONTEXT = ("The Normans were the people who in the 10th and 11th centuries gave their name to Normandy, "
                     "a region in France. They were descended from Norse raiders and pirates from Denmark, Iceland "
                     "and Norway who, under their leader Rollo, agreed to swear fealty to King Charles III of West "
                     "Francia. Through generations of assimilation and mixing with the native Frankish and "
                     "Roman-Gaulish populations, their descendants would gradually merge with the Carolingian-based "
                     "cultures of West Francia.")
_FALLBACK_QUESTIONS = ("In what country is Normandy located?", "When were the Normans in Normandy?",
                       "From which countries did the Norse originate?", "Who was the Norse leader?",
                       "What century did the Normans first gain their separate identity?",
                       "Who did the Norse swear fealty to?", "What region did the Normans give their name to?",
                       "Whose descendants merged with the Carolingian cultures?")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--passages", type=int, default=3, help="QGEval passages (15 questions each)")
    p.add_argument("--data", default=None, help="data root holding qgeval_squad/")
    p.add_argument("--threads", type=int, default=1, help="torch CPU threads")
    p.add_argument("--device", default=None)
    p.add_argument("--parts", default="lrm,grg")


def _rows(args: argparse.Namespace) -> tuple[list[str], list[str], str]:
    try:
        from qascore.bench.qrelscore_study import subset_by_passage
        from qascore.datasets import qgeval

        recs = subset_by_passage(qgeval.load(args.data, with_metrics=False), args.passages, 1)
        return [r.candidate for r in recs], [r.context for r in recs], f"QGEval-SQuAD, {args.passages} passages"
    except FileNotFoundError:
        qs = list(_FALLBACK_QUESTIONS)
        return qs, [_FALLBACK_CONTEXT] * len(qs), "built-in SQuAD-style passage (no ../shared/data)"


def _timed(fn: Any) -> tuple[float, Any]:
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


def run(args: argparse.Namespace) -> int:
    import torch

    from qascore.metrics.qrelscore.engine import Engine

    torch.set_num_threads(args.threads)
    qs, cs, what = _rows(args)
    fast = Engine(device=args.device)
    slow = Engine(device=args.device, dedupe=False, max_batch=1, lm_max_tokens=1)
    # load both models before timing, and warm them up on one row
    fast.lrm_raw(qs[:1], cs[:1]) if "lrm" in args.parts else None
    fast.grg_raw(qs[:1], cs[:1]) if "grg" in args.parts else None
    print(f"qascore bench qrelscore: {len(qs)} rows ({what}), torch threads {args.threads}, device {args.device or 'auto'}")
    total = {"one-by-one": 0.0, "qascore": 0.0}
    for part in ("lrm", "grg"):
        if part not in args.parts:
            continue
        t_slow, v_slow = _timed(lambda: getattr(slow, f"{part}_raw")(qs, cs))
        t_fast, v_fast = _timed(lambda: getattr(fast, f"{part}_raw")(qs, cs))
        total["one-by-one"] += t_slow
        total["qascore"] += t_fast
        diff = float(np.max(np.abs(np.asarray(v_slow) - np.asarray(v_fast))))
        print(f"  {part.upper()}: one-by-one {t_slow:7.2f}s ({len(qs) / t_slow:6.2f} ex/s)   "
              f"qascore {t_fast:7.2f}s ({len(qs) / t_fast:6.2f} ex/s)   ratio {t_slow / t_fast:5.2f}x   "
              f"max |diff| {diff:.2e}")
    if total["qascore"] > 0:
        print(f"  QRelScore (both parts): one-by-one {len(qs) / total['one-by-one']:.2f} ex/s, "
              f"qascore {len(qs) / total['qascore']:.2f} ex/s, ratio {total['one-by-one'] / total['qascore']:.2f}x")
        print(f"  work: {fast.stats}")
    return 0
