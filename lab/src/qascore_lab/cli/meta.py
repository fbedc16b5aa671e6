"""`qascore-lab meta --benchmark NAME`: the papers' human-judgment benchmarks read from ../shared/data.

    qascore-lab meta --benchmark kpqa --metric bleu1 --metric rougeL [--ci]

Everything `qascore meta` accepts works here too (an INPUT file is handed to it); the lab adds
`--benchmark`, `--data-root` and the rank-pair options. Tables print beside the paper's numbers.
"""

from __future__ import annotations

import argparse
import math
import sys
from typing import Any

from qascore import jsonio
from qascore.cli import meta as core
from qascore.cli.meta import (_NAN_NOTE, _SYMBOL, _cell, _check_compare, _compare_all, _methods,
                              _print_compare, _say, _Scorer)
from qascore.errors import UsageError
from qascore.meta.fields import human_scores
from qascore.meta.pairs import TIES
from qascore.progress import enabled as progress_enabled

from qascore_lab.meta import benchmarks as bm


def add_arguments(p: argparse.ArgumentParser) -> None:
    core.add_arguments(p)
    p.add_argument("--benchmark", "-b", choices=sorted(bm.BENCHMARKS),
                   help="a public benchmark instead of INPUT (reads ../shared/data or $QASCORE_DATA)")
    p.add_argument("--data-root", help="folder holding kpqa_human_eval/ etc. (benchmarks)")
    g = p.add_argument_group("rank-pair benchmarks (kpqa-pairs)")
    g.add_argument("--pair-by", choices=("key", "position"), default="key",
                   help="pair the two systems' answers by question (default) or by row position")
    g.add_argument("--min-gap", type=float, default=2.0, help="minimum human score gap of a kept pair")
    g.add_argument("--strict-gap", action="store_true", help="keep pairs with gap > min-gap (default >=)")
    g.add_argument("--ties", choices=TIES, default="miss", help="how a metric tie counts")


def run(args: argparse.Namespace) -> int:
    if not args.benchmark:
        return core.run(args)
    core.check_numbers(args)
    if args.html:
        raise UsageError("--html needs INPUT and --human (the report plots metrics against the human score)")
    if args.input:
        raise ValueError("give either INPUT or --benchmark, not both")
    return _run_benchmark(args)


def _run_benchmark(args: argparse.Namespace) -> int:
    if not args.metric and args.benchmark == "qgeval":
        from qascore_lab.meta.qgeval_benchmarks import DEFAULT_METRICS

        args.metric = list(DEFAULT_METRICS)
    if not args.metric:
        raise ValueError("give at least one --metric for a benchmark")
    if args.score_field:
        raise ValueError("--score-field applies to INPUT files, not to benchmarks")
    bench = bm.get(args.benchmark, root=args.data_root)
    if args.compare and bench.kind != "correlation":
        raise ValueError(f"--compare tests correlations; benchmark '{args.benchmark}' counts rank pairs")
    _check_compare(args, args.metric)
    if args.methods:
        bench.methods = _methods(args, bench.methods)
    ci = bool(args.ci)
    scorer = _Scorer()
    scores = bm.score_all(bench, args.metric, scorer, progress=_say if progress_enabled() else None)
    pair_options = {"pair_by": args.pair_by, "min_gap": args.min_gap, "inclusive": not args.strict_gap,
                    "ties": args.ties}
    rows = bm.evaluate(bench, scores, ci=ci, n_resamples=args.resamples, seed=args.seed, level=args.level,
                       pair_options=pair_options)
    compare: dict[str, list[dict]] = {}
    if args.compare:
        for ds, cols in scores.items():
            compare[ds] = _compare_all(human_scores(bench.datasets[ds], bench.human), cols, args)
    if args.format == "json":
        out: dict[str, Any] = {"benchmark": bench.name, "title": bench.title, "paper": bench.paper_label,
                               "rows": [r.as_dict() for r in rows], "signatures": scorer.signatures,
                               "notes": bench.notes}
        if bench.kind == "pairs":
            out["pair_options"] = pair_options
        if compare:
            out["compare"] = compare
        table = _dimension_table(bench, scores)
        if table is not None:
            out["dimensions"] = table
        jsonio.dump(out, sys.stdout, indent=2)
        print()
        return 0
    print(bench.title)
    if bench.paper_label:  # benchmarks without paper figures (qgeval) print no paper column
        print(f"(paper) = the number printed in {bench.paper_label}; '-' where the paper has none")
    if bench.kind == "correlation":
        _print_correlation_rows(bench, rows, ci, args)
    else:
        _print_pair_rows(bench, rows, pair_options)
    if any(math.isnan(c.value) for r in rows for c in r.correlations.values()):
        print(_NAN_NOTE)
    for ds, comp in compare.items():
        print(f"\n{bench.labels.get(ds, ds)}:")
        _print_compare(comp, "  ")
    table = _dimension_table(bench, scores)
    if table is not None:
        from qascore_lab.meta.qgeval_benchmarks import format_table

        print(f"\nPearson r with each human dimension ({len(bench.datasets['squad'])} rows; 'QGEval authors': "
              "metric_result.csv; per-dimension columns read for that dimension):")
        print(format_table(table))
    for note in bench.notes:
        print(f"note: {note}")
    for spec, sig in scorer.signatures.items():
        print(f"signature: {sig}")
    return 0


