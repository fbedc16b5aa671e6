"""`qascore-lab train reopens`: the judge's reading of where an answer reopens itself (`qascore.metrics.reopens`).

Rows are hand-written answers with `reopens_at`, the text where the answer starts to revise, doubt or re-check
what it said (null where it never does). Each unit after an answer's first (`reopens.units`) is an example: the
unit that holds `reopens_at` is a positive, every other unit a negative. `--negatives` adds answers that never
reopen (all their units negative). A logistic regression over `reopens.unit_features` (features seen in at least
`--min-count` training units) is fitted for each C of `--c`; the C and the threshold with the best F1 on the
`--dev` rows' units are kept; `--threshold` replaces the threshold where an answer-level choice is made
(lab/scripts/reopens_threshold.py). Deterministic (liblinear); `--seed` is recorded.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
from scipy import sparse
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score

from qascore.metrics import reopens
from qascore_lab.datasets.written import without_blind


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--rows", action="append", required=True, metavar="JSONL",
                   help="answers with `reopens_at` (candidate text or null) to train on; repeatable")
    p.add_argument("--negatives", action="append", default=[], metavar="JSONL",
                   help="answers that never reopen (every unit a negative); repeatable")
    p.add_argument("--negative-kinds", default="right_plain,right_verbose,right_format,written-right_plain,"
                                               "written-right_verbose,written-right_format",
                   help="of --negatives, the rows of these kinds only")
    p.add_argument("--dev", action="append", required=True, metavar="JSONL",
                   help="answers with `reopens_at`, to choose C and the threshold on; repeatable")
    p.add_argument("--drop-near", metavar="JSONL",
                   help="leave out the --rows and --negatives questions near one of this file's (a held set; "
                        "difflib ratio >= 0.75, as `written_probes.py --drop-near`)")
    p.add_argument("--c", default="0.1,0.3,1,3,10", help="inverse regularisation strengths to try")
    p.add_argument("--min-count", type=int, default=2)
    p.add_argument("--changes", action="store_true",
                   help="learn only the reopenings after which the answer commits to something else (kinds "
                        "*_revised); a re-check that stands by the answer is a negative")
    p.add_argument("--threshold", type=float,
                   help="the threshold to ship, where an answer-level choice replaces the unit-level one "
                        "(lab/scripts/reopens_threshold.py)")
    p.add_argument("--seed", type=int, default=13)
    p.add_argument("--out", required=True, help="folder for reopens.json.gz")
    p.add_argument("--ship", action="store_true", help="also copy it to the package's resources/judge/")


def examples(row: dict[str, Any], changes: bool = False) -> list[tuple[str, bool, bool]]:
    """(unit, after a line break, reopens) for each unit of the row's candidate after its first. `changes`: a
    unit reopens only where the answer then commits to something else (a row whose kind ends in "_revised")."""
    text = row["candidate"]
    at = row.get("reopens_at") if not changes or str(row.get("kind", "")).endswith("_revised") else None
    pos = text.find(at) if at else -1
    if at and pos < 0:
        raise ValueError(f"reopens: {row.get('id')}: reopens_at {at!r} is not in its candidate")
    spans = reopens.units(text)
    hit = next((k for k, (_, end) in enumerate(spans) if pos < end), None) if pos >= 0 else None
    return [(text[a:b], reopens.after_line(text, a), k == hit) for k, (a, b) in enumerate(spans) if k > 0]


def read(paths: list[str], kinds: set[str] | None = None, held: str | None = None) -> list[dict[str, Any]]:
    rows = [json.loads(line) for path in paths for line in open(path, encoding="utf-8") if line.strip()]
    rows = [r for r in rows if kinds is None or r.get("kind") in kinds]
    return without_blind(rows, held)[0] if held else rows


def matrix(units: list[tuple[str, bool, bool]], vocab: dict[str, int]) -> tuple[sparse.csr_matrix, np.ndarray]:
    rows, cols = [], []
    for i, (unit, line, _) in enumerate(units):
        for f in set(reopens.unit_features(unit, line)):
            if f in vocab:
                rows.append(i)
                cols.append(vocab[f])
    x = sparse.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(len(units), len(vocab)))
    return x, np.array([y for *_, y in units], dtype=int)


def best_f1(y: np.ndarray, p: np.ndarray) -> tuple[float, float]:
    """(F1, threshold) at the threshold of the best F1 over the dev probabilities (the lowest, where several tie)."""
    best = (0.0, -0.5)
    for t in np.unique(p):
        pred = p >= t
        tp = int((pred & (y == 1)).sum())
        f1 = 2 * tp / max(1, int(pred.sum()) + int(y.sum()))
        best = max(best, (f1, -float(t)))
    return best[0], -best[1]


def run(args: argparse.Namespace) -> int:
    train = [u for r in read(args.rows, held=args.drop_near) for u in examples(r, args.changes)]
    train += [u for r in read(args.negatives, set(args.negative_kinds.split(",")), args.drop_near) for u in examples(r)]
    dev = [u for r in read(args.dev) for u in examples(r, args.changes)]
    counts = Counter(f for unit, line, _ in train for f in set(reopens.unit_features(unit, line)))
    vocab = {f: i for i, f in enumerate(sorted(f for f, n in counts.items() if n >= args.min_count))}
    x, y = matrix(train, vocab)
    xd, yd = matrix(dev, vocab)
    print(f"train {len(train)} units ({int(y.sum())} reopen), dev {len(dev)} ({int(yd.sum())}), {len(vocab)} features")
    tried = []
    for c in (float(v) for v in args.c.split(",")):
        model = LogisticRegression(C=c, solver="liblinear", random_state=args.seed).fit(x, y)
        p = model.predict_proba(xd)[:, 1]
        f1, t = best_f1(yd, p)
        tried.append({"C": c, "dev_f1": f1, "threshold": t, "dev_auroc": float(roc_auc_score(yd, p)), "model": model})
        print(f"C {c}: dev F1 {f1:.3f} at {t:.3f}, AUROC {tried[-1]['dev_auroc']:.3f}")
    pick = max(tried, key=lambda d: d["dev_f1"])
    model = pick.pop("model")
    names = sorted(vocab, key=vocab.__getitem__)
    out = {"bias": float(model.intercept_[0]), "threshold": pick["threshold"] if args.threshold is None else args.threshold,
           "weights": {f: float(w) for f, w in zip(names, model.coef_[0]) if w != 0.0},
           "C": pick["C"], "dev": {k: v for k, v in pick.items() if k != "C"},
           "tried": [{k: v for k, v in d.items() if k != "model"} for d in tried],
           "units": {"train": len(train), "train_reopen": int(y.sum()), "dev": len(dev), "dev_reopen": int(yd.sum())},
           "seed": args.seed, "command": "qascore-lab train reopens " + " ".join(sys.argv[sys.argv.index("reopens") + 1:])
           if "reopens" in sys.argv else None}
    folder = Path(args.out)
    folder.mkdir(parents=True, exist_ok=True)
    data = gzip.compress((json.dumps(out, indent=1, sort_keys=True) + "\n").encode("utf-8"), mtime=0)
    (folder / reopens.DEFAULT.name).write_bytes(data)
    print(f"C {pick['C']}: wrote {folder / reopens.DEFAULT.name} ({len(out['weights'])} weights)")
    if args.ship:
        reopens.DEFAULT.write_bytes(data)
        print(f"shipped to {reopens.DEFAULT}")
    return 0
