"""Why SQuArE trails AVA-QT on TREC-QA: the re-scored runs of this folder against the seed study.

    python docs/results/square/diagnostics/diagnose.py [--n-boot 1000] [--no-subgroups]

Reads, per training seed (13, 14, 15), the as-trained evaluations of the seed study
(docs/results/square, .../seed14, .../seed15) and the re-scorings in seedNN/ here
(`qascore train square --eval-only --eval-refs SPEC`: the same model and targets,
other references), and prints markdown: AUROC per seed, paired differences per seed
with the 3-seed mean and its 95% CI (questions resampled, `train.square.paired_auroc_diff`),
and subgroup AUROCs (targets whose question offers a positive reference or not;
within-question pairs only). The last tables need ../shared/data (to count each question's
correct and wrong candidates); --no-subgroups skips them.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from qascore.meta.classification import auroc
from qascore.train.square import EVAL_SEED, eval_targets, load_split, paired_auroc_diff
from qascore.train.square_data import RefSpec, build_examples

HERE = Path(__file__).resolve().parent
STUDY = HERE.parent
SEEDS = (13, 14, 15)
DATASETS = {"wikiqa-test": "WikiQA test", "trecqa-clean-dev": "TREC-QA clean-dev"}

# run key -> (label, file name); "@name" is an as-trained run of the seed study, the rest re-scorings here
RUNS = {
    "square": ("SQuArE (5), as trained: 3+ / 2- as available", "@square"),
    "square-neg5": ("SQuArE (5) given 5 negatives only", "square-refs-neg_5"),
    "square-neg1": ("SQuArE (5) given 1 negative only", "square-refs-neg_1"),
    "square-none": ("SQuArE (5) given no reference", "square-refs-pos_0_neg_0"),
    "square-pos5": ("SQuArE (5) given 5 positives only", "square-refs-pos_5"),
    "ava-qt": ("AVA-QT (no reference)", "@ava-qt"),
    "tqr-neg": ("AVA-TQR(-), as trained: 1 negative", "@ava-tqr-neg"),
    "tqr-neg-empty": ("AVA-TQR(-) given an empty reference", "ava-tqr-neg-refs-pos_0_neg_0"),
    "tqr": ("AVA-TQR, as trained: 1 positive", "@ava-tqr"),
    "tqr-empty": ("AVA-TQR given an empty reference", "ava-tqr-refs-pos_0_neg_0"),
}
# (a, b, question): paired AUROC(a) - AUROC(b)
DIFFS = [
    ("square", "ava-qt", "SQuArE as trained vs AVA-QT"),
    ("square-neg5", "ava-qt", "SQuArE negatives only vs AVA-QT"),
    ("square-none", "ava-qt", "SQuArE no reference vs AVA-QT"),
    ("square-neg5", "square-none", "SQuArE: negatives vs none (do negatives help?)"),
    ("square-neg1", "square-none", "SQuArE: 1 negative vs none (count ~constant)"),
    ("square-neg1", "ava-qt", "SQuArE 1 negative vs AVA-QT"),
    ("square", "square-neg5", "SQuArE: 3+/2- vs 5- (swapping negatives for positives)"),
    ("square-pos5", "square-none", "SQuArE: positives vs none (do positives help?)"),
    ("tqr-neg", "tqr-neg-empty", "AVA-TQR(-): its negative vs empty (does the negative help?)"),
    ("tqr-neg", "ava-qt", "AVA-TQR(-) as trained vs AVA-QT"),
    ("tqr-neg-empty", "ava-qt", "AVA-TQR(-) with empty reference vs AVA-QT"),
    ("tqr", "tqr-empty", "AVA-TQR: its positive vs empty (does the positive help?)"),
    ("tqr-empty", "ava-qt", "AVA-TQR with empty reference vs AVA-QT"),
]


def seed_dir(seed: int) -> Path:
    return STUDY if seed == 13 else STUDY / f"seed{seed}"


def load(seed: int, key: str) -> dict[str, Any] | None:
    name = RUNS[key][1]
    if name.startswith("@"):
        path = seed_dir(seed) / f"{name[1:]}.eval.json"
    else:
        path = HERE / f"seed{seed}" / f"{name}.eval.json"
    return json.loads(path.read_text())["eval"] if path.exists() else None


def auc(e: dict[str, Any], mask: np.ndarray | None = None) -> float:
    p, y = np.asarray(e["probs"]), np.asarray(e["labels"])
    if mask is not None:
        p, y = p[mask], y[mask]
    return auroc(p, y)


def within_question_auroc(e: dict[str, Any], mask: np.ndarray | None = None) -> float:
    """P(correct target scored above a wrong target of the SAME question) (+0.5 ties): a
    question-level shift of the scores cannot change it, unlike the pooled AUROC."""
    if mask is not None:
        e = _subset(e, mask)
    _, wins, pairs = _within_parts(e)
    return float(wins.sum() / pairs.sum()) if pairs.sum() else float("nan")


def fmt(v: float) -> str:
    return f"{v:.3f}"


def auroc_table(runs: dict[str, dict[int, Any]]) -> list[str]:
    head = " | ".join(f"{lab} s{s}" for lab in DATASETS.values() for s in SEEDS)
    lines = ["### AUROC per seed", "", f"| model, references | {head} | WikiQA mean | TREC-QA mean |",
             "|---|" + "---|" * (len(SEEDS) * 2 + 2)]
    for key, (label, _) in RUNS.items():
        cells, means = [], []
        for ds in DATASETS:
            vals = [auc(runs[key][s][ds]) for s in SEEDS if runs[key].get(s)]
            cells += [fmt(auc(runs[key][s][ds])) if runs[key].get(s) else "(not run)" for s in SEEDS]
            means.append(f"{statistics.fmean(vals):.3f}" + ("" if len(vals) == len(SEEDS) else f" (n={len(vals)})")
                         if vals else "")
        lines.append(f"| {label} | " + " | ".join(cells + means) + " |")
    return lines


def diff_table(runs: dict[str, dict[int, Any]], n_boot: int) -> list[str]:
    lines = ["### Paired AUROC differences (a - b; same seed, same targets)", "",
             "| comparison | data set | s13 [95% CI] | s14 [95% CI] | s15 [95% CI] | mean [95% CI] | seeds > 0 |",
             "|---|---|---|---|---|---|---|"]
    for a, b, label in DIFFS:
        seeds = [s for s in SEEDS if runs[a].get(s) and runs[b].get(s)]
        if not seeds:
            continue
        for ds, dlab in DATASETS.items():
            cells, vals = [], []
            for s in SEEDS:
                if s not in seeds:
                    cells.append("(not run)")
                    continue
                d, lo, hi = paired_auroc_diff([runs[a][s][ds]], [runs[b][s][ds]], n_boot)
                vals.append(d)
                cells.append(f"{d:+.3f} [{lo:+.3f}, {hi:+.3f}]")
            d, lo, hi = paired_auroc_diff([runs[a][s][ds] for s in seeds], [runs[b][s][ds] for s in seeds], n_boot)
            lines.append(f"| {label} | {dlab} | " + " | ".join(cells) +
                         f" | {d:+.3f} [{lo:+.3f}, {hi:+.3f}] | {sum(v > 0 for v in vals)}/{len(vals)} |")
    return lines


def _within_parts(e: dict[str, Any]) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Per question with both labels among its targets: (question ids, wins, pairs) of its pairs."""
    p, y = np.asarray(e["probs"]), np.asarray(e["labels"])
    by_q: dict[str, list[int]] = {}
    for i, tid in enumerate(e["ids"]):
        by_q.setdefault(tid.split("|", 1)[0], []).append(i)
    qids, wins, pairs = [], [], []
    for q, idx in by_q.items():
        d = p[[i for i in idx if y[i]]][:, None] - p[[i for i in idx if not y[i]]][None, :]
        if d.size:
            qids.append(q)
            wins.append(float((d > 0).sum() + 0.5 * (d == 0).sum()))
            pairs.append(d.size)
    return qids, np.array(wins), np.array(pairs, dtype=float)


