"""`qascore score INPUT --metric NAME ...`: per-record scores out, corpus scores printed."""

from __future__ import annotations

import argparse
import json
import sys

from qascore.cli.options import parse_metric_spec
from qascore.metrics.registry import load
from qascore.records import parse_mapping, read_records, write_jsonl


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("input", help="JSONL (canonical), CSV or TSV file of records")
    p.add_argument("--metric", "-m", action="append", required=True,
                   help="metric name, optionally with options: NAME[:key=value,...]; repeatable")
    p.add_argument("--output", "-o", help="write every record back with `scores` (and `details`) as JSONL")
    p.add_argument("--format", choices=("table", "json"), default="table", help="how to print corpus scores")
    p.add_argument("--map", action="append", metavar="FIELD=COLUMN",
                   help="column mapping, e.g. candidate=answer or references=reference*; repeatable")
    p.add_argument("--input-format", choices=("jsonl", "csv", "tsv"), help="override the file extension")


def run(args: argparse.Namespace) -> int:
    records = read_records(args.input, mapping=parse_mapping(args.map), fmt=args.input_format)
    specs = [parse_metric_spec(spec) for spec in args.metric]
    names = [name for name, _ in specs]
    # A metric asked for twice with different options is keyed by its full spec.
    labels = [spec if names.count(name) > 1 else name for spec, name in zip(args.metric, names)]
    if len(set(labels)) != len(labels):
        raise ValueError("the same metric spec is given twice")
    results = []
    for label, (name, opts) in zip(labels, specs):
        metric = load(name, **opts)
        print(f"scoring {len(records)} records with {label}...", file=sys.stderr)
        results.append((label, metric.score(records)))
    if args.output:
        out = []
        for i, rec in enumerate(records):
            obj = rec.to_dict()
            obj["scores"] = {label: r.scores[i] for label, r in results}
            details = {label: r.example(i) for label, r in results if r.details}
            if details:
                obj["details"] = details
            out.append(obj)
        write_jsonl(out, args.output)
    if args.format == "json":
        json.dump({label: {"corpus": r.corpus, "n": len(r), "signature": r.signature} for label, r in results},
                  sys.stdout, indent=2)
        print()
    else:
        width = max(len(label) for label, _ in results)
        print(f"{'metric':<{width}}  {'corpus':>8}  n={len(records)}")
        for label, r in results:
            print(f"{label:<{width}}  {r.corpus:8.4f}")
        print()
        for _, r in results:
            print(f"signature: {r.signature}")
    return 0
