"""`qascore-lab train square`: train SQuArE (or one of its baselines) on WikiQA and evaluate it.

One run = one named configuration of `square_data.CONFIGS` (the paper's
SQuArE, its ablations and the AVA baselines), trained the same way: the same
seeded WikiQA-train targets, the same encoder, max_len, trained top layers,
epochs and learning rates, so only the input layout and references differ.
The model is the AVA helper's generic cross-encoder (`train.verifier`); only
the top layers + head are trained (lower layers frozen and cached), which is
what makes CPU training affordable, and what the saved delta holds.

Evaluation (`--eval`): accuracy (threshold tuned for accuracy on WikiQA dev),
AUROC and Pearson correlation of P(correct) with the gold labels, on WikiQA
test (in domain) and TREC-QA clean-dev (zero-shot: never trained on).

`--extra-train trecqa` (a diagnostic, never the shipped model) adds seeded
TREC-QA-train targets built by the same rules; TREC-QA clean-dev is then not
zero-shot, and the evaluation JSON says so.
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from qascore_lab.datasets import benchmark_dir
from qascore_lab.datasets.as2 import (
    EXTRA_TRAIN,
    AS2Question,
    read_extra_train,
    read_trecqa,
    read_wikiqa,
)
from qascore.meta.classification import auroc, binary_scores, tune_threshold
from qascore.meta.correlation import pearson
from qascore.runtime.square_layouts import layout_func
from qascore_lab.train.square_data import (
    CONFIGS,
    BuildStats,
    Config,
    RefSpec,
    build_examples,
    extra_examples,
    sample_targets,
    with_composition,
)

DEFAULT_DELTA = Path("runs") / "square" / "square.safetensors"

# Held-out sets: name -> (benchmark folder, reader, split). Targets are subsampled with EVAL_SEED
# (independent of the training seed) so every configuration is scored on the same targets.
SPLITS: dict[str, tuple[str, Callable[[Path, str], list[AS2Question]], str]] = {
    "wikiqa-train": ("wikiqa", read_wikiqa, "train"),
    "wikiqa-dev": ("wikiqa", read_wikiqa, "dev"),
    "wikiqa-test": ("wikiqa", read_wikiqa, "test"),
    "trecqa-clean-dev": ("trecqa", lambda root, split: read_trecqa(root / split), "clean-dev"),
}
HELD_OUT = ("wikiqa-dev", "wikiqa-test", "trecqa-clean-dev")  # an extra corpus must share no question
EVAL_SEED = 0


def load_split(name: str, root: str | None = None) -> list[AS2Question]:
    folder, reader, split = SPLITS[name]
    return reader(benchmark_dir(folder, root), split)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--config", default="square", choices=sorted(CONFIGS),
                   help="which model: square (default), its ablations, or an AVA baseline")
    p.add_argument("--out", default=None,
                   help=f"delta path (default: {DEFAULT_DELTA} for 'square', else runs/square/NAME.safetensors)")
    p.add_argument("--data-root", default=None, help="folder holding wikiqa/ and trecqa/ (default ../shared/data)")
    p.add_argument("--composition", default="blind", choices=("blind", "greedy"),
                   help="reference counts per question (blind, no label leak) or per target (greedy)")
    p.add_argument("--n-train", type=int, default=1200, help="WikiQA-train targets (subsample, seeded)")
    p.add_argument("--pos-fraction", type=float, default=0.3, help="share of correct targets in training")
    p.add_argument("--n-dev", type=int, default=200, help="WikiQA-dev targets for epoch choice and threshold")
    p.add_argument("--n-test", type=int, default=800, help="WikiQA-test targets evaluated (0 = all)")
    p.add_argument("--n-trec", type=int, default=700, help="TREC-QA clean-dev targets evaluated (0 = all)")
    p.add_argument("--extra-train", default=None, choices=sorted(EXTRA_TRAIN),
                   help="diagnostic: also train on this corpus's targets (same builder and sampling rules; "
                        "model named CONFIG-CORPUS; TREC-QA clean-dev then not zero-shot)")
    p.add_argument("--n-extra", type=int, default=1000, help="targets sampled from --extra-train (seeded)")
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--batch-size", type=int, default=16)
    p.add_argument("--lr", type=float, default=2e-4)
    p.add_argument("--head-lr", type=float, default=2e-3)
    p.add_argument("--max-len", type=int, default=128)
    p.add_argument("--train-layers", type=int, default=2, help="top encoder layers trained (rest frozen, cached)")
    p.add_argument("--seed", type=int, default=13)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--eval", action="store_true", help="evaluate on WikiQA test and TREC-QA clean-dev afterwards")
    p.add_argument("--eval-only", action="store_true", help="evaluate an existing --out delta, no training")
    p.add_argument("--eval-refs", default=None, metavar="SPEC",
                   help="evaluate with other references than the model was trained with: "
                        "'pos=N,neg=M' or 'total=A-B' (diagnostics; use with --eval-out)")
    p.add_argument("--eval-out", default=None, help="where to write the evaluation JSON (default: next to --out)")
    p.add_argument("--report", metavar="DIR", default=None,
                   help="print the paper's Tables 1, 2, 5 from the *.eval.json files in DIR (no training)")
    p.add_argument("--leak-check", action="store_true",
                   help="AUROC of 'fewer positive references = correct' under blind and greedy composition")


def _records(questions: list[AS2Question], cfg: Config, seed: int, targets: dict[str, list[int]] | None,
             log: Callable[[str], None], what: str, stats: BuildStats | None = None) -> tuple[list, list[int]]:
    stats = stats if stats is not None else BuildStats()
    ex = build_examples(questions, cfg.refs, seed=seed, targets=targets, stats=stats)
    log(f"{what}: {stats.summary()}")
    return [e.to_record() for e in ex], [e.label for e in ex]


def parse_refs(text: str, composition: str) -> RefSpec:
    """'pos=1,neg=4' or 'total=1-5' -> RefSpec."""
    kw: dict[str, Any] = {}
    for item in text.split(","):
        key, _, val = item.partition("=")
        key = key.strip()
        if key == "total":
            lo, _, hi = val.partition("-")
            kw["total"] = (int(lo), int(hi or lo))
        elif key in ("pos", "neg"):
            kw[key] = int(val)
        else:
            raise ValueError(f"--eval-refs: unknown item {item!r} (pos=N, neg=M, total=A-B)")
    return RefSpec(composition=composition, **kw)


def eval_targets(questions: list[AS2Question], n: int) -> dict[str, list[int]] | None:
    return sample_targets(questions, n, seed=EVAL_SEED) if n else None


def scores_summary(probs: np.ndarray, labels: Sequence[int], threshold: float) -> dict[str, Any]:
    """Table 1/2/5 columns: accuracy at the dev threshold, AUROC, Pearson r with the gold labels."""
    y = np.asarray(labels)
    return {"n": int(len(y)), "positives": int(y.sum()),
            "accuracy": binary_scores(probs, y, threshold).accuracy,
            "majority_accuracy": float(max(y.mean(), 1 - y.mean())),
            "auroc": auroc(probs, y), "pearson": pearson(probs, y.astype(float))[0]}


def evaluate(ver: Any, cfg: Config, args: argparse.Namespace, log: Callable[[str], None]) -> dict[str, Any]:
    """Score the held-out sets with the configuration's own reference composition."""
    out: dict[str, Any] = {}
    for name, n in (("wikiqa-test", args.n_test), ("trecqa-clean-dev", args.n_trec)):
        qs = load_split(name, args.data_root)
        recs, y = _records(qs, cfg, EVAL_SEED, eval_targets(qs, n), log, name)
        t0 = time.time()
        probs = ver.predict(recs)
        res = scores_summary(probs, y, ver.info.get("acc_threshold", 0.5))
        res["seconds"] = round(time.time() - t0, 1)
        log(f"{name}: " + ", ".join(f"{k} {v:.4f}" if isinstance(v, float) else f"{k} {v}" for k, v in res.items()))
        # per-target outputs, aligned across configurations (same seeded targets, same order),
        # for paired comparisons of two models
        res["ids"] = [f"{r.id}|{r.candidate[:40]}" for r in recs]
        res["labels"] = [int(v) for v in y]
        res["probs"] = [round(float(p), 6) for p in probs]
        out[name] = res
    return out


