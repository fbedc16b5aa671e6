"""Does more positive-reference training data fix SQuArE's use of positives? (diagnostic model)

    python docs/results/square/diagnostics/trec-train/compare.py [--n-boot 1000]

Compares the seed-13 SQuArE trained on WikiQA train + 1,000 TREC-QA-train targets
(`qascore train square --extra-train trecqa`, never shipped; files here) with the shipped
seed-13 SQuArE (docs/results/square/square.eval.json and ../seed13/), each re-scored with
5 negatives, 5 positives and no reference. The measures are those of ../diagnose.py,
imported from it: pooled and within-question AUROC, paired differences with 95% CIs
(questions resampled), and the direction of the reference effect (AUROC of the per-target
score change against the gold label). TREC-QA clean-dev is not zero-shot for the new model.
Needs ../shared/data (which questions offer a positive reference).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from collections.abc import Sequence
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import diagnose as dg  # the shipped model's diagnostics: the same measures

from qascore.meta.classification import auroc
from qascore.train.square import paired_auroc_diff

REFS = {"as-trained": "as trained (5 = 3+ / 2- as available)", "neg5": "5 negatives only",
        "pos5": "5 positives only", "none": "no reference"}
FILES = {
    "shipped": {"as-trained": dg.STUDY / "square.eval.json", "neg5": HERE.parent / "seed13/square-refs-neg_5.eval.json",
                "pos5": HERE.parent / "seed13/square-refs-pos_5.eval.json",
                "none": HERE.parent / "seed13/square-refs-pos_0_neg_0.eval.json"},
    "trec": {"as-trained": HERE / "square-trecqa.eval.json", "neg5": HERE / "square-trecqa-refs-neg_5.eval.json",
             "pos5": HERE / "square-trecqa-refs-pos_5.eval.json",
             "none": HERE / "square-trecqa-refs-pos_0_neg_0.eval.json"},
}
MODELS = {"shipped": "shipped SQuArE s13 (WikiQA train)", "trec": "SQuArE s13 + TREC-QA train"}
DATASETS = {"wikiqa-test": "WikiQA test", "trecqa-clean-dev": "TREC-QA clean-dev (not zero-shot for + TREC)"}
# (a, b, which targets' input changed): do the references of a (not in b) move correct targets up?
SHIFTS = [("pos5", "none", "pos", "5 positives vs none"), ("as-trained", "neg5", "pos", "3+/2- vs 5- (positives in place of negatives)"),
          ("neg5", "none", "neg", "5 negatives vs none")]
DIFFS = [("as-trained", "neg5"), ("pos5", "none"), ("neg5", "none"), ("as-trained", "none")]


def load(model: str, key: str) -> dict[str, Any]:
    return json.loads(FILES[model][key].read_text())


def direction(a: dict[str, Any], b: dict[str, Any], mask: np.ndarray, n_boot: int) -> tuple[float, float, float]:
    """AUROC of (score a - score b) vs the label on the masked targets, 95% CI resampling questions."""
    d = np.asarray(a["probs"]) - np.asarray(b["probs"])
    y = np.asarray(a["labels"])
    groups: dict[str, list[int]] = {}
    for i, tid in enumerate(a["ids"]):
        if mask[i]:
            groups.setdefault(tid.split("|", 1)[0], []).append(i)
    idx = list(groups.values())
    rng = np.random.default_rng(0)
    boots = []
    for _ in range(n_boot):
        pick = np.concatenate([idx[k] for k in rng.integers(0, len(idx), len(idx))])
        if 0 < y[pick].sum() < len(pick):
            boots.append(auroc(d[pick], y[pick]))
    lo, hi = np.percentile(boots, [2.5, 97.5])
    return auroc(d[mask], y[mask]), float(lo), float(hi)


def ci(v: tuple[float, float, float]) -> str:
    return f"{v[0]:+.3f} [{v[1]:+.3f}, {v[2]:+.3f}]"


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n-boot", type=int, default=1000)
    args = p.parse_args(argv)
    runs = {m: {k: load(m, k) for k in REFS} for m in MODELS}
    ev = {m: {k: r["eval"] for k, r in rs.items()} for m, rs in runs.items()}
    info = runs["trec"]["as-trained"]
    out = ["### Training inputs holding a Pos_Ref (+ TREC model)", "",
           ", ".join(f"{k} {v:.3f}" for k, v in info["extra_train"]["pos_ref_share"].items())
           + f"; {info['extra_train']['targets']} TREC-QA targets ({info['extra_train']['positives']} correct); "
           f"dev AUROC {info['train']['dev_auroc']:.3f}; kept epoch by dev F1: "
           f"{max(info['train']['history'], key=lambda h: h['dev_f1'])['epoch']}", ""]
    offered = {ds: dg.offers(ev["shipped"]["as-trained"][ds], ds) for ds in DATASETS}
    for ds, dlab in DATASETS.items():
        for m in MODELS:  # the same targets in every run, or the comparisons below are meaningless
            assert all(ev[m][k][ds]["ids"] == ev["shipped"]["as-trained"][ds]["ids"] for k in REFS)
        has = offered[ds]["pos"]
        out += [(f"### {dlab}: AUROC pooled / within-question (all targets; targets whose question offers "
                 f"a positive: {int(has.sum())})"), "",
                "| references | " + " | ".join(f"{MODELS[m]}: all | offers + " for m in MODELS) + " |",
                "|---|" + "---|" * 2 * len(MODELS)]
        for k, lab in REFS.items():
            cells = []
            for m in MODELS:
                e = ev[m][k][ds]
                cells += [f"{dg.auc(e):.3f} / {dg.within_question_auroc(e):.3f}",
                          f"{dg.auc(e, has):.3f} / {dg.within_question_auroc(e, has):.3f}"]
            out.append(f"| {lab} | " + " | ".join(cells) + " |")
        out += ["", f"Paired differences a - b (95% CI, questions resampled), {dlab}:", "",
                "| a - b | " + " | ".join(f"{MODELS[m]}: pooled | within" for m in MODELS) + " |",
                "|---|" + "---|" * 2 * len(MODELS)]
        for a, b in DIFFS:
            cells = []
            for m in MODELS:
                ea, eb = ev[m][a][ds], ev[m][b][ds]
                cells += [ci(paired_auroc_diff([ea], [eb], args.n_boot)),
                          ci(dg.paired_within_diff([ea], [eb], args.n_boot))]
            out.append(f"| {REFS[a]} - {REFS[b]} | " + " | ".join(cells) + " |")
        cells = [ci(paired_auroc_diff([ev["trec"]["as-trained"][ds]], [ev["shipped"]["as-trained"][ds]], args.n_boot)),
                 ci(dg.paired_within_diff([ev["trec"]["as-trained"][ds]], [ev["shipped"]["as-trained"][ds]],
                                          args.n_boot))]
        out.append(f"| + TREC model - shipped model (as trained) | {cells[0]} | {cells[1]} | | |")
        out += ["", (f"Direction of the reference effect, {dlab}: AUROC of (score a - score b) vs the gold "
                     "label on the targets whose input changed (> 0.5: correct targets move up), 95% CI:"), "",
                "| references added | targets | " + " | ".join(MODELS.values()) + " |", "|---|---|---|---|"]
        for a, b, kind, lab in SHIFTS:
            m_ = offered[ds][kind]
            cells = ["{:.3f} [{:.3f}, {:.3f}]".format(*direction(ev[m][a][ds], ev[m][b][ds], m_, args.n_boot))
                     for m in MODELS]
            out.append(f"| {lab} | {int(m_.sum())} | " + " | ".join(cells) + " |")
        out.append("")
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