def paired_within_diff(a: Sequence[dict[str, Any]], b: Sequence[dict[str, Any]], n_boot: int = 1000,
                       seed: int = 0) -> tuple[float, float, float]:
    """Mean over runs of within-question AUROC(a[k]) - (b[k]), 95% CI from resampling questions."""
    parts = [(_within_parts(x), _within_parts(z)) for x, z in zip(a, b)]
    qids = parts[0][0][0]
    if any(pa[0] != qids or pb[0] != qids for pa, pb in parts):
        raise ValueError("the evaluations are not on the same targets")

    def diff(pick: np.ndarray) -> float:
        return float(np.mean([pa[1][pick].sum() / pa[2][pick].sum() - pb[1][pick].sum() / pb[2][pick].sum()
                              for pa, pb in parts]))

    rng = np.random.default_rng(seed)
    boots = [diff(rng.integers(0, len(qids), len(qids))) for _ in range(n_boot)]
    lo, hi = np.percentile(boots, [2.5, 97.5]) if boots else (float("nan"), float("nan"))
    return diff(np.arange(len(qids))), float(lo), float(hi)


# (with, without, which targets' input changed, label): do these references move correct targets up
# relative to wrong ones? "pos": targets whose question offers a positive reference, "neg": a negative
SHIFTS = [("square-neg5", "square-none", "neg", "SQuArE: 5 negatives vs none"),
          ("square-neg1", "square-none", "neg", "SQuArE: 1 negative vs none"),
          ("square-pos5", "square-none", "pos", "SQuArE: 5 positives vs none"),
          ("square", "square-neg5", "pos", "SQuArE: 3+/2- vs 5- (positives in place of negatives)"),
          ("tqr-neg", "tqr-neg-empty", "neg", "AVA-TQR(-): its negative vs empty"),
          ("tqr", "tqr-empty", "pos", "AVA-TQR: its positive vs empty")]


