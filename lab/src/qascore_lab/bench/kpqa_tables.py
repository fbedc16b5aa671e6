"""The KPQA paper's Tables 3, 4, 6 and 7 in one process: each metric scored once per data set.

    python -m qascore_lab.bench.kpqa_tables [--out lab/results/kpqa_tables/kpqa_tables.json] [--no-meteor] [--tagger DELTA]

`qascore-lab meta --benchmark kpqa|kpqa-ablation|kpqa-multi|kpqa-pairs` computes the
same statistics (one --compare per call); this runner reuses the scores for
every table and tests each KPQA metric against its base (Williams one-sided
test and paired bootstrap, Pearson), then prints markdown tables with the
paper's numbers beside ours.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

import numpy as np

from qascore_lab.meta import benchmarks as bm
from qascore.meta.compare import compare_correlations
from qascore.metrics.registry import load

BASES = ("bleu1", "rougeL", "bertscore")
LEXICAL = ("bleu1", "bleu4", "rougeL", "meteor", "cider")


def _scorer(opts: dict[str, dict[str, Any]]):
    cache: dict[str, Any] = {}
    signatures: dict[str, str] = {}

    def score(spec: str, records: list) -> list[float]:
        if spec not in cache:
            cache[spec] = load(spec, **opts.get(spec, {}))
        res = cache[spec].score(records)
        signatures[spec] = res.signature
        return res.scores

    return score, signatures


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", help="write every figure as JSON here")
    p.add_argument("--no-meteor", action="store_true", help="skip METEOR (Java)")
    p.add_argument("--tagger", help="KPQA tagger delta (default: shipped)")
    p.add_argument("--kp-tagger", help="-KP tagger delta (default: shipped)")
    p.add_argument("--resamples", type=int, default=1000)
    p.add_argument("--quick", action="store_true",
                   help="only BLEU-1, ROUGE-L, BERTScore and their KPQA versions; no Table 4")
    p.add_argument("--data-root")
    args = p.parse_args(argv)

    lexical = [m for m in LEXICAL if not (args.no_meteor and m == "meteor")]
    if args.quick:
        lexical = ["bleu1", "rougeL"]
    kpqa_metrics = ["kpqa-bleu1", "kpqa-rougeL", "kpqa-bertscore"]
    kp_metrics = ["kp-bleu1", "kp-rougeL", "kp-bertscore"]
    opts: dict[str, dict[str, Any]] = {}
    for m in kpqa_metrics:
        if args.tagger:
            opts[m] = {"tagger": args.tagger}
    for m in kp_metrics:
        if args.kp_tagger:
            opts[m] = {"tagger": args.kp_tagger}
    score, signatures = _scorer(opts)
    say = lambda msg: print(msg, file=sys.stderr, flush=True)  # noqa: E731
    t0 = time.time()

    out: dict[str, Any] = {"tables": {}}
    t3 = bm.get("kpqa", root=args.data_root)
    scores3 = bm.score_all(t3, [*lexical, "bertscore", *kpqa_metrics], score, progress=say)
    out["tables"]["table3"] = _correlations(t3, scores3, args.resamples)

    if not args.quick:
        _table4(args, out, scores3, score, say, kpqa_metrics, kp_metrics)
    _rest(args, out, scores3, score, say, kpqa_metrics)
    out["signatures"] = signatures
    out["seconds"] = round(time.time() - t0, 1)
    for name, table in out["tables"].items():
        print(markdown(name, table))
    if args.out:
        with open(args.out, "w", encoding="utf-8") as fh:
            json.dump(out, fh, indent=1, sort_keys=True, default=float)
            fh.write("\n")
    for spec, sig in signatures.items():
        print(f"signature {spec}: {sig}")
    return 0


def _table4(args: argparse.Namespace, out: dict[str, Any], scores3: dict[str, dict[str, np.ndarray]], score: Any,
            say: Any, kpqa_metrics: list[str], kp_metrics: list[str]) -> None:
    t4 = bm.get("kpqa-ablation", root=args.data_root)
    scores4 = {"marco": dict(scores3["marco"])}
    scores4["marco"].update(bm.score_all(t4, kp_metrics, score, progress=say)["marco"])
    out["tables"]["table4"] = _correlations(t4, {"marco": {m: scores4["marco"][m] for m in
                                                         [*BASES, *kpqa_metrics, *kp_metrics]}},
                                            args.resamples, pairs=(("kpqa-bleu1", "kp-bleu1"),
                                                                   ("kpqa-rougeL", "kp-rougeL"),
                                                                   ("kpqa-bertscore", "kp-bertscore"),
                                                                   *zip(kp_metrics, BASES)))


def _rest(args: argparse.Namespace, out: dict[str, Any], scores3: dict[str, dict[str, np.ndarray]], score: Any,
          say: Any, kpqa_metrics: list[str]) -> None:
    t6 = bm.get("kpqa-multi", root=args.data_root)
    scores6 = bm.score_all(t6, [*BASES, *kpqa_metrics], score, progress=say)
    out["tables"]["table6"] = _correlations(t6, scores6, args.resamples)

    t7 = bm.get("kpqa-pairs", root=args.data_root)
    scores7 = {ds: {m: scores3[ds][m] for m in [*BASES, *kpqa_metrics]} for ds in t7.datasets}
    rows7 = bm.evaluate(t7, scores7, pair_options={"pair_by": "key", "min_gap": 2.0, "inclusive": True,
                                                   "ties": "miss"})
    out["tables"]["table7"] = {"rows": [r.as_dict() for r in rows7], "paper": t7.paper}


def _correlations(bench: bm.Benchmark, scores: dict[str, dict[str, np.ndarray]], resamples: int,
                  pairs: tuple[tuple[str, str], ...] = tuple(zip(("kpqa-bleu1", "kpqa-rougeL", "kpqa-bertscore"),
                                                                   BASES))) -> dict[str, Any]:
    rows = bm.evaluate(bench, scores, ci=True, n_resamples=resamples)
    tests = []
    for ds, cols in scores.items():
        human = bm.human_scores(bench.datasets[ds], bench.human)
        for a, b in pairs:
            if a in cols and b in cols:
                for test in ("williams", "bootstrap"):
                    c = compare_correlations(human, cols[a], cols[b], "pearson", test, n_resamples=resamples)
                    tests.append({"dataset": ds, "a": a, "b": b, **c.as_dict()})
    return {"rows": [r.as_dict() for r in rows], "compare": tests, "paper": bench.paper,
            "datasets": list(scores)}


def markdown(name: str, table: dict[str, Any]) -> str:
    lines = [f"### {name}", ""]
    rows = table["rows"]
    if name == "table7":
        sets = list(dict.fromkeys(r["dataset"] for r in rows))
        lines.append("| metric | " + " | ".join(f"{s} % (n pairs)" for s in sets) + " |")
        lines.append("|---|" + "---|" * len(sets))
        for m in dict.fromkeys(r["metric"] for r in rows):
            cells = []
            for s in sets:
                r = next(x for x in rows if x["metric"] == m and x["dataset"] == s)
                paper = table["paper"].get(m, {}).get(s, {})
                pp = f" (paper {paper.get('match_percent', float('nan')):.2f})" if paper else ""
                cells.append(f"{r['pairs']['percent']:.2f} ({r['n']}){pp}")
            lines.append(f"| {m} | " + " | ".join(cells) + " |")
        return "\n".join(lines) + "\n"
    sets = table["datasets"]
    lines.append("| metric | " + " | ".join(f"{s} r [95% CI] | {s} rho" for s in sets) + " |")
    lines.append("|---|" + "---|---|" * len(sets))
    for m in dict.fromkeys(r["metric"] for r in rows):
        cells = []
        for s in sets:
            r = next(x for x in rows if x["metric"] == m and x["dataset"] == s)
            pe, sp = r["correlations"]["pearson"], r["correlations"]["spearman"]
            paper = r.get("paper") or {}
            ppe = f" ({paper['pearson']:.3f})" if "pearson" in paper else ""
            psp = f" ({paper['spearman']:.3f})" if "spearman" in paper else ""
            cells.append(f"{pe['value']:.3f} [{pe['ci_low']:.3f}, {pe['ci_high']:.3f}]{ppe}")
            cells.append(f"{sp['value']:.3f}{psp}")
        lines.append(f"| {m} | " + " | ".join(cells) + " |")
    lines.append("")
    lines.append("Paper values in parentheses. Gain tests (Pearson, one-sided, A > B):")
    lines.append("")
    lines.append("| data set | A | B | r_A | r_B | diff | Williams p | bootstrap p | bootstrap CI of diff |")
    lines.append("|---|---|---|---|---|---|---|---|---|")
    by = {}
    for c in table["compare"]:
        by.setdefault((c["dataset"], c["a"], c["b"]), {})[c["test"]] = c
    for (ds, a, b), t in by.items():
        w, bs = t["williams"], t["bootstrap"]
        lines.append(f"| {ds} | {a} | {b} | {w['r_a']:.3f} | {w['r_b']:.3f} | {w['diff']:+.3f} | "
                     f"{w['p_value']:.2g} | {bs['p_value']:.2g} | [{bs['ci_low']:.3f}, {bs['ci_high']:.3f}] |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
