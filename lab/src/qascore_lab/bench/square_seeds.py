"""SQuArE seed study: AUROC per training seed, mean +- sd, and the paper's orderings checked per seed.

    python -m qascore_lab.bench.square_seeds 13=lab/results/square 14=lab/results/square/seed14 \
        15=lab/results/square/seed15 [--n-boot 1000]

Reads the `*.eval.json` files that `qascore-lab train square --eval` writes (one folder
per seed; every model is evaluated on the same seeded targets) and prints markdown.
One seed per model cannot separate two models whose AUROCs differ by less than the
seed-to-seed spread, so each ordering is reported three ways: on the seed means, seed
by seed (paired: same seed, same targets), and as a 95% CI of the seed-mean difference
from resampling *questions* (test-set noise only; the per-seed column shows training noise).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from qascore.meta.classification import auroc
from qascore_lab.train.square import paired_auroc_diff

DATASETS = {"wikiqa-test": "WikiQA test", "trecqa-clean-dev": "TREC-QA clean-dev"}
NAMES = {"square": "SQuArE (5)", "ava-qt": "AVA-QT", "ava-tqr": "AVA-TQR", "ava-tr": "AVA-TR",
         "ava-tqr-neg": "AVA-TQR(-)", "square-pos": "SQuArE(+)", "square-3": "SQuArE (3)",
         "square-1to5": "SQuArE [1,5]"}
# The must-show orderings: (better, worse) in AUROC.
ORDERINGS = [("square", "ava-tqr"), ("square", "ava-qt"), ("square", "ava-tr"), ("ava-tqr-neg", "ava-qt"),
             ("square", "square-pos"), ("square", "square-3")]

Runs = dict[str, dict[int, dict[str, Any]]]  # config -> seed -> eval JSON


def load_runs(dirs: Mapping[int, str | Path]) -> Runs:
    """Every `*.eval.json` under each seed's folder (not recursive), by config and seed."""
    runs: Runs = {}
    for seed, folder in dirs.items():
        for path in sorted(Path(folder).glob("*.eval.json")):
            d = json.loads(path.read_text())
            runs.setdefault(d["config"], {})[seed] = d
    return runs


def mean_sd(values: Sequence[float]) -> tuple[float, float]:
    """Mean and sample standard deviation (n-1); sd is nan for a single value."""
    return statistics.fmean(values), (statistics.stdev(values) if len(values) > 1 else float("nan"))


@dataclass(frozen=True)
class Ordering:
    better: str
    worse: str
    dataset: str
    seeds: tuple[int, ...]       # seeds where both models ran
    diffs: tuple[float, ...]     # AUROC(better) - AUROC(worse), per seed
    ci: tuple[float, float]      # 95% CI of the seed-mean difference, questions resampled

    @property
    def mean(self) -> float:
        return statistics.fmean(self.diffs)

    @property
    def holds_on_mean(self) -> bool:
        return self.mean > 0

    @property
    def seeds_holding(self) -> int:
        return sum(d > 0 for d in self.diffs)


def ordering(runs: Runs, better: str, worse: str, dataset: str, n_boot: int = 1000, seed: int = 0) -> Ordering:
    """Paired per-seed AUROC differences and a question-bootstrap CI of their mean."""
    seeds = tuple(s for s in sorted(runs.get(better, {})) if s in runs.get(worse, {}))
    if not seeds:
        raise ValueError(f"no seed where both {better} and {worse} ran")
    a = [runs[better][s]["eval"][dataset] for s in seeds]
    b = [runs[worse][s]["eval"][dataset] for s in seeds]
    _, lo, hi = paired_auroc_diff(a, b, n_boot, seed)
    y = np.asarray(a[0]["labels"])
    diffs = tuple(auroc(np.asarray(p["probs"]), y) - auroc(np.asarray(q["probs"]), y) for p, q in zip(a, b))
    return Ordering(better, worse, dataset, seeds, diffs, (lo, hi))


def kept_epoch(history: Sequence[Mapping[str, float]]) -> int:
    """The epoch the verifier kept: the first with the highest dev F1 (strict improvement rule)."""
    best = max(h["dev_f1"] for h in history)
    return int(next(h["epoch"] for h in history if h["dev_f1"] == best))


def report(runs: Runs, n_boot: int = 1000) -> str:
    seeds = sorted({s for by_seed in runs.values() for s in by_seed})
    head = " | ".join(f"{DATASETS[ds]} s{s}" for ds in DATASETS for s in seeds)
    means = " | ".join(f"{DATASETS[ds]} mean ± sd" for ds in DATASETS)
    lines = ["### AUROC per seed", "", f"| model | {head} | {means} |",
             "|---|" + "---|" * (len(seeds) * len(DATASETS) + len(DATASETS))]
    for cfg, name in NAMES.items():
        if cfg not in runs:
            continue
        cells, stats = [], []
        for ds in DATASETS:
            vals = []
            for s in seeds:
                e = runs[cfg].get(s)
                cells.append(f"{e['eval'][ds]['auroc']:.3f}" if e else "(not run)")
                if e:
                    vals.append(e["eval"][ds]["auroc"])
            m, sd = mean_sd(vals)
            stats.append(f"{m:.3f} ± {sd:.3f} (n={len(vals)})")
        lines.append(f"| {name} | " + " | ".join(cells + stats) + " |")
    lines += ["", "### Orderings (AUROC difference, better minus worse)", "",
              "| ordering | data set | per-seed differences | mean | holds on mean | seeds where it holds | "
              "95% CI of mean (questions resampled) |", "|---|---|---|---|---|---|---|"]
    for better, worse in ORDERINGS:
        if better not in runs or worse not in runs:
            continue
        for ds in DATASETS:
            o = ordering(runs, better, worse, ds, n_boot)
            per = ", ".join(f"s{s} {d:+.3f}" for s, d in zip(o.seeds, o.diffs))
            lines.append(f"| {NAMES[better]} > {NAMES[worse]} | {DATASETS[ds]} | {per} | {o.mean:+.3f} | "
                         f"{'yes' if o.holds_on_mean else 'no'} | {o.seeds_holding}/{len(o.seeds)} | "
                         f"[{o.ci[0]:+.3f}, {o.ci[1]:+.3f}] |")
    lines += ["", "### Training runs (kept epoch by dev F1; train + eval wall s)", "",
              "| model | " + " | ".join(f"s{s}" for s in seeds) + " |", "|---|" + "---|" * len(seeds)]
    for cfg, name in NAMES.items():
        if cfg not in runs:
            continue
        cells = []
        for s in seeds:
            e = runs[cfg].get(s)
            cells.append(f"epoch {kept_epoch(e['train']['history'])}, {e['train']['train_seconds']:.0f} + "
                         f"{e['eval_seconds']:.0f} s" if e else "(not run)")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _seed_dir(text: str) -> tuple[int, str]:
    seed, sep, folder = text.partition("=")
    if not sep or not seed.isdigit():
        raise argparse.ArgumentTypeError(f"expected SEED=FOLDER, got {text!r}")
    return int(seed), folder


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m qascore_lab.bench.square_seeds", description=__doc__.splitlines()[0])
    p.add_argument("dirs", nargs="+", type=_seed_dir, help="SEED=FOLDER of *.eval.json files")
    p.add_argument("--n-boot", type=int, default=1000)
    args = p.parse_args(argv)
    print(report(load_runs(dict(args.dirs)), args.n_boot))
    return 0


if __name__ == "__main__":
    sys.exit(main())
