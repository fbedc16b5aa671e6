"""`qascore train judge`: fit the stacked correctness judge (`metrics.judge`) on the verification corpus.

The logistic regression is fitted on a seeded sample of the corpus train split
(features standardised); Platt scaling of its logit and the accuracy-optimal
threshold are fitted on the corpus dev split. The card (JSON) records the
coefficients, what they stack, the AVA model they were fitted with, and the
dev figures of the judge and of each feature alone.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path
from typing import Any

import numpy as np

from qascore.runtime import defaults


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--corpus", default="runs/verifier-data", help="folder written by `qascore train verifier-data`")
    p.add_argument("--out", default="runs/judge", help="folder for judge.json")
    p.add_argument("--sample", type=int, default=6000, help="training rows used for the regression (seeded sample)")
    p.add_argument("--seed", type=int, default=13)
    p.add_argument("--C", type=float, default=1.0, help="inverse L2 strength of the regression")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--ship", action="store_true", help="copy judge.json into the package as the default")


def run(args: argparse.Namespace) -> int:
    import torch
    from sklearn.linear_model import LogisticRegression

    from qascore.meta.classification import auroc, binary_scores, tune_threshold
    from qascore.metrics.judge import FEATURES, features, predict
    from qascore.runtime.delta import file_sha256
    from qascore.train import verifier_corpus
    from qascore.train.verifier_run import to_records

    torch.set_num_threads(args.threads)
    t0 = time.time()
    train_rows = verifier_corpus.read_split(args.corpus, "train")
    rows = random.Random(args.seed).sample(train_rows, min(args.sample, len(train_rows)))
    dev_rows = verifier_corpus.read_split(args.corpus, "dev")
    recs, y = to_records(rows)
    dev_recs, dev_y = to_records(dev_rows)
    print(f"features of {len(recs)} train and {len(dev_recs)} dev rows ({args.threads} thread(s))", flush=True)
    x, dx = features(recs), features(dev_recs)
    mean, scale = x.mean(0), x.std(0) + 1e-9
    lr = LogisticRegression(C=args.C, max_iter=1000).fit((x - mean) / scale, y)
    card: dict[str, Any] = {"features": list(FEATURES), "mean": mean.tolist(), "scale": scale.tolist(),
                            "coef": lr.coef_[0].tolist(), "intercept": float(lr.intercept_[0]), "platt": [1.0, 0.0]}
    dev_logit = ((dx - mean) / scale) @ lr.coef_[0] + lr.intercept_[0]
    platt = LogisticRegression(C=1e6, max_iter=1000).fit(dev_logit[:, None], dev_y)
    card["platt"] = [float(platt.coef_[0][0]), float(platt.intercept_[0])]
    probs = predict(card, dx)
    card["threshold"] = tune_threshold(probs, dev_y, "accuracy")
    ava_path = defaults.RESOURCES / "ava" / "ava.safetensors"
    card["ava_model"] = f"ava@{file_sha256(ava_path)}"
    dev: dict[str, Any] = {"judge": {"auroc": auroc(probs, dev_y),
                                     "accuracy": binary_scores(probs, dev_y, card["threshold"]).accuracy}}
    for k, name in enumerate(FEATURES):
        dev[name] = {"auroc": auroc(dx[:, k], dev_y)}
    card.update(dev=dev, train_rows=len(recs), dev_rows=len(dev_recs), seed=args.seed, C=args.C,
                command=f"qascore train judge --sample {args.sample} --seed {args.seed} --C {args.C}",
                seconds=round(time.time() - t0, 1))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "judge.json").write_text(json.dumps(card, indent=2) + "\n", encoding="utf-8")
    print(json.dumps({k: card[k] for k in ("coef", "intercept", "platt", "threshold", "dev")}, indent=1))
    if args.ship:
        dest = defaults.RESOURCES / "judge" / "judge.json"
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_text(json.dumps(card, indent=2) + "\n", encoding="utf-8")
        print(f"shipped as {dest}")
    return 0
