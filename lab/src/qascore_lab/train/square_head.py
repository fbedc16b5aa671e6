"""`qascore-lab train square-head`: the shipped `square`, a head that pools `ava`'s reads of each reference.

`square` reads each positive and each negative reference on its own with the shipped `ava` verifier
(`qascore.metrics.square.verifier_reads`) and a logistic head pools the reads into one probability
(`pooled_features`). The head is fitted on dev rows only: WikiQA dev AVA triples, with the question's
other wrong candidates as negatives (`bench.verifier_eval.question_negatives`, the reporting sets' rule),
the same triples again with their negatives alone,
and a seeded sample of the verification corpus's dev split (SQuAD answer spans and sentences with their
blind negatives, SelQA, answer-equivalence pairs, EVOUNA-TQ LLM answers). The threshold is the fit
rows' best-F1 point, as for the verifiers. WikiQA test and TREC-QA clean-dev are never read.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

import numpy as np

DEV_SOURCES = ("squad-sentref", "squad", "selqa", "ae", "evouna")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--corpus", default="runs/verifier-data", help="verification corpus folder (its dev split)")
    p.add_argument("--data", default=None, help="data root (default: $QASCORE_DATA or ../shared/data)")
    p.add_argument("--corpus-rows", type=int, default=2500, help="seeded sample of the corpus dev rows")
    p.add_argument("--out", default="runs/square-head", help="folder for square.json and its report")
    p.add_argument("--seed", type=int, default=13)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--ship", action="store_true", help="copy the card into the package as the shipped `square`")


def fit_rows(corpus: str, data: str | None, n: int, seed: int) -> list[dict[str, Any]]:
    """WikiQA dev triples with their negatives, the same triples with their negatives alone (the head's
    negatives-only branch), then n seeded corpus dev rows of DEV_SOURCES."""
    from qascore_lab.bench.verifier_eval import triples_with_negatives
    from qascore_lab.datasets import data_root
    from qascore_lab.datasets.as2 import read_wikiqa
    from qascore_lab.train.verifier_corpus import read_split

    qs = read_wikiqa(data_root(data) / "wikiqa", "dev")
    rows = [dict(r, id=f"wikiqa-dev-{i}") for i, r in enumerate(triples_with_negatives("wikiqa-dev", qs, seed))]
    alone = [dict(r, id=f"{r['id']}-negatives", references=[], source="wikiqa-dev-negatives")
             for r in rows if r["negatives"]]
    dev = [r for r in read_split(corpus, "dev") if r["source"] in DEV_SOURCES]
    keep = sorted(np.random.default_rng(seed).choice(len(dev), min(n, len(dev)), replace=False).tolist())
    return rows + alone + [dev[k] for k in keep]


def run(args: argparse.Namespace) -> int:
    import torch
    from sklearn.linear_model import LogisticRegression

    from qascore.meta.classification import auroc, tune_threshold
    from qascore.metrics.square import (DEFAULT_MODEL, MAX_NEGATIVES, MAX_REFERENCES, POOLED_FEATURES,
                                        pooled_features, pooled_probability, verifier_reads)
    from qascore.metrics.registry import load
    from qascore.runtime.ava_layouts import installed_ava
    from qascore_lab.train.verifier_rows import to_records

    torch.set_num_threads(args.threads)
    t0 = time.time()
    rows = fit_rows(args.corpus, args.data, args.corpus_rows, args.seed)
    recs, y = to_records(rows)
    reads, _, _ = verifier_reads(recs, MAX_REFERENCES, MAX_NEGATIVES, load("ava"))
    x = np.array([pooled_features(*r) for r in reads])
    model = LogisticRegression(C=1.0, max_iter=1000).fit(x, y)
    card: dict[str, Any] = {"kind": "square-pooled", "features": list(POOLED_FEATURES),
                            "weights": [round(float(w), 6) for w in model.coef_[0]],
                            "bias": round(float(model.intercept_[0]), 6), "ava_model": installed_ava(),
                            "threshold": 0.5}
    probs = np.array([pooled_probability(card, f) for f in x])
    card["threshold"] = round(float(tune_threshold(probs, y, "f1")), 6)
    sources = sorted({r["source"] for r in rows})
    card["trained"] = {
        "command": f"qascore-lab train square-head --corpus {args.corpus} --corpus-rows {args.corpus_rows} "
                   f"--seed {args.seed}",
        "rows": len(rows), "sources": sources,
        "data_license": "WikiQA: Microsoft Research Data License (non-commercial research); SQuAD 2.0 and 1.1: "
                        "CC BY-SA 4.0; SelQA: Apache-2.0; EVOUNA-TQ: Apache-2.0; answer_equivalence: none stated "
                        "(research-only)"}
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    path = out / "square.json"
    path.write_text(json.dumps(card, indent=1) + "\n", encoding="utf-8")
    yy = np.asarray(y)
    report = {"card": card, "fit_auroc": auroc(probs, yy), "fit_accuracy": float(((probs >= card["threshold"]) == yy).mean()),
              "by_source": {s: auroc(probs[m], yy[m]) for s in sources
                            if len(set(yy[m := np.array([r["source"] == s for r in rows])])) == 2},
              "seconds": round(time.time() - t0, 1)}
    (out / "square.report.json").write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(report, indent=1))
    if args.ship:
        DEFAULT_MODEL.write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
        print(f"shipped as {DEFAULT_MODEL}")
    return 0