def _dimension_table(bench: bm.Benchmark, scores: dict[str, dict[str, Any]]) -> list[dict[str, Any]] | None:
    """QGEval: every metric against relevance, answerability and answer consistency, beside the shipped
    columns (None for other benchmarks, or records without those dimensions)."""
    from qascore_lab.meta import qgeval_benchmarks as qb

    records = bench.datasets.get("squad")
    if bench.name != "qgeval" or not records or not all(d in records[0].extra for d in qb.TABLE_DIMENSIONS):
        return None
    return qb.dimension_table(records, scores["squad"])


def _paper(v: float | None) -> str:
    return f"({v:.3f})" if v is not None else "(  -  )"


def _print_correlation_rows(bench: bm.Benchmark, rows: list[bm.Row], ci: bool, args: argparse.Namespace) -> None:
    if ci:
        print(f"[{args.level:.0%} percentile bootstrap CI, {args.resamples} resamples, seed {args.seed}]")
    dw = max(len(bench.labels.get(r.dataset, r.dataset)) for r in rows)
    mw = max(6, *(len(r.metric) for r in rows))
    cellw = 24 if ci else 7
    head = f"{'data set':<{dw}}  {'metric':<{mw}}  {'n':>5}"
    paper = bool(bench.paper_label)
    for m in bench.methods:
        head += f"  {_SYMBOL[m]:>{cellw}}" + (f" {'(paper)':>8}" if paper else "")
    print(head)
    last = None
    for r in rows:
        ds = bench.labels.get(r.dataset, r.dataset)
        line = f"{ds if ds != last else '':<{dw}}  {r.metric:<{mw}}  {r.n:>5}"
        last = ds
        for m in bench.methods:
            line += f"  {_cell(r.correlations[m], ci):>{cellw}}" + (f" {_paper(r.paper.get(m)):>8}" if paper else "")
        print(line)


def _print_pair_rows(bench: bm.Benchmark, rows: list[bm.Row], options: dict[str, Any]) -> None:
    rule = ">" if not options["inclusive"] else ">="
    print(f"[pairs by {options['pair_by']}; human gap {rule} {options['min_gap']:g}; metric ties: "
          f"{options['ties']}]")
    dw = max(len(bench.labels.get(r.dataset, r.dataset)) for r in rows)
    mw = max(6, *(len(r.metric) for r in rows))
    print(f"{'data set':<{dw}}  {'systems':<13}  {'metric':<{mw}}  {'pairs':>5}  {'ties':>4}  {'match %':>7}  "
          f"{'(paper)':>8}")
    for r in rows:
        assert r.pairs is not None
        a, b = bench.systems[r.dataset]
        paper = r.paper.get("match_percent")
        print(f"{bench.labels.get(r.dataset, r.dataset):<{dw}}  {a + '/' + b:<13}  {r.metric:<{mw}}  "
              f"{r.pairs.n_pairs:>5}  {r.pairs.n_metric_ties:>4}  {r.pairs.percent:7.2f}  "
              + (f"({paper:6.2f})" if paper is not None else "(   -  )"))
