"""`qascore score INPUT --metric NAME ...`: per-record scores out, corpus scores printed."""

from __future__ import annotations

import argparse
import sys

from qascore.cli.options import labelled_specs
from qascore.metrics.registry import load
from qascore.records import parse_mapping, read_records, write_jsonl
from qascore.stream import print_corpus, scored_objects


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("input", help="JSONL (canonical), CSV or TSV file of records")
    p.add_argument("--metric", "-m", action="append", required=True,
                   help="metric name, optionally with options: NAME[:key=value,...]; repeatable")
    p.add_argument("--output", "-o", help="write every record back with `scores` (and `details`) as JSONL")
    p.add_argument("--format", choices=("table", "json"), default="table", help="how to print corpus scores")
    p.add_argument("--map", action="append", metavar="FIELD=COLUMN",
                   help="column mapping, e.g. candidate=answer or references=reference*; repeatable")
    p.add_argument("--input-format", choices=("jsonl", "csv", "tsv"), help="override the file extension")
    add_scale_arguments(p)


def add_scale_arguments(p: argparse.ArgumentParser) -> None:
    """Chunked scoring and engines (issue 14; qascore.stream, qascore.engines, docs/scale.md)."""
    p.add_argument("--chunk-size", type=int, metavar="N",
                   help="read, score and write N records at a time: memory stays flat with the file size "
                        "(e.g. 1000; default: the whole file at once); refuses CIDEr, two passes for IDF")
    p.add_argument("--resume", action="store_true",
                   help="with --chunk-size and --output: keep the records already written there, score the rest")
    p.add_argument("--engine", choices=("local", "ray"), default="local",
                   help="ray: score chunks on a Ray actor pool (pip install 'qascore[ray]'); implies chunks")
    p.add_argument("--address", help="Ray cluster address (auto or HOST:PORT); default: start a local Ray runtime")
    p.add_argument("--workers", type=int, default=2, help="Ray actors, each loading its models once (default 2)")


def run(args: argparse.Namespace) -> int:
    if args.chunk_size is not None or args.resume or args.engine != "local":
        from qascore.cli.scale import run_chunked
        return run_chunked(args)
    records = read_records(args.input, mapping=parse_mapping(args.map), fmt=args.input_format)
    results = []
    for label, name, opts in labelled_specs(args.metric):
        metric = load(name, **opts)
        print(f"scoring {len(records)} records with {label}...", file=sys.stderr)
        results.append((label, metric.score(records)))
    if args.output:
        write_jsonl(scored_objects(records, results), args.output)
    print_corpus([(label, r.corpus, r.signature) for label, r in results], len(records), args.format)
    return 0