def shift_table(runs: dict[str, dict[int, Any]], offered: dict[str, dict[str, np.ndarray]]) -> list[str]:
    """AUROC of the per-target score change (with - without references) against the gold label, on
    the targets whose input changed: > 0.5 = the references raise correct targets relative to wrong
    ones (used in the right direction), < 0.5 = against the label, 0.5 = a label-blind shift."""
    lines = ["### Direction of the reference effect: AUROC of (score with - score without) vs the gold label", "",
             "| references added | data set | s13 | s14 | s15 | targets whose input changed |",
             "|---|---|---|---|---|---|"]
    for a, b, kind, label in SHIFTS:
        for ds, dlab in DATASETS.items():
            cells, m = [], offered[ds][kind]
            for s in SEEDS:
                if not (runs[a].get(s) and runs[b].get(s)):
                    cells.append("(not run)")
                    continue
                d = np.asarray(runs[a][s][ds]["probs"]) - np.asarray(runs[b][s][ds]["probs"])
                y = np.asarray(runs[a][s][ds]["labels"])
                cells.append(fmt(auroc(d[m], y[m])) if 0 < y[m].sum() < m.sum() else "n/a")
            lines.append(f"| {label} | {dlab} | " + " | ".join(cells) + f" | {int(m.sum())} |")
    return lines


