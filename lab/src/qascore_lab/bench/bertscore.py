"""`qascore-lab bench bertscore`: qascore bertscore vs bert_score, same model, layer and rows, one run.

Rows of a KPQA human-eval set (default: the 1,000 MS-MARCO rows) are scored
as (candidate, reference) pairs, unweighted and with IDF:
- bert_score's BERTScorer (model loaded before timing: the matching and
  encoding cost, as ours) with the same model directory and layer;
- qascore `bertscore` (encoder loaded before timing).
Each side runs --repeat times, alternating, and the fastest run counts (the
machine may be shared). The F values of both sides are compared, so the timings are of equal
work. BERTScore-KPQA, tagger included, is timed by `qascore-lab bench kpqa`.
"""

from __future__ import annotations

import argparse

import numpy as np
import torch

from qascore_lab.bench.timing import fastest
from qascore_lab.datasets import kpqa
from qascore.metrics.registry import load
from qascore.runtime import defaults


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--dataset", default="marco", choices=list(kpqa.DATASETS),
                   help="KPQA human-eval set whose rows are scored (default marco, 1,000 rows)")
    p.add_argument("--rows", type=int, default=None, help="use only the first N rows")
    p.add_argument("--layer", type=int, default=None, help="encoder layer (default: bertscore's default)")
    p.add_argument("--repeat", type=int, default=2, help="runs per step; the fastest counts (default 2)")
    p.add_argument("--threads", type=int, default=1, help="torch CPU threads for both sides (default 1)")
    p.add_argument("--batch-size", type=int, default=64, help="both sides (bert_score's default is 64)")
    p.add_argument("--device", default=None, help="cpu / cuda (default: cuda if available)")
    p.add_argument("--no-idf", action="store_true", help="skip the IDF variant")
    p.add_argument("--data", default=None, help="data root holding kpqa_human_eval/")


def run(args: argparse.Namespace) -> int:
    try:
        from bert_score import BERTScorer
    except ImportError as err:
        raise SystemExit(f"bench bertscore compares with bert_score: pip install bert-score==0.3.13 ({err})")
    torch.set_num_threads(args.threads)
    device = args.device or ("cuda" if torch.cuda.is_available() else "cpu")
    records = kpqa.load(args.dataset, root=args.data)[: args.rows]
    cands = [r.candidate for r in records for _ in r.references]
    refs = [x for r in records for x in r.references]
    single = [{"candidate": c, "references": [x]} for c, x in zip(cands, refs)]
    n = len(cands)
    path = defaults.resolve(defaults.ENCODER)

    print(f"{args.dataset}: {len(records)} records, {n} candidate-reference pairs; threads {args.threads}; "
          f"device {device}; batch {args.batch_size}; fastest of {args.repeat}")
    for idf in (False,) if args.no_idf else (False, True):
        ours = load("bertscore", layer=args.layer, idf=idf, batch_size=args.batch_size, device=device)
        layer = ours.layer
        ours.score(single[:2])  # load the encoder before timing
        theirs = BERTScorer(model_type=path, num_layers=layer, batch_size=args.batch_size, device=device,
                            idf=idf, idf_sents=refs if idf else None, nthreads=0)
        t_ref = t_ours = float("inf")
        for _ in range(args.repeat):  # alternate the two sides so load on a shared machine hits both
            (_, _, f_ref), t = fastest(lambda: theirs.score(cands, refs), 1)
            t_ref = min(t_ref, t)
            res, t = fastest(lambda: ours.score(single), 1)
            t_ours = min(t_ours, t)
        gaps = np.abs(np.array(res.scores) - f_ref.numpy())
        diff = float(np.max(gaps))
        off = [int(i) for i in np.flatnonzero(gaps > 1e-4)]
        label = "idf" if idf else "no idf"
        print(f"[{label}] model {ours.encoder.model_id} layer {layer}")
        print(f"  {'bert_score BERTScorer.score (reference)':<42} {t_ref:7.2f} s  {n / t_ref:8.1f} pairs/s")
        print(f"  {'qascore bertscore':<42} {t_ours:7.2f} s  {n / t_ours:8.1f} pairs/s  "
              f"speed ratio vs bert_score {t_ref / t_ours:5.2f}x")
        print(f"  max |F(qascore) - F(bert_score)| over {n} pairs: {diff:.2e}")
        if off:  # bert_score's zero-filled padding; scored one pair at a time (no padding) they agree
            alone = np.array([float(theirs.score([cands[i]], [refs[i]], batch_size=1)[2][0]) for i in off])
            again = float(np.max(np.abs(alone - np.array(res.scores)[off])))
            print(f"  {len(off)} pairs differ by > 1e-4 (bert_score's batched padding); bert_score on those pairs "
                  f"one at a time: max |dF| {again:.2e}")
        print(f"  signature: {res.signature}")
    return 0