def pos_ref_share(stats: BuildStats) -> float:
    """Share of built inputs holding at least one positive reference."""
    return (stats.targets - stats.no_pos) / max(stats.targets, 1)


def extra_training(cfg: Config, args: argparse.Namespace, log: Callable[[str], None]
                   ) -> tuple[list, list[int], BuildStats]:
    """Records of the --extra-train corpus (refused if it shares a question with a held-out split)."""
    qs = read_extra_train(args.extra_train, args.data_root)
    held = {name: load_split(name, args.data_root) for name in HELD_OUT}
    stats = BuildStats()
    try:
        ex = extra_examples(qs, held, cfg.refs, name=args.extra_train, n=args.n_extra, seed=args.seed,
                            pos_fraction=args.pos_fraction, stats=stats)
    except ValueError as err:
        raise SystemExit(f"--extra-train {args.extra_train}: {err}") from err
    log(f"{args.extra_train} (extra): {stats.summary()}; no question shared with {', '.join(HELD_OUT)}")
    return [e.to_record() for e in ex], [e.label for e in ex], stats


def default_out(name: str) -> Path:
    return DEFAULT_DELTA if name == "square" else Path("runs") / "square" / f"{name}.safetensors"


# -- reports -------------------------------------------------------------------

# The paper's rows, in its order: (configuration, label, "# refs" column).
TABLE_ROWS = [("ava-tr", "AVA-TR", "1"), ("ava-qt", "AVA-QT", "0"), ("ava-tqr", "AVA-TQR", "1"),
              ("square", "SQuArE", "5")]
