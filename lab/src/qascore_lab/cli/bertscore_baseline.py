"""`qascore-lab train bertscore-baseline`: the rescaling baseline of BERTScore for one model.

As bert_score does with Common Crawl, the baseline b of each layer is the
mean P, R, F of random, unrelated sentence pairs; here the sentences come
from SQuAD 2.0 dev passages (../shared/data/squad_v2_dev), paired across
different passages with a fixed seed. The CSV (LAYER,P,R,F) and a JSON note
of how it was made go to src/qascore/resources/bertscore/<model id>.csv.
"""

from __future__ import annotations

import argparse
import random
import re
import sys
import time

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"'(])")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--model", default=None, help="encoder spec (default: the package default encoder)")
    p.add_argument("--pairs", type=int, default=3000, help="random sentence pairs (default 3000)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--min-words", type=int, default=6)
    p.add_argument("--max-words", type=int, default=60)
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--threads", type=int, default=1, help="torch CPU threads (default 1)")
    p.add_argument("--data-root", default=None, help="folder holding squad_v2_dev/ (default ../shared/data)")
    p.add_argument("--out", default=None, help="output CSV (default: the package resources file for the model)")


def sentence_pairs(n: int, seed: int, min_words: int, max_words: int, root: str | None = None
                   ) -> list[tuple[str, str]]:
    """n pairs of sentences from different SQuAD passages, reproducible from the seed."""
    from qascore_lab.datasets import squad

    sents: list[tuple[int, str]] = []
    for idx, _title, context in squad.passages(squad.load(root=root)):
        for s in _SENTENCE_END.split(context):
            s = s.strip()
            if min_words <= len(s.split()) <= max_words:
                sents.append((idx, s))
    rng = random.Random(seed)
    out: list[tuple[str, str]] = []
    while len(out) < n:
        (pa, a), (pb, b) = rng.choice(sents), rng.choice(sents)
        if pa != pb:
            out.append((a, b))
    return out


def run(args: argparse.Namespace) -> int:
    import torch

    from qascore.metrics.bertscore import BASELINES, compute_baseline, write_baseline
    from qascore.runtime import defaults
    from qascore.runtime.encoder import model_id

    torch.set_num_threads(args.threads)
    spec = args.model or defaults.ENCODER
    pairs = sentence_pairs(args.pairs, args.seed, args.min_words, args.max_words, args.data_root)
    t0 = time.perf_counter()
    table = compute_baseline(pairs, spec, batch_size=args.batch_size)
    secs = time.perf_counter() - t0
    out = args.out or str(BASELINES / f"{model_id(spec)}.csv")
    meta = {"model": spec, "model_id": model_id(spec), "pairs": args.pairs, "seed": args.seed,
            "data": "squad_v2_dev contexts, sentences of %d-%d words, pairs from different passages"
                    % (args.min_words, args.max_words),
            "command": ("qascore-lab train bertscore-baseline " + " ".join(sys.argv[3:])).strip(),
            "weights": "uniform ([CLS]/[SEP] weight 0)", "seconds": round(secs, 1)}
    write_baseline(out, table, meta)
    print(f"wrote {out} ({args.pairs} pairs, {secs:.0f} s)")
    for layer, (p, r, f) in sorted(table.items()):
        print(f"layer {layer}: P {p:.4f}  R {r:.4f}  F {f:.4f}")
    return 0
