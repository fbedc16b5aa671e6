"""`qascore-lab bench kpqa`: BERTScore-KPQA (tagger included) vs bert_score, same model/layer, one run.

Rows of a KPQA human-eval set are scored as (candidate, reference) pairs:
- bert_score's BERTScorer (model loaded before timing), unweighted, same model and layer;
- qascore `bertscore` (same model and layer), for the cost of the matching alone;
- qascore `kpqa-bertscore` with a cold KPW cache: the tagger's forward passes are timed too;
- the tagger alone (KPW of every distinct (question, text), cold cache).
Each step runs --repeat times and the fastest run counts (the machine may be
shared). bert_score's and qascore's unweighted F are compared per pair, so the
timings are of equal work. Threads: --threads for both sides.
"""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np
import torch

from qascore_lab.bench.timing import fastest
from qascore_lab.datasets import kpqa
from qascore.metrics.registry import load
from qascore.runtime import defaults


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--dataset", default="marco", choices=list(kpqa.DATASETS), help="KPQA human-eval set (default marco)")
    p.add_argument("--rows", type=int, default=None, help="use only the first N rows")
    p.add_argument("--repeat", type=int, default=2, help="runs per step; the fastest counts (default 2)")
    p.add_argument("--threads", type=int, default=1, help="torch CPU threads (default 1)")
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--data", default=None, help="data root holding kpqa_human_eval/")


def run(args: argparse.Namespace) -> int:
    torch.set_num_threads(args.threads)
    records = kpqa.load(args.dataset, root=args.data)[: args.rows]
    cands = [r.candidate for r in records for _ in r.references]
    refs = [x for r in records for x in r.references]
    n = len(cands)

    ours = load("bertscore", batch_size=args.batch_size)
    kp = load("kpqa-bertscore", batch_size=args.batch_size)
    layer = ours.layer
    ours.score(records[:2])
    kp.score(records[:2])  # load the encoder and the tagger before timing
    weighter = kp.options["weights"]
    cache = weighter._cache

    try:
        from bert_score import BERTScorer
    except ImportError as err:
        raise SystemExit(f"bench kpqa compares with bert_score: pip install bert-score==0.3.13 ({err})")
    ref_scorer = BERTScorer(model_type=defaults.resolve(defaults.ENCODER), num_layers=layer,
                            batch_size=args.batch_size, device="cpu")
    (_, _, f_ref), t_ref = fastest(lambda: ref_scorer.score(cands, refs), args.repeat)
    res_ours, t_ours = fastest(lambda: ours.score(records), args.repeat)
    res_kp, t_kp = fastest(lambda: kp.score(records), args.repeat, before=cache.clear)

    questions = [(r.question, t) for r in records for t in [r.candidate, *r.references]]
    tok = weighter.tagger.tokenizer
    pieces = [(q, tok.tokenize(t)) for q, t in questions]
    _, t_tag = fastest(lambda: weighter.weigh_many(pieces), args.repeat, before=cache.clear)
    distinct = len({(q, tuple(p)) for q, p in pieces})

    # per pair agreement of the unweighted F (max over references in ours: compare per pair instead)
    ours_pairs = np.array(_pairwise(ours, records))
    diff = float(np.max(np.abs(ours_pairs - f_ref.numpy())))

    rows = [("bert_score (reference)", t_ref), ("qascore bertscore", t_ours),
            ("qascore kpqa-bertscore (tagger incl.)", t_kp)]
    print(f"{args.dataset}: {len(records)} records, {n} candidate-reference pairs; model {ours.encoder.model_id} "
          f"layer {layer}; threads {args.threads}; fastest of {args.repeat}")
    for name, t in rows:
        print(f"  {name:<40} {t:8.2f} s  {n / t:8.1f} pairs/s  ratio vs bert_score {t_ref / t:5.2f}x")
    print(f"  {'KPW tagger alone (cold cache)':<40} {t_tag:8.2f} s  {distinct / t_tag:8.1f} texts/s "
          f"({distinct} distinct (question, text))")
    print(f"  max |F(qascore) - F(bert_score)| over pairs: {diff:.2e}")
    print(f"  signature: {res_kp.signature}")
    return 0


def _pairwise(metric: Any, records: list) -> list[float]:
    """Unweighted F of every (candidate, reference) pair, one reference per record."""
    flat = [{"candidate": r.candidate, "references": [x]} for r in records for x in r.references]
    return metric.score(flat).scores