ABLATION_ROWS = [("ava-tqr-neg", "AVA-TQR(-)", "1"), ("square-pos", "SQuArE(+)", "5"),
                 ("square-3", "SQuArE", "3"), ("square-1to5", "SQuArE", "[1,5]"), ("square", "SQuArE", "5")]
SET_LABELS = {"wikiqa-test": "WikiQA test (in domain)", "trecqa-clean-dev": "TREC-QA clean-dev (zero-shot)"}


def paired_auroc_diff(a: Sequence[dict[str, Any]], b: Sequence[dict[str, Any]], n_boot: int = 1000,
                      seed: int = 0) -> tuple[float, float, float]:
    """Mean over runs k of AUROC(a[k]) - AUROC(b[k]), all on the same targets, with a 95% CI from
    resampling *questions* (targets of one question are not independent). One run per side is the
    single-seed comparison; several (a[k], b[k] = one training seed) give the seed-mean difference."""
    first = a[0]
    if any(e["ids"] != first["ids"] or e["labels"] != first["labels"] for e in (*a, *b)):
        raise ValueError("the evaluations are not on the same targets")
    y = np.asarray(first["labels"])
    pa = [np.asarray(e["probs"]) for e in a]
    pb = [np.asarray(e["probs"]) for e in b]
    groups: dict[str, list[int]] = {}
    for i, tid in enumerate(first["ids"]):
        groups.setdefault(tid.split("|", 1)[0], []).append(i)
    idx = list(groups.values())
    rng = np.random.default_rng(seed)
    diffs = []
    for _ in range(n_boot):
        pick = np.concatenate([idx[k] for k in rng.integers(0, len(idx), len(idx))])
        if 0 < y[pick].sum() < len(pick):
            diffs.append(np.mean([auroc(p[pick], y[pick]) - auroc(q[pick], y[pick]) for p, q in zip(pa, pb)]))
    lo, hi = np.percentile(diffs, [2.5, 97.5]) if diffs else (float("nan"), float("nan"))
    mean = float(np.mean([auroc(p, y) - auroc(q, y) for p, q in zip(pa, pb)]))
    return mean, float(lo), float(hi)