def within_table(runs: dict[str, dict[int, Any]], n_boot: int) -> list[str]:
    lines = ["### Within-question AUROC (pairs of a correct and a wrong target of the same question)", "",
             "| model, references | WikiQA s13 | s14 | s15 | TREC-QA s13 | s14 | s15 |",
             "|---|---|---|---|---|---|---|"]
    for key, (label, _) in RUNS.items():
        cells = [fmt(within_question_auroc(runs[key][s][ds])) if runs[key].get(s) else "(not run)"
                 for ds in DATASETS for s in SEEDS]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    lines += ["", "| comparison (within-question AUROC, a - b) | data set | s13 | s14 | s15 | mean [95% CI] |",
              "|---|---|---|---|---|---|"]
    for a, b, label in DIFFS:
        seeds = [s for s in SEEDS if runs[a].get(s) and runs[b].get(s)]
        for ds, dlab in DATASETS.items():
            per = [paired_within_diff([runs[a][s][ds]], [runs[b][s][ds]], 0)[0] if s in seeds else None
                   for s in SEEDS]
            d, lo, hi = paired_within_diff([runs[a][s][ds] for s in seeds], [runs[b][s][ds] for s in seeds], n_boot)
            lines.append(f"| {label} | {dlab} | " + " | ".join("(not run)" if v is None else f"{v:+.3f}" for v in per)
                         + f" | {d:+.3f} [{lo:+.3f}, {hi:+.3f}] |")
    return lines


# the seed study's must-show orderings (as-trained runs), compared within questions
ORDERINGS = [("square", "ava-tqr"), ("square", "ava-qt"), ("square", "ava-tr"), ("ava-tqr-neg", "ava-qt"),
             ("square", "square-pos"), ("square", "square-3")]


def orderings_within_table(n_boot: int) -> list[str]:
    """The seed study's orderings on within-question AUROC: do they hold inside a question, where
    reference counts (the same for all targets of a question) cannot help?"""
    lines = ["### Seed-study orderings, within-question AUROC (a - b, as-trained runs)", "",
             "| ordering | data set | s13 | s14 | s15 | mean [95% CI] |", "|---|---|---|---|---|---|"]
    for a, b in ORDERINGS:
        ea = [json.loads((seed_dir(s) / f"{a}.eval.json").read_text())["eval"] for s in SEEDS]
        eb = [json.loads((seed_dir(s) / f"{b}.eval.json").read_text())["eval"] for s in SEEDS]
        for ds, dlab in DATASETS.items():
            per = [paired_within_diff([x[ds]], [z[ds]], 0)[0] for x, z in zip(ea, eb)]
            d, lo, hi = paired_within_diff([x[ds] for x in ea], [z[ds] for z in eb], n_boot)
            lines.append(f"| {a} > {b} | {dlab} | " + " | ".join(f"{v:+.3f}" for v in per)
                         + f" | {d:+.3f} [{lo:+.3f}, {hi:+.3f}] |")
    return lines


def offers(e: dict[str, Any], ds: str) -> dict[str, np.ndarray]:
    """Per target: does its question offer a positive / a negative reference? (Blind composition:
    a question with P correct and N wrong candidates offers P-1 positives and N-1 negatives.)"""
    n = {q.qid: (sum(int(v) for v in q.labels), len(q.labels)) for q in load_split(ds)}
    per = [n[tid.split("|", 1)[0]] for tid in e["ids"]]
    return {"pos": np.array([p >= 2 for p, _ in per]), "neg": np.array([t - p >= 2 for p, t in per]),
            "neg5": np.array([t - p >= 6 for p, t in per])}


def _subset(e: dict[str, Any], mask: np.ndarray) -> dict[str, Any]:
    return {k: [v for v, m in zip(e[k], mask) if m] for k in ("ids", "labels", "probs")}


def fixed_count_table(runs: dict[str, dict[int, Any]], offered: dict[str, dict[str, np.ndarray]],
                      n_boot: int) -> list[str]:
    """Negatives vs none on the targets whose question offers >= 5 negatives, where `neg=5`
    gives every target exactly 5: what is left of the gain once the count cannot vary."""
    lines = ["### Targets offered exactly 5 negatives under neg=5 (the count held fixed): pooled AUROC, a - b", "",
             "| comparison | data set | targets (correct) | s13 | s14 | s15 | mean [95% CI] |",
             "|---|---|---|---|---|---|---|"]
    for a, b in (("square-neg5", "square-none"), ("square-neg5", "ava-qt"), ("square-none", "ava-qt")):
        for ds, dlab in DATASETS.items():
            m = offered[ds]["neg5"]
            ea = [_subset(runs[a][s][ds], m) for s in SEEDS]
            eb = [_subset(runs[b][s][ds], m) for s in SEEDS]
            per = [auc(x) - auc(z) for x, z in zip(ea, eb)]
            d, lo, hi = paired_auroc_diff(ea, eb, n_boot)
            lines.append(f"| {RUNS[a][0]} - {RUNS[b][0]} | {dlab} | {int(m.sum())} ({sum(ea[0]['labels'])}) | "
                         + " | ".join(f"{v:+.3f}" for v in per) + f" | {d:+.3f} [{lo:+.3f}, {hi:+.3f}] |")
    return lines


