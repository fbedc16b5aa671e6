"""`qascore-lab bench qrelscore`: batched QRelScore vs one example at a time, same models, same rows, one run.

The reference side does what the authors' released scorer does: every
(question, context) example on its own (batch size 1), eager attention with
every attention map returned, the context-only LM pass recomputed for every
question, logits at every position, fp32. qascore's side computes identical
inputs once (QG data has many questions per passage, so the context-only
pass is shared), asks the encoder only for the question rows of the
attention maps (fused attention otherwise), runs the LM head only where a
context token is scored, and sizes batches for the device. Both sides
produce the raw LRM and GRG of every row; the largest difference is printed,
so the timings are of equal work. `--dtype bf16` adds a third side, qascore
under bf16 autocast, timed and compared against the same fp32 reference.

`--agreement N` instead scores N passages (every system's question) with
qascore at fp32 and at `--dtype`, and prints how far the two are apart and
how their correlations with QGEval's human relevance and answerability differ.

Rows: QGEval's SQuAD rows (every system's question for a few passages) when
../shared/data is there, else a small built-in set.
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
    p.add_argument("--seed", type=int, default=1, help="which passages (seeded draw)")
    p.add_argument("--data", default=None, help="data root holding qgeval_squad/")
    p.add_argument("--threads", type=int, default=1, help="torch CPU threads")
    p.add_argument("--device", default=None)
    p.add_argument("--parts", default="lrm,grg")
    p.add_argument("--dtype", default="fp32", help="also time qascore at this precision (bf16) against the fp32 reference")
    p.add_argument("--agreement", type=int, default=0, metavar="N",
                   help="instead: N passages scored by qascore at fp32 and at --dtype; diffs and human correlations")


def _records(args: argparse.Namespace, n_passages: int) -> list[Any]:
    from qascore_lab.bench.qrelscore_study import subset_by_passage
    from qascore_lab.datasets import qgeval

    return subset_by_passage(qgeval.load(args.data, with_metrics=False), n_passages, args.seed)


def _rows(args: argparse.Namespace) -> tuple[list[str], list[str], str]:
    try:
        recs = _records(args, args.passages)
        return [r.candidate for r in recs], [r.context for r in recs], f"QGEval-SQuAD, {args.passages} passages"
    except FileNotFoundError:
        qs = list(_FALLBACK_QUESTIONS)
        return qs, [_FALLBACK_CONTEXT] * len(qs), "built-in SQuAD-style passage (no ../shared/data)"


def _timed(fn: Any) -> tuple[float, Any]:
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


def _maxdiff(a: Any, b: Any) -> float:
    return float(np.max(np.abs(np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64))))


def run(args: argparse.Namespace) -> int:
    import torch

    from qascore.metrics.qrelscore.engine import Engine

    torch.set_num_threads(args.threads)
    if args.agreement:
        return agreement(args)
    qs, cs, what = _rows(args)
    reference = Engine(device=args.device, dedupe=False, max_batch=1, lm_max_tokens=1,
                       lrm_attention="full", lm_full_logits=True)
    sides: dict[str, Any] = {"one-by-one fp32": reference, "qascore fp32": Engine(device=args.device)}
    low = args.dtype not in (None, "fp32", "float32")
    if low:
        sides[f"qascore {args.dtype}"] = Engine(device=args.device, dtype=args.dtype)
    parts = [p for p in ("lrm", "grg") if p in args.parts]
    for eng in sides.values():  # load every model and warm every code path on one row before timing
        for part in parts:
            getattr(eng, f"{part}_raw")(qs[:1], cs[:1])
    print(f"qascore-lab bench qrelscore: {len(qs)} rows ({what}), torch threads {args.threads}, "
          f"device {args.device or 'auto'}")
    total = dict.fromkeys(sides, 0.0)
    values: dict[str, dict[str, Any]] = {name: {} for name in sides}
    for part in parts:
        times = {}
        for name, eng in sides.items():
            times[name], values[name][part] = _timed(lambda: getattr(eng, f"{part}_raw")(qs, cs))
            total[name] += times[name]
        t_ref = times["one-by-one fp32"]
        print(f"  {part.upper()}: one-by-one fp32 {t_ref:7.2f}s ({len(qs) / t_ref:6.2f} ex/s)")
        for name in list(sides)[1:]:
            diff = _maxdiff(values[name][part], values["one-by-one fp32"][part])
            print(f"  {part.upper()}: {name:15s} {times[name]:7.2f}s ({len(qs) / times[name]:6.2f} ex/s)   "
                  f"ratio {t_ref / times[name]:5.2f}x   max |diff| vs one-by-one fp32 {diff:.2e}")
    if len(parts) == 2:
        ref_t = total["one-by-one fp32"]
        for name in list(sides)[1:]:
            print(f"  QRelScore (both parts), {name}: one-by-one fp32 {len(qs) / ref_t:.2f} ex/s, "
                  f"{name} {len(qs) / total[name]:.2f} ex/s, ratio {ref_t / total[name]:.2f}x")
    print(f"  work: one-by-one {reference.stats}; qascore {sides['qascore fp32'].stats}")
    return 0


# ---------------------------------------------------------------------------
# fp32 vs lower precision on a larger sample
# ---------------------------------------------------------------------------

def agreement(args: argparse.Namespace) -> int:
    """qascore at fp32 and at --dtype on N QGEval passages: differences and human correlations."""
    from scipy.stats import pearsonr, spearmanr

    from qascore_lab.bench.qrelscore_study import combine
    from qascore.metrics.qrelscore import rescale
    from qascore.metrics.qrelscore.engine import Engine
    from qascore.runtime.causal_lm import causal_lm_id
    from qascore.runtime.encoder import model_id

    recs = _records(args, args.agreement)
    qs, cs = [r.candidate for r in recs], [r.context for r in recs]
    print(f"qascore-lab bench qrelscore --agreement: {len(recs)} QGEval rows ({args.agreement} passages, seed {args.seed}), "
          f"fp32 vs {args.dtype}, torch threads {args.threads}")
    scores: dict[str, dict[str, np.ndarray]] = {}
    for label in ("fp32", args.dtype):
        eng = Engine(device=args.device, dtype=None if label == "fp32" else label)
        t_l, lrm = _timed(lambda: eng.lrm_raw(qs, cs))
        t_g, grg = _timed(lambda: eng.grg_raw(qs, cs))
        b_l = rescale.lookup("lrm", model_id(eng.encoder), eng.lrm_config())
        b_g = rescale.lookup("grg", causal_lm_id(eng.lm), eng.grg_config())
        scores[label] = {"lrm_raw": lrm, "grg_raw": grg, "qrelscore": combine(lrm, grg, b_l, b_g)}
        print(f"  {label}: LRM {t_l:.1f}s, GRG {t_g:.1f}s ({len(recs) / (t_l + t_g):.2f} ex/s)   work {eng.stats}")
    a, b = scores["fp32"], scores[args.dtype]
    for key in ("lrm_raw", "grg_raw", "qrelscore"):
        x, y = a[key], b[key]
        rel = np.abs(x - y) / np.maximum(np.abs(x), 1e-12)
        print(f"  {key:9s}: max |diff| {_maxdiff(x, y):.2e}   median |rel diff| {np.median(rel):.2e}   "
              f"Pearson(fp32, {args.dtype}) {pearsonr(x, y)[0]:.6f}   Spearman {spearmanr(x, y)[0]:.6f}")
    for dim in ("relevance", "answerability"):
        human = np.array([r.extra[dim] for r in recs], dtype=np.float64)
        cells = []
        for key in ("lrm_raw", "grg_raw", "qrelscore"):
            ra, rb = pearsonr(a[key], human)[0], pearsonr(b[key], human)[0]
            cells.append(f"{key} {ra:+.4f} -> {rb:+.4f} ({rb - ra:+.4f})")
        print(f"  Pearson r with human {dim} (fp32 -> {args.dtype}): " + ";  ".join(cells))
    return 0
