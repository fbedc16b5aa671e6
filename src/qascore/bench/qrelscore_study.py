"""QRelScore studies on public data: raw part scores once, then every variant and statistic from them.

    python -m qascore.bench.qrelscore_study qgeval-raw --out DIR       # models run here (slow)
    python -m qascore.bench.qrelscore_study qgeval-report --raw DIR    # correlations, CIs (fast)

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

VARIANTS = (("max", "attention"), ("mean", "attention"), ("mover", "attention"), ("max", "argmax"), ("max", "none"))


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


def qgeval_raw(args: argparse.Namespace) -> int:
    import torch

    from qascore.datasets import qgeval

    torch.set_num_threads(args.threads)
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    records = qgeval.load(args.data)
    if args.limit:
        records = records[:args.limit]
    engine = _engine(args)
    qs = [r.candidate for r in records]
    for name, ctx in (("context", [r.context for r in records]), ("reference", [r.references[0] for r in records])):
        print(f"[qgeval] candidate vs {name}", flush=True)
        raw = raw_scores(engine, qs, ctx, args.parts)
        raw.update(encoder=engine.encoder, lm=engine.lm, ids=[r.id for r in records])
        (out_dir / f"qgeval_{name}.json").write_text(json.dumps(raw))
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
    from qascore.datasets import qgeval
    from qascore.meta.correlation import correlate_all
    from qascore.metrics.qrelscore import rescale
    from qascore.metrics.qrelscore.engine import Engine
    from qascore.metrics.qrelscore.lrm import select_layers
    from qascore.runtime.causal_lm import causal_lm_id
    from qascore.runtime.encoder import model_id

    raw_dir = Path(args.raw)
    ctx = json.loads((raw_dir / "qgeval_context.json").read_text())
    ref = json.loads((raw_dir / "qgeval_reference.json").read_text())
    records = qgeval.load(args.data)[:len(ctx["ids"])]
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
    for agg, w in ctx["variants"][1:]:
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
    result = {"n": len(records), "b_lrm": b_lrm, "b_grg": b_grg, "encoder": ctx["encoder"], "lm": ctx["lm"],
              "table": table}
    Path(args.out).write_text(json.dumps(result, indent=1))
    _print(result, dims)
    return 0


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
    p = argparse.ArgumentParser(prog="python -m qascore.bench.qrelscore_study", description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    a = sub.add_parser("qgeval-raw")
    a.add_argument("--out", required=True)
    a.add_argument("--data", default=None, help="data root holding qgeval_squad/ (default ../shared/data)")
    a.add_argument("--encoder", default=None)
    a.add_argument("--lm", default=None)
    a.add_argument("--parts", default="lrm,grg")
    a.add_argument("--limit", type=int, default=0)
    a.add_argument("--threads", type=int, default=1)
    a.set_defaults(fn=qgeval_raw)
    b = sub.add_parser("qgeval-report")
    b.add_argument("--raw", required=True)
    b.add_argument("--out", required=True)
    b.add_argument("--data", default=None)
    b.add_argument("--resamples", type=int, default=1000)
    b.add_argument("--seed", type=int, default=1)
    b.set_defaults(fn=qgeval_report)
    args = p.parse_args(argv)
    return int(args.fn(args))


if __name__ == "__main__":
    sys.exit(main())