def count_prior_table() -> list[str]:
    """AUROC of the reference counts alone (no model), as the evaluations draw them."""
    specs = {"5 negatives (neg=5)": RefSpec(neg=5), "1 negative (neg=1)": RefSpec(neg=1),
             "5 positives (pos=5)": RefSpec(pos=5), "as trained (total=5)": RefSpec(total=(5, 5))}
    lines = ["### Reference counts alone (no model): AUROC of -(# negatives) and of +(# positives)", "",
             "| references | " + " | ".join(DATASETS.values()) + " |", "|---|---|---|"]
    for label, spec in specs.items():
        cells = []
        for ds, n in (("wikiqa-test", 800), ("trecqa-clean-dev", 700)):
            qs = load_split(ds)
            ex = build_examples(qs, spec, seed=EVAL_SEED, targets=eval_targets(qs, n))
            y = [x.label for x in ex]
            neg = auroc([-len(x.negatives) for x in ex], y)
            cells.append(f"{neg:.3f} / {auroc([len(x.positives) for x in ex], y):.3f}")
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return lines


def subgroup_table(runs: dict[str, dict[int, Any]]) -> list[str]:
    keys = ["square", "square-neg5", "square-neg1", "square-none", "square-pos5", "ava-qt", "tqr", "tqr-empty"]
    lines = ["### Subgroups: AUROC (pooled / within-question pairs only), mean over the seeds", ""]
    for ds, dlab in DATASETS.items():
        ref = runs["ava-qt"][13][ds]
        has = offers(ref, ds)["pos"]
        y = np.asarray(ref["labels"])
        groups = {"all": np.ones_like(has), "question offers >= 1 positive": has, "offers none": ~has}
        lines += [f"{dlab}: " + "; ".join(
            f"{g}: {int(m.sum())} targets, {int(y[m].sum())} correct, "
            f"{len({t.split('|')[0] for t, k in zip(ref['ids'], m) if k})} questions"
            for g, m in groups.items()), "",
            "| model, references | " + " | ".join(groups) + " |", "|---|" + "---|" * len(groups)]
        for key in keys:
            cells = []
            for m in groups.values():
                es = [runs[key][s][ds] for s in SEEDS if runs[key].get(s)]
                pooled = statistics.fmean(auc(e, m) for e in es)
                within = statistics.fmean(within_question_auroc(e, m) for e in es)
                cells.append(f"{pooled:.3f} / {within:.3f}" + ("" if len(es) == len(SEEDS) else f" (n={len(es)})"))
            lines.append(f"| {RUNS[key][0]} | " + " | ".join(cells) + " |")
        lines.append("")
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n-boot", type=int, default=1000)
    p.add_argument("--no-subgroups", action="store_true")
    args = p.parse_args(argv)
    runs = {key: {s: e for s in SEEDS if (e := load(s, key)) is not None} for key in RUNS}
    lines = (auroc_table(runs) + [""] + diff_table(runs, args.n_boot) + [""] + within_table(runs, args.n_boot)
             + [""] + orderings_within_table(args.n_boot) + [""])
    if not args.no_subgroups:
        ref = runs["ava-qt"][SEEDS[0]]
        offered = {ds: offers(ref[ds], ds) for ds in DATASETS}
        lines += shift_table(runs, offered) + [""] + fixed_count_table(runs, offered, args.n_boot) + [""]
        lines += count_prior_table() + [""] + subgroup_table(runs)
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