def report(results_dir: str | Path) -> str:
    """Markdown tables in the layout of the paper's Tables 1/2 and 5, from saved evaluations."""
    res = {}
    for path in sorted(Path(results_dir).glob("*.eval.json")):
        d = json.loads(path.read_text())
        res[d["config"]] = d
    lines: list[str] = []
    for title, rows in (("Tables 1/2: SQuArE vs the AVA baselines", TABLE_ROWS),
                        ("Table 5: ablations", ABLATION_ROWS)):
        lines += [f"### {title}", "", "| data set | technique | # refs | accuracy | AUROC | Pearson r |",
                  "|---|---|---|---|---|---|"]
        for ds, label in SET_LABELS.items():
            for name, tech, refs in rows:
                if name not in res or ds not in res[name]["eval"]:
                    lines.append(f"| {label} | {tech} | {refs} | (not run) | | |")
                    continue
                e = res[name]["eval"][ds]
                lines.append(f"| {label} | {tech} | {refs} | {e['accuracy']:.3f} | {e['auroc']:.3f} | "
                             f"{e['pearson']:.3f} |")
        lines.append("")
    if "square" in res:
        lines += ["### AUROC difference, SQuArE minus each other model (95% CI, questions resampled)", "",
                  "| model | " + " | ".join(SET_LABELS.values()) + " |", "|---|---|---|"]
        for name, tech, refs in TABLE_ROWS[:3] + ABLATION_ROWS[:4]:
            if name not in res:
                continue
            cells = []
            for ds in SET_LABELS:
                d, lo, hi = paired_auroc_diff([res["square"]["eval"][ds]], [res[name]["eval"][ds]])
                cells.append(f"{d:+.3f} [{lo:+.3f}, {hi:+.3f}]")
            lines.append(f"| {tech} ({refs}) | " + " | ".join(cells) + " |")
        lines.append("")
        first = next(iter(res.values()))["eval"]
        lines.append("Majority-class accuracy: " + ", ".join(
            f"{SET_LABELS[ds]} {first[ds]['majority_accuracy']:.3f} (n={first[ds]['n']}, "
            f"{first[ds]['positives']} correct)" for ds in SET_LABELS if ds in first))
    return "\n".join(lines)


