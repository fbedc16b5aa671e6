"""`qascore-lab train qrel-baselines`: the rescaling baselines b_LRM and b_GRG of QRelScore (eq. 5, appendix F).

Random (question, context) pairs are drawn from SQuAD v2 dev, the question
and the passage from different paragraphs; pairs whose BLEU-1 (question
against passage, PTB tokens, with brevity penalty) exceeds --max-bleu1 are
dropped, as in the paper's appendix F. b is the mean raw score over the kept
pairs, written for every LRM layer group and (aggregation, weighting)
variant and for both GRG gains, keyed by model id and configuration, into
src/qascore/resources/qrelscore/baselines.json (merged with what is there).
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np

LAYER_GROUPS = ("all", "first", "middle", "last", "specific")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--encoder", default=None, help="LRM encoder (default: the package MiniLM)")
    p.add_argument("--lm", default=None, help="GRG causal LM (default: the package SmolLM2-135M)")
    p.add_argument("--n-pairs", type=int, default=200, help="random pairs kept after the overlap filter")
    p.add_argument("--max-bleu1", type=float, default=0.05, help="drop pairs with BLEU-1 above this")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--data", default=None, help="data root holding squad_v2_dev/ (default ../shared/data)")
    p.add_argument("--out", default=None, help="baselines JSON (default: the shipped resources file)")
    p.add_argument("--threads", type=int, default=1, help="torch CPU threads")
    p.add_argument("--parts", default="lrm,grg")


def random_pairs(questions: list[Any], n: int, max_bleu1: float, seed: int) -> tuple[list[tuple[str, str]], dict[str, Any]]:
    """n (question, passage) pairs from different paragraphs with BLEU-1 <= max_bleu1."""
    from qascore.metrics.ngrams import bleu_sentence
    from qascore.text import tokenize

    rng = np.random.default_rng(seed)
    passages: dict[int, str] = {q.passage_index: q.context for q in questions}
    pids = sorted(passages)
    kept: list[tuple[str, str]] = []
    tried = dropped = 0
    seen: set[tuple[int, int]] = set()
    while len(kept) < n:
        tried += 1
        if tried > 50 * n:
            raise RuntimeError(f"only {len(kept)} pairs pass BLEU-1 <= {max_bleu1} after {tried} draws")
        qi = int(rng.integers(len(questions)))
        pid = pids[int(rng.integers(len(pids)))]
        q = questions[qi]
        if pid == q.passage_index or (qi, pid) in seen:
            continue
        seen.add((qi, pid))
        b1 = bleu_sentence(tokenize(q.question), [tokenize(passages[pid])], 1)[0]
        if b1 > max_bleu1:
            dropped += 1
            continue
        kept.append((q.question, passages[pid]))
    return kept, {"draws": tried, "dropped_by_bleu1": dropped}


def run(args: argparse.Namespace) -> int:
    import torch

    from qascore_lab.bench.qrelscore_study import VARIANTS
    from qascore_lab.datasets import squad
    from qascore.metrics.qrelscore import rescale
    from qascore.metrics.qrelscore.engine import Engine
    from qascore.metrics.qrelscore.grg import GAINS, confidence_gain
    from qascore.metrics.qrelscore.lrm import select_layers
    from qascore.runtime import defaults
    from qascore.runtime.causal_lm import causal_lm_id
    from qascore.runtime.encoder import model_id

    torch.set_num_threads(args.threads)
    questions = [q for q in squad.load(root=args.data) if q.question.strip()]
    pairs, info = random_pairs(questions, args.n_pairs, args.max_bleu1, args.seed)
    print(f"{len(pairs)} random pairs kept ({info['dropped_by_bleu1']} dropped by BLEU-1 > {args.max_bleu1}, "
          f"{info['draws']} draws, seed {args.seed})", flush=True)
    qs, cs = [p[0] for p in pairs], [p[1] for p in pairs]
    eng = Engine(encoder=args.encoder or defaults.ENCODER, lm=args.lm or defaults.CAUSAL_LM)
    common = {"n_pairs": len(pairs), "seed": args.seed, "max_bleu1": args.max_bleu1, "data": "squad_v2_dev",
              "command": "qascore-lab train qrel-baselines " + " ".join(
                  f"--{k.replace('_', '-')} {v}" for k, v in sorted(vars(args).items())
                  if k in ("encoder", "lm", "n_pairs", "seed", "max_bleu1") and v is not None)}
    entries: dict[str, dict[str, Any]] = {}
    if "lrm" in args.parts:
        t = time.time()
        arr = eng.lrm_layerwise(qs, cs, variants=VARIANTS, layers="all")  # (N, L, V)
        mid = model_id(eng.encoder)
        for group in LAYER_GROUPS:
            layers = select_layers(group, arr.shape[1])
            for v, (agg, weighting) in enumerate(VARIANTS):
                e = Engine(layers=group, agg=agg, weighting=weighting, p=1.0)
                vals = arr[:, layers, v].mean(axis=1)
                entries[rescale.key("lrm", mid, e.lrm_config())] = {"b": float(vals.mean()), "sd": float(vals.std()), **common}
        print(f"LRM done in {time.time() - t:.0f}s: b_LRM(default) = "
              f"{entries[rescale.key('lrm', mid, eng.lrm_config())]['b']:.4f}", flush=True)
    if "grg" in args.parts:
        t = time.time()
        confs = eng.grg_confidences(qs, cs)
        lid = causal_lm_id(eng.lm)
        for gain in GAINS:
            vals = np.array([np.mean([confidence_gain(pr, b, gain) for b, pr in ch]) for ch in confs])
            e = Engine(gain=gain)
            entries[rescale.key("grg", lid, e.grg_config())] = {
                "b": float(vals.mean()), "sd": float(vals.std()), "frac_clipped": float((vals == 0).mean()), **common}
        print(f"GRG done in {time.time() - t:.0f}s: b_GRG(relative) = "
              f"{entries[rescale.key('grg', lid, eng.grg_config())]['b']:.4f}", flush=True)
    path = rescale.BASELINES if args.out is None else __import__("pathlib").Path(args.out)
    rescale.write(entries, path)
    print(f"wrote {len(entries)} baselines to {path}")
    return 0
