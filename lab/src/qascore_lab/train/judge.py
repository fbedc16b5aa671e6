"""`qascore-lab train judge`: fit the stacked correctness judge (`metrics.judge`) on the verification corpus.

Default (`--fit-on dev`): the logistic regression is fitted on the corpus dev
split, which the verifier never trained on; its dev figures are out-of-fold
(5 folds by question) and the accuracy-optimal threshold is tuned on those.
`--fit-on train` fits on a seeded sample of the train split and Platt-scales
on dev, as first planned; on rows the verifier was trained on, its
probability looks better than it is, so that regression leans on it too much
(lab/results/verifiers.md compares the two). The card (JSON) records the
coefficients, what they stack, the AVA model they were fitted with, and the
dev figures of the judge and of each feature alone.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from qascore.runtime import defaults


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--corpus", default="runs/verifier-data", help="folder written by `qascore-lab train verifier-data`")
    p.add_argument("--out", default="runs/judge", help="folder for judge.json")
    p.add_argument("--fit-on", choices=("dev", "train"), default="dev",
                   help="dev: fit on the dev split, its figures out-of-fold (5 folds by question); train: fit on a "
                        "sample of the train split, Platt-calibrate on dev")
    p.add_argument("--sample", type=int, default=6000, help="with --fit-on train: rows used (seeded sample)")
    p.add_argument("--seed", type=int, default=13)
    p.add_argument("--C", type=float, default=1.0, help="inverse L2 strength of the regression")
    p.add_argument("--features", default="ava_logit,kpqa_rougeL",
                   help="features to stack (comma-separated, of metrics.judge.FEATURES); the default is the subset "
                        "that beat the verifier alone on every source of the dev split, out-of-fold")
    p.add_argument("--features-cache", default=None, metavar="NPY",
                   help="dev feature matrix (all FEATURES) saved by an earlier run with the same ava model")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--ship", action="store_true", help="copy judge.json into the package as the default")


def _fit(x: np.ndarray, y: Sequence[int], c: float) -> tuple[Any, np.ndarray, np.ndarray]:
    """A logistic regression on standardised features: (model, mean, scale)."""
    from sklearn.linear_model import LogisticRegression

    mean, scale = x.mean(0), x.std(0) + 1e-9
    return LogisticRegression(C=c, max_iter=1000).fit((x - mean) / scale, list(y)), mean, scale


def _card(lr: Any, mean: np.ndarray, scale: np.ndarray, platt: Sequence[float],
          names: Sequence[str]) -> dict[str, Any]:
    return {"features": list(names), "mean": mean.tolist(), "scale": scale.tolist(), "coef": lr.coef_[0].tolist(),
            "intercept": float(lr.intercept_[0]), "platt": [float(platt[0]), float(platt[1])]}


def out_of_fold(x: np.ndarray, y: Sequence[int], groups: Sequence[str], c: float, folds: int = 5) -> np.ndarray:
    """P(correct) of each row from a regression fitted on the other folds (folds by question)."""
    from sklearn.model_selection import GroupKFold

    from qascore.metrics.judge import predict

    probs = np.zeros(len(y))
    yy = np.asarray(y)
    names = [f"f{i}" for i in range(x.shape[1])]
    for tr, te in GroupKFold(n_splits=folds).split(x, yy, list(groups)):
        lr, mean, scale = _fit(x[tr], yy[tr], c)
        probs[te] = predict(_card(lr, mean, scale, (1.0, 0.0), names), x[te])
    return probs


def run(args: argparse.Namespace) -> int:
    import torch
    from sklearn.linear_model import LogisticRegression

    from qascore.meta.classification import auroc, binary_scores, tune_threshold
    from qascore.metrics.judge import FEATURES, features, predict
    from qascore.runtime.delta import file_sha256
    from qascore_lab.train import verifier_corpus
    from qascore_lab.train.verifier_rows import source_groups, to_records

    torch.set_num_threads(args.threads)
    t0 = time.time()
    dev_rows = verifier_corpus.read_split(args.corpus, "dev")
    dev_recs, dev_y = to_records(dev_rows)
    names = [f.strip() for f in args.features.split(",") if f.strip()]
    unknown = [f for f in names if f not in FEATURES]
    if unknown:
        raise SystemExit(f"--features: unknown {unknown}; known: {', '.join(FEATURES)}")
    cols = [FEATURES.index(f) for f in names]
    if args.features_cache and Path(args.features_cache).is_file():
        dx_all = np.load(args.features_cache)
    else:
        print(f"features of {len(dev_recs)} dev rows ({args.threads} thread(s))", flush=True)
        dx_all = features(dev_recs)
        if args.features_cache:
            np.save(args.features_cache, dx_all)
    dx = dx_all[:, cols]
    if args.fit_on == "train":
        rows = random.Random(args.seed).sample(verifier_corpus.read_split(args.corpus, "train"), args.sample)
        recs, y = to_records(rows)
        print(f"features of {len(recs)} train rows", flush=True)
        lr, mean, scale = _fit(features(recs)[:, cols], y, args.C)
        dev_logit = ((dx - mean) / scale) @ lr.coef_[0] + lr.intercept_[0]
        platt = LogisticRegression(C=1e6, max_iter=1000).fit(dev_logit[:, None], dev_y)
        card = _card(lr, mean, scale, (platt.coef_[0][0], platt.intercept_[0]), names)
        probs = predict(card, dx)
        how = f"fitted on {len(recs)} train rows, Platt-calibrated on the dev split; dev figures in-sample"
    else:
        probs = out_of_fold(dx, dev_y, [r["qid"] for r in dev_rows], args.C)
        lr, mean, scale = _fit(dx, dev_y, args.C)
        card = _card(lr, mean, scale, (1.0, 0.0), names)
        how = "fitted on the dev split; dev figures out-of-fold (5 folds by question)"
    card["threshold"] = tune_threshold(probs, dev_y, "accuracy")
    card["ava_model"] = f"ava@{file_sha256(defaults.RESOURCES / 'ava' / 'ava.safetensors')}"
    dev: dict[str, Any] = {}
    for src, idx in source_groups(dev_rows).items():
        yy = [dev_y[i] for i in idx]
        dev[src] = {"judge": {"auroc": auroc(probs[idx], yy),
                              "accuracy": binary_scores(probs[idx], yy, card["threshold"]).accuracy},
                    **{f: {"auroc": auroc(dx_all[idx, k], yy)} for k, f in enumerate(FEATURES)}}
    card.update(fit=how, dev=dev, dev_rows=len(dev_recs), seed=args.seed, C=args.C,
                command=f"qascore-lab train judge --fit-on {args.fit_on} --features {','.join(names)} --seed {args.seed} --C {args.C}"
                        + (f" --sample {args.sample}" if args.fit_on == "train" else ""),
                seconds=round(time.time() - t0, 1))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "judge.json").write_text(json.dumps(card, indent=2) + "\n", encoding="utf-8")
    print(json.dumps({k: card[k] for k in ("coef", "intercept", "platt", "threshold", "fit", "dev")}, indent=1))
    if args.ship:
        dest = defaults.RESOURCES / "judge" / "judge.json"
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_text(json.dumps(card, indent=2) + "\n", encoding="utf-8")
        print(f"shipped as {dest}")
    return 0
