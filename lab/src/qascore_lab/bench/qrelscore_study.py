"""QRelScore studies on public data: raw part scores once, then every variant and statistic from them.

    python -m qascore_lab.bench.qrelscore_study qgeval-raw --out DIR       # models run here (slow)
    python -m qascore_lab.bench.qrelscore_study qgeval-report --raw DIR    # correlations, CIs (fast)
    python -m qascore_lab.bench.qrelscore_study robustness-raw --out DIR   # perturbed SQuAD questions (slow)
    python -m qascore_lab.bench.qrelscore_study robustness-report --raw DIR

The raw pass keeps, for every QGEval row, eq. 4 per layer for several
(aggregation, weighting) variants and the two LM confidences per context chunk,
for the candidate against the passage and against the reference question;
the report derives LRM (any layers / p), GRG (relative / absolute),
QRelScore, Ref-QRelScore and correlates them with the seven human dimensions,
next to the QGEval authors' metric columns. Data stays in ../shared; results
go to DIR as JSON.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any, Sequence

import numpy as np

# The mover variant (Sinkhorn, 100 iterations per layer) is left out of the study runs: on a shared 2-core CPU it
# costs more than the forward pass; it stays available as the metric option agg="mover".
VARIANTS = (("max", "attention"), ("mean", "attention"), ("max", "argmax"), ("max", "none"))


def _engine(args: argparse.Namespace) -> Any:
    from qascore.metrics.qrelscore.engine import Engine
    from qascore.runtime import defaults

    return Engine(encoder=args.encoder or defaults.ENCODER, lm=args.lm or defaults.CAUSAL_LM, layers="all")


def raw_scores(engine: Any, questions: Sequence[str], contexts: Sequence[str], parts: str = "lrm,grg",
               log: Any = print) -> dict[str, Any]:
    """Per-layer x variant LRM and per-chunk LM confidences for (question, context) pairs."""
    out: dict[str, Any] = {"variants": [list(v) for v in VARIANTS]}
    if "lrm" in parts:
        t = time.time()
        out["lrm_layers"] = engine.lrm_layerwise(questions, contexts, variants=VARIANTS, layers="all").tolist()
        log(f"  LRM {len(questions)} pairs: {time.time() - t:.0f}s ({engine.stats})")
    if "grg" in parts:
        t = time.time()
        out["grg_conf"] = engine.grg_confidences(questions, contexts)
        log(f"  GRG {len(questions)} pairs: {time.time() - t:.0f}s ({engine.stats})")
    return out


def subset_by_passage(records: Sequence[Any], n_passages: int, seed: int) -> list[Any]:
    """All rows (every system) of `n_passages` passages drawn with `seed`, in file order."""
    import random

    passages = sorted({r.context for r in records})
    chosen = set(random.Random(seed).sample(passages, n_passages))
    return [r for r in records if r.context in chosen]


def qgeval_raw(args: argparse.Namespace) -> int:
    import torch

    from qascore_lab.datasets import qgeval

    torch.set_num_threads(args.threads)
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    records = qgeval.load(args.data)
    for ex in args.exclude or ():
        done = set(json.loads((Path(ex) / "qgeval_context.json").read_text())["ids"])
        gone = {r.context for r in records if r.id in done}
        records = [r for r in records if r.context not in gone]
    if args.shards > 1:
        keep = set(sorted({r.context for r in records})[args.shard::args.shards])
        records = [r for r in records if r.context in keep]
    if args.passages:
        records = subset_by_passage(records, args.passages, args.seed)
    if args.limit:
        records = records[:args.limit]
    print(f"[qgeval] {len(records)} rows", flush=True)
    engine = _engine(args)
    qs = [r.candidate for r in records]
    for name, ctx in (("context", [r.context for r in records]), ("reference", [r.references[0] for r in records])):
        print(f"[qgeval] candidate vs {name}", flush=True)
        raw = raw_scores(engine, qs, ctx, args.parts)
        raw.update(encoder=engine.encoder, lm=engine.lm, ids=[r.id for r in records])
        (out_dir / f"qgeval_{name}.json").write_text(json.dumps(raw))
    return 0


def robustness_raw(args: argparse.Namespace) -> int:
    """Original SQuAD v2 dev questions (seeded sample) and their perturbations, with raw parts and baselines."""
    import random

    import torch

    from qascore_lab.datasets import squad
    from qascore.metrics.registry import load
    from qascore_lab.text.perturb import KINDS, nlp, perturb

    torch.set_num_threads(args.threads)
    pool = [q for q in squad.load(root=args.data) if not q.is_impossible and q.question.strip()]
    rng = random.Random(args.seed)
    sample = rng.sample(pool, args.n)
    pipe = nlp()
    rows: list[dict[str, Any]] = []
    for i, q in enumerate(sample):
        rows.append({"group": i, "kind": "original", "question": q.question, "context": q.context, "label": 1})
        for kind in KINDS:
            neg = perturb(q.question, q.context, kind, random.Random(f"{args.seed}:{q.id}:{kind}"), pipe)
            if neg is not None:
                rows.append({"group": i, "kind": kind, "question": neg, "context": q.context, "label": 0})
    counts = {k: sum(r["kind"] == k for r in rows) for k in ("original", *KINDS)}
    print(f"[robustness] {args.n} questions -> {len(rows)} rows {counts}", flush=True)
    engine = _engine(args)
    qs, cs = [r["question"] for r in rows], [r["context"] for r in rows]
    raw = raw_scores(engine, qs, cs, args.parts)
    others: dict[str, list[float]] = {}
    recs = [{"candidate": r["question"], "references": [r["context"]]} for r in rows]
    for name in ("bleu4", "rougeL", "bertscore"):
        t = time.time()
        others[name] = load(name).score(recs).scores
        print(f"  {name} vs context: {time.time() - t:.0f}s", flush=True)
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    raw.update(rows=rows, others=others, encoder=engine.encoder, lm=engine.lm, seed=args.seed, n=args.n)
    (out_dir / "robustness.json").write_text(json.dumps(raw))
    return 0


def robustness_report(args: argparse.Namespace) -> int:
    from qascore.meta.classification import auroc
    from qascore.metrics.qrelscore import rescale
    from qascore.metrics.qrelscore.engine import Engine
    from qascore.runtime.causal_lm import causal_lm_id
    from qascore.runtime.encoder import model_id
    from qascore_lab.text.perturb import KINDS

    raw = json.loads((Path(args.raw) / "robustness.json").read_text())
    rows = raw["rows"]
    eng = Engine(encoder=raw["encoder"], lm=raw["lm"])
    b_lrm = rescale.lookup("lrm", model_id(raw["encoder"]), eng.lrm_config())
    b_grg = rescale.lookup("grg", causal_lm_id(raw["lm"]), eng.grg_config())
    lrm, grg = lrm_from_raw(raw), grg_from_raw(raw)
    scores = {"qrelscore": combine(lrm, grg, b_lrm, b_grg), "qrelscore-lrm": lrm, "qrelscore-grg": grg,
              "qrelscore-lrm[weighting=argmax]": lrm_from_raw(raw, ("max", "argmax"))}
    scores.update({f"{k} (vs context)": np.asarray(v) for k, v in raw["others"].items()})
    kinds = np.array([r["kind"] for r in rows])
    labels = np.array([r["label"] for r in rows])
    groups = np.array([r["group"] for r in rows])
    table: dict[str, dict[str, Any]] = {}
    for name, vals in scores.items():
        table[name] = {}
        for kind in (*KINDS, "all"):
            neg = kinds != "original" if kind == "all" else kinds == kind
            keep_groups = set(groups[neg])
            pos = (kinds == "original") & np.isin(groups, list(keep_groups))
            sel = pos | neg
            value = auroc(vals[sel], labels[sel]) if neg.any() else float("nan")
            table[name][kind] = {"auroc": value, "n_pos": int(pos.sum()), "n_neg": int(neg.sum())}
    result = {"n_questions": raw["n"], "seed": raw["seed"], "b_lrm": b_lrm, "b_grg": b_grg, "table": table}
    Path(args.out).write_text(json.dumps(result, indent=1))
    print(f"AUROC original (positive) vs perturbed (negative), {raw['n']} SQuAD v2 dev questions, seed {raw['seed']}")
    kinds_all = (*KINDS, "all")
    print(f"{'metric':34s} " + " ".join(f"{k:>16s}" for k in kinds_all))
    for name, row in table.items():
        print(f"{name:34s} " + " ".join(f"{row[k]['auroc']:.3f} ({row[k]['n_neg']:>3d} neg)".rjust(16) for k in kinds_all))
    return 0


# ---------------------------------------------------------------------------- derivations
def lrm_from_raw(raw: dict[str, Any], variant: tuple[str, str] = ("max", "attention"),
                 layers: Sequence[int] | None = None, p: float = 1.0) -> np.ndarray:
    from qascore.metrics.qrelscore.lrm import power_mean

    arr = np.asarray(raw["lrm_layers"])  # (N, L, V)
    v = [tuple(x) for x in raw["variants"]].index(tuple(variant))
    sel = arr[:, :, v] if layers is None else arr[:, list(layers), v]
    return power_mean(sel, p, axis=-1)


def grg_from_raw(raw: dict[str, Any], gain: str = "relative") -> np.ndarray:
    from qascore.metrics.qrelscore.grg import confidence_gain

    return np.array([np.mean([confidence_gain(pr, b, gain) for b, pr in chunks]) for chunks in raw["grg_conf"]])


def combine(lrm: np.ndarray, grg: np.ndarray, b_lrm: float | None, b_grg: float | None) -> np.ndarray:
    from qascore.metrics.qrelscore import harmonic_mean
    from qascore.metrics.qrelscore.rescale import apply

    return np.array([harmonic_mean(apply(a, b_lrm), apply(g, b_grg)) for a, g in zip(lrm, grg)])


def qgeval_report(args: argparse.Namespace) -> int:
    from qascore_lab.datasets import qgeval
    from qascore.meta.correlation import correlate_all
    from qascore.metrics.qrelscore import rescale
    from qascore.metrics.qrelscore.engine import Engine
    from qascore.metrics.qrelscore.lrm import select_layers
    from qascore.runtime.causal_lm import causal_lm_id
    from qascore.runtime.encoder import model_id

    ctx = _merged([Path(d) / "qgeval_context.json" for d in args.raw])
    ref = _merged([Path(d) / "qgeval_reference.json" for d in args.raw])
    by_id = {r.id: r for r in qgeval.load(args.data)}
    records = [by_id[i] for i in ctx["ids"]]
    eng = Engine(encoder=ctx["encoder"], lm=ctx["lm"])
    b_lrm = rescale.lookup("lrm", model_id(ctx["encoder"]), eng.lrm_config())
    b_grg = rescale.lookup("grg", causal_lm_id(ctx["lm"]), eng.grg_config())
    n_layers = np.asarray(ctx["lrm_layers"]).shape[1]
    scores: dict[str, np.ndarray] = {}
    lrm = lrm_from_raw(ctx)
    grg = grg_from_raw(ctx)
    scores["qrelscore"] = combine(lrm, grg, b_lrm, b_grg)
    scores["qrelscore-lrm"] = lrm
    scores["qrelscore-grg"] = grg
    scores["ref-qrelscore"] = 0.5 * (scores["qrelscore"] + combine(lrm_from_raw(ref), grg_from_raw(ref), b_lrm, b_grg))
    for group in ("first", "middle", "last", "specific"):
        scores[f"lrm[layers={group}]"] = lrm_from_raw(ctx, layers=select_layers(group, n_layers))
    for agg, w in ctx["variants"][1:]:  # variants after the paper's (max, attention)
        scores[f"lrm[agg={agg},weighting={w}]"] = lrm_from_raw(ctx, (agg, w))
    scores["lrm[p=2]"] = lrm_from_raw(ctx, p=2.0)
    scores["grg[gain=absolute]"] = grg_from_raw(ctx, "absolute")
    scores["qrelscore[weighting=argmax]"] = combine(lrm_from_raw(ctx, ("max", "argmax")), grg, None, b_grg)
    authors = sorted({k for r in records for k in r.extra if k.startswith("qgeval:")})
    for k in authors:
        scores[k] = np.array([r.extra.get(k, np.nan) for r in records], dtype=float)
    dims = qgeval.DIMENSIONS
    table: dict[str, dict[str, Any]] = {}
    for name, vals in scores.items():
        table[name] = {}
        for d in dims:
            human = np.array([r.extra[d] for r in records])
            ci = not name.startswith("qgeval:") or name == "qgeval:QRelScore"
            cors = correlate_all(human, vals, ("pearson", "spearman", "kendall"), ci=ci,
                                 n_resamples=args.resamples, seed=args.seed)
            table[name][d] = {m: c.as_dict() for m, c in cors.items()}
    from qascore.meta.compare import compare_correlations

    versus: dict[str, Any] = {}
    for name in ("qrelscore", "qrelscore-lrm", "qrelscore-grg", "ref-qrelscore"):
        for d in ("relevance", "answerability"):
            human = np.array([r.extra[d] for r in records])
            cmp = compare_correlations(human, scores[name], scores["qgeval:QRelScore"], "pearson", "bootstrap",
                                       n_resamples=args.resamples, seed=args.seed)
            versus[f"{name} vs qgeval:QRelScore on {d}"] = {
                "diff": cmp.diff, "ci_low": cmp.ci_low, "ci_high": cmp.ci_high, "p_value": cmp.p_value}
            print(f"  {name:15s} - authors' QRelScore, Pearson on {d:13s}: {cmp.diff:+.3f} "
                  f"[{cmp.ci_low:+.3f}, {cmp.ci_high:+.3f}] p={cmp.p_value:.3f}")
    result = {"n": len(records), "b_lrm": b_lrm, "b_grg": b_grg, "encoder": ctx["encoder"], "lm": ctx["lm"],
              "table": table, "versus_authors": versus}
    Path(args.out).write_text(json.dumps(result, indent=1))
    _print(result, dims)
    return 0


def _merged(paths: Sequence[Path]) -> dict[str, Any]:
    """Raw files of disjoint row sets (same models and variants) as one."""
    parts = [json.loads(p.read_text()) for p in paths]
    out = dict(parts[0])
    for other in parts[1:]:
        if (other["encoder"], other["lm"], other["variants"]) != (out["encoder"], out["lm"], out["variants"]):
            raise ValueError("raw files come from different models or variants")
        for key in ("ids", "lrm_layers", "grg_conf"):
            out[key] = out[key] + other[key]
    return out


def _print(result: dict[str, Any], dims: Sequence[str]) -> None:
    print(f"n={result['n']}  b_lrm={result['b_lrm']}  b_grg={result['b_grg']}")
    print(f"{'metric':38s} " + " ".join(f"{d[:11]:>17s}" for d in dims))
    for name, row in result["table"].items():
        cells = []
        for d in dims:
            c = row[d]
            cells.append(f"{c['pearson']['value']:+.3f}/{c['spearman']['value']:+.3f}/{c['kendall']['value']:+.3f}"[:17])
        print(f"{name[:38]:38s} " + " ".join(f"{x:>17s}" for x in cells))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m qascore_lab.bench.qrelscore_study", description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    a = sub.add_parser("qgeval-raw")
    a.add_argument("--out", required=True)
    a.add_argument("--data", default=None, help="data root holding qgeval_squad/ (default ../shared/data)")
    a.add_argument("--encoder", default=None)
    a.add_argument("--lm", default=None)
    a.add_argument("--parts", default="lrm,grg")
    a.add_argument("--limit", type=int, default=0)
    a.add_argument("--passages", type=int, default=0, help="use every row of this many passages (0: all 100)")
    a.add_argument("--seed", type=int, default=1)
    a.add_argument("--threads", type=int, default=1)
    a.add_argument("--exclude", action="append", help="raw DIR whose passages to leave out (repeatable)")
    a.add_argument("--shard", type=int, default=0, help="with --shards N: this process takes passages[shard::N]")
    a.add_argument("--shards", type=int, default=1)
    a.set_defaults(fn=qgeval_raw)
    b = sub.add_parser("qgeval-report")
    b.add_argument("--raw", required=True, action="append", help="raw DIR; repeat to pool disjoint runs")
    b.add_argument("--out", required=True)
    b.add_argument("--data", default=None)
    b.add_argument("--resamples", type=int, default=1000)
    b.add_argument("--seed", type=int, default=1)
    b.set_defaults(fn=qgeval_report)
    c = sub.add_parser("robustness-raw")
    c.add_argument("--out", required=True)
    c.add_argument("--data", default=None, help="data root holding squad_v2_dev/")
    c.add_argument("-n", "--n", type=int, default=300, help="original questions sampled")
    c.add_argument("--seed", type=int, default=1)
    c.add_argument("--encoder", default=None)
    c.add_argument("--lm", default=None)
    c.add_argument("--parts", default="lrm,grg")
    c.add_argument("--threads", type=int, default=1)
    c.set_defaults(fn=robustness_raw)
    d = sub.add_parser("robustness-report")
    d.add_argument("--raw", required=True)
    d.add_argument("--out", required=True)
    d.set_defaults(fn=robustness_report)
    args = p.parse_args(argv)
    return int(args.fn(args))


if __name__ == "__main__":
    sys.exit(main())