def leak_check(data_root: str | None, n_test: int, n_trec: int) -> str:
    """How much the reference counts alone reveal: AUROC of -n_pos (no model)."""
    lines = ["| data set | composition | AUROC of 'fewer positive references = correct' |", "|---|---|---|"]
    for name, n in (("wikiqa-test", n_test), ("trecqa-clean-dev", n_trec)):
        qs = load_split(name, data_root)
        for comp in ("blind", "greedy"):
            cfg = with_composition(CONFIGS["square"], comp)
            ex = build_examples(qs, cfg.refs, seed=EVAL_SEED, targets=eval_targets(qs, n))
            score = [-len(e.positives) for e in ex]
            lines.append(f"| {name} | {comp} | {auroc(score, [e.label for e in ex]):.3f} |")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    import torch

    if args.report:
        print(report(args.report))
        return 0
    if args.leak_check:
        print(leak_check(args.data_root, args.n_test, args.n_trec))
        return 0

    from qascore.runtime.verifier import Verifier, VerifierSpec
    from qascore_lab.train.verifier import TrainConfig, train

    torch.set_num_threads(args.threads)
    cfg = with_composition(CONFIGS[args.config], args.composition)
    name = f"{cfg.name}-{args.extra_train}" if args.extra_train else cfg.name
    out = Path(args.out) if args.out else default_out(name)
    out.parent.mkdir(parents=True, exist_ok=True)
    log_lines: list[str] = []

    def log(msg: str) -> None:
        line = f"[{time.strftime('%H:%M:%S')}] {msg}"
        print(line, flush=True)
        log_lines.append(line)

    layout = layout_func(cfg.layout)
    if args.eval_only:
        ver = Verifier.load(out, layout, layout_name=cfg.layout)
    else:
        log(f"config {cfg.name}: layout {cfg.layout}, refs {asdict(cfg.refs)}")
        train_qs = load_split("wikiqa-train", args.data_root)
        dev_qs = load_split("wikiqa-dev", args.data_root)
        tr_targets = sample_targets(train_qs, args.n_train, seed=args.seed, pos_fraction=args.pos_fraction)
        wstats = BuildStats()
        recs, y = _records(train_qs, cfg, args.seed, tr_targets, log, "wikiqa-train", wstats)
        extra_info: dict[str, Any] = {}
        if args.extra_train:
            xrecs, xy, xstats = extra_training(cfg, args, log)
            recs, y = recs + xrecs, y + xy
            both = BuildStats(targets=wstats.targets + xstats.targets, no_pos=wstats.no_pos + xstats.no_pos)
            extra_info = {"extra_train": {"corpus": args.extra_train, "n_extra": args.n_extra,
                                          "checked_disjoint_from": list(HELD_OUT),
                                          "targets": xstats.targets, "positives": sum(xy),
                                          "pos_ref_share": {"wikiqa-train": pos_ref_share(wstats),
                                                            args.extra_train: pos_ref_share(xstats),
                                                            "all": pos_ref_share(both)}}}
            log("training inputs holding a Pos_Ref: " + ", ".join(
                f"{k} {v:.3f}" for k, v in extra_info["extra_train"]["pos_ref_share"].items()))
        dev_recs, dev_y = _records(dev_qs, cfg, EVAL_SEED, eval_targets(dev_qs, args.n_dev), log, "wikiqa-dev")
        spec = VerifierSpec(layout=cfg.layout, n_views=1, max_len=args.max_len, train_layers=args.train_layers)
        tcfg = TrainConfig(epochs=args.epochs, batch_size=args.batch_size, lr=args.lr, head_lr=args.head_lr,
                           seed=args.seed, threads=args.threads,
                           extra={"config": cfg.name, "refs": asdict(cfg.refs), "n_train": args.n_train,
                                  "pos_fraction": args.pos_fraction, "n_dev": args.n_dev, "data": "WikiQA-train",
                                  **extra_info})
        t0 = time.time()
        ver = train(spec, layout, recs, y, tcfg, dev=(dev_recs, dev_y), log=log)
        dev_p = ver.predict(dev_recs)
        ver.info["acc_threshold"] = tune_threshold(dev_p, dev_y, "accuracy")
        ver.info["dev_auroc"] = auroc(dev_p, dev_y)
        ver.info["train_seconds"] = round(time.time() - t0, 1)
        ver.info["square_config"] = cfg.name
        ver.save(out)
        log(f"saved {out} ({out.stat().st_size / 1e6:.2f} MB); dev AUROC {ver.info['dev_auroc']:.4f}, "
            f"accuracy threshold {ver.info['acc_threshold']:.3f}; {ver.info['train_seconds']}s")
    if args.eval or args.eval_only:
        t0 = time.time()
        if args.eval_refs:
            cfg = Config(cfg.name, cfg.layout, parse_refs(args.eval_refs, args.composition))
            log(f"evaluating with references {asdict(cfg.refs)} (not those of training)")
        results = {"config": cfg.name, "layout": cfg.layout, "refs": asdict(cfg.refs), "delta": str(out),
                   "train": {k: ver.info.get(k) for k in ("train_seconds", "dev_auroc", "acc_threshold",
                                                            "train_examples", "train_positives", "history")},
                   "eval": evaluate(ver, cfg, args, log), "eval_seconds": 0.0}
        extra = ver.info.get("config", {}).get("extra", {}).get("extra_train")
        if extra:
            results["extra_train"] = extra
            if extra["corpus"] == "trecqa":
                results["eval"]["trecqa-clean-dev"]["zero_shot"] = False
                results["eval"]["trecqa-clean-dev"]["note"] = "not zero-shot: TREC-QA train was in the training data"
        results["eval_seconds"] = round(time.time() - t0, 1)
        path = Path(args.eval_out) if args.eval_out else out.with_suffix(".eval.json")
        path.write_text(json.dumps(results, indent=2) + "\n")
        log(f"wrote {path}")
    return 0
