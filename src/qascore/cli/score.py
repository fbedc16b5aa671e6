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
    metrics = [load(name, **opts) for name, opts in map(parse_metric_spec, args.metric)]
    results = []
    for metric in metrics:
        print(f"scoring {len(records)} records with {metric.name}...", file=sys.stderr)
        results.append(metric.score(records))
    if args.output:
        out = []
        for i, rec in enumerate(records):
            obj = rec.to_dict()
            obj["scores"] = {r.name: r.scores[i] for r in results}
            details = {r.name: r.example(i) for r in results if r.details}
            if details:
                obj["details"] = details
            out.append(obj)
        write_jsonl(out, args.output)
    if args.format == "json":
        json.dump({r.name: {"corpus": r.corpus, "n": len(r), "signature": r.signature} for r in results},
                  sys.stdout, indent=2)
        print()
    else:
        width = max(len(r.name) for r in results)
        print(f"{'metric':<{width}}  {'corpus':>8}  n={len(records)}")
        for r in results:
            print(f"{r.name:<{width}}  {r.corpus:8.4f}")
        print()
        for r in results:
            print(f"signature: {r.signature}")
    return 0
