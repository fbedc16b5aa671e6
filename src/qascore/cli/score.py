"""`qascore score INPUT --metric NAME ...`: per-record scores out, corpus scores printed.

The steps are small functions so that other input/output modes can reuse them:
metrics are loaded (options checked) and the output path is checked before
anything is read or scored; the output file appears only when complete.
"""

from __future__ import annotations

import argparse
import sys
from typing import IO, Any, Sequence

from qascore import jsonio
from qascore.cli.options import load_metric
from qascore.cli.output import STDOUT, check_writable, write_whole
from qascore.errors import UsageError
from qascore.metrics.base import Metric, MetricResult
from qascore.records import FORMATS, Record, check_unique_ids, dump_jsonl, parse_mapping, read_records


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("input", help="JSONL (canonical), CSV or TSV file of records; - reads standard input "
                                 "(JSONL unless --input-format says otherwise)")
    p.add_argument("--metric", "-m", action="append", required=True,
                   help="metric name, optionally with options: NAME[:key=value,...]; repeatable "
                        "(`qascore list NAME` shows the options)")
    p.add_argument("--output", "-o", help="write every record back with `scores` (and `details`) as JSONL; "
                                          "- writes standard output (the corpus table then goes to stderr)")
    p.add_argument("--format", choices=("table", "json"), default="table", help="how to print corpus scores")
    p.add_argument("--map", action="append", metavar="FIELD=COLUMN",
                   help="column mapping, e.g. candidate=answer or references=reference*; repeatable")
    p.add_argument("--input-format", choices=FORMATS, help="override the file extension")
    p.add_argument("--strict", action="store_true", help="repeated record ids are an error (default: a warning)")


def run(args: argparse.Namespace) -> int:
    metrics = load_metrics(args.metric)
    check_writable(args.output)
    records = read_records(args.input, mapping=parse_mapping(args.map), fmt=args.input_format)
    check_unique_ids(records, strict=args.strict)
    results = score_all(metrics, records)
    if args.output:
        write_whole(args.output, lambda fh: dump_jsonl(scored_rows(records, results), fh))
    print_corpus(results, len(records), args.format, sys.stderr if args.output == STDOUT else sys.stdout)
    return 0


def load_metrics(specs: Sequence[str]) -> list[tuple[str, Metric]]:
    """(label, metric) per -m; a metric asked for twice with different options is labelled by its full spec."""
    names = [spec.partition(":")[0].strip() for spec in specs]
    labels = [spec if names.count(name) > 1 else name for spec, name in zip(specs, names)]
    if len(set(labels)) != len(labels):
        raise UsageError("the same metric spec is given twice")
    return [(label, load_metric(spec)) for label, spec in zip(labels, specs)]


def score_all(metrics: Sequence[tuple[str, Metric]], records: Sequence[Record]) -> list[tuple[str, MetricResult]]:
    from qascore.progress import enabled

    results = []
    for label, metric in metrics:
        if enabled():  # a terminal is watching (or QASCORE_PROGRESS=1); logs stay quiet
            print(f"scoring {len(records)} records with {label}...", file=sys.stderr)
        results.append((label, metric.score(records)))
    return results


def scored_rows(records: Sequence[Record], results: Sequence[tuple[str, MetricResult]]) -> list[dict[str, Any]]:
    """Every input record as read, plus `scores` (label -> main value) and `details` (label -> parts)."""
    out = []
    for i, rec in enumerate(records):
        obj = rec.to_dict()
        obj["scores"] = {label: r.scores[i] for label, r in results}
        details = {label: r.example(i) for label, r in results if r.details}
        if details:
            obj["details"] = details
        out.append(obj)
    return out


def print_corpus(results: Sequence[tuple[str, MetricResult]], n: int, fmt: str, out: IO[str]) -> None:
    if fmt == "json":
        jsonio.dump({label: {"corpus": r.corpus, "n": len(r), "signature": r.signature} for label, r in results},
                  out, indent=2)
        print(file=out)
        return
    width = max(len(label) for label, _ in results)
    print(f"{'metric':<{width}}  {'corpus':>8}  n={n}", file=out)
    for label, r in results:
        print(f"{label:<{width}}  {r.corpus:8.4f}", file=out)
    print(file=out)
    for _, r in results:
        print(f"signature: {r.signature}", file=out)
