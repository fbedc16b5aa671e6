"""`qascore score INPUT --metric NAME ...`: per-record scores out, corpus scores printed.

The steps are small functions so that other input/output modes can reuse them:
metrics are loaded (options checked) and the output path is checked before
anything is read or scored; the output file appears only when complete.
"""

from __future__ import annotations

import argparse
import sys
from typing import IO, Any, Sequence

from qascore.cli.options import load_metrics
from qascore.cli.runtime_args import add_runtime_arguments, apply_runtime_arguments
from qascore.cli.table import print_corpus as print_rows
from qascore.cli.output import STDOUT, check_output, say_written, spec_paths, write_whole
from qascore.metrics.base import Metric, MetricResult
from qascore.records import (FORMATS, OUTPUT_FORMATS, Record, check_unique_ids, dump_jsonl, dump_table, output_format,
                             parse_mapping, read_records)
from qascore.stream import scored_objects, table_columns


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("input", help="JSONL (canonical), CSV or TSV file of records; - reads standard input "
                                 "(JSONL unless --input-format says otherwise)")
    p.add_argument("--metric", "-m", action="append", required=True,
                   help="metric name, optionally with options: NAME[:key=value,...]; repeatable "
                        "(`qascore list NAME` shows the options)")
    p.add_argument("--output", "-o", help="write every record back with `scores` (and `details`): JSONL for .jsonl "
                                          "or .json, a flat table for .csv or .tsv (the input's columns, "
                                          "scores.METRIC, correct.METRIC); - writes standard output (the corpus "
                                          "table then goes to stderr)")
    p.add_argument("--output-format", choices=OUTPUT_FORMATS,
                   help="write --output in this format whatever its extension (default: by the extension; JSONL "
                        "for - and for a name without one)")
    p.add_argument("--overwrite-input", action="store_true",
                   help="allow --output to be the input file itself (replaced once scoring is done)")
    p.add_argument("--format", choices=("table", "json"), default="table",
                   help="how to print corpus scores (the --output file's format: its extension, or --output-format)")
    p.add_argument("--map", action="append", metavar="FIELD=COLUMN",
                   help="column mapping, e.g. candidate=answer or references=reference*; repeatable")
    p.add_argument("--input-format", choices=FORMATS, help="override the file extension")
    p.add_argument("--strict", action="store_true", help="repeated record ids are an error (default: a warning)")
    add_scale_arguments(p)
    add_runtime_arguments(p)


def add_scale_arguments(p: argparse.ArgumentParser) -> None:
    """Chunked scoring and engines (issue 14; qascore.stream, qascore.engines, docs/scale.md)."""
    p.add_argument("--chunk-size", type=int, metavar="N",
                   help="read, score and write N records at a time: memory stays flat with the file size "
                        "(e.g. 1000; default: the whole file at once); refuses CIDEr, two passes for IDF")
    p.add_argument("--resume", action="store_true",
                   help="with --output FILE: keep the records already written (FILE.part, where a killed or "
                        "stopped run left them, else a complete FILE), score the rest; scores in chunks "
                        "(--chunk-size, default 1000)")
    p.add_argument("--engine", choices=("local", "ray"), default="local",
                   help="ray: score chunks on a Ray actor pool (pip install 'qascore[ray]'); implies chunks")
    p.add_argument("--address", help="Ray cluster address (auto or HOST:PORT); default: start a local Ray runtime")
    p.add_argument("--workers", type=int, default=2, help="Ray actors, each loading its models once (default 2)")


def run(args: argparse.Namespace) -> int:
    apply_runtime_arguments(args)  # --device checked, --threads set, --dtype into the specs: before any work
    if args.chunk_size is not None or args.resume or args.engine != "local":
        from qascore.cli.scale import run_chunked
        return run_chunked(args)
    check_output(args.output, [args.input, *spec_paths(args.metric)], allowed=args.overwrite_input)
    fmt = output_format(args.output, args.output_format)  # an unknown extension: refused before any work
    metrics = load_metrics(args.metric)
    records = read_records(args.input, mapping=parse_mapping(args.map), fmt=args.input_format)
    check_unique_ids(records, strict=args.strict)
    results = score_all(metrics, records)
    if args.output and fmt == "jsonl":
        write_whole(args.output, lambda fh: dump_jsonl(scored_rows(records, results), fh))
    elif args.output:
        columns = table_columns(records, metrics)
        write_whole(args.output, lambda fh: dump_table(scored_rows(records, results), columns, fh, fmt))
    print_corpus(results, len(records), args.format, sys.stderr if args.output == STDOUT else sys.stdout)
    say_written(args.output, len(records))
    return 0


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
    return scored_objects(records, results)


def print_corpus(results: Sequence[tuple[str, MetricResult]], n: int, fmt: str, out: IO[str]) -> None:
    print_rows([(label, r.corpus, r.signature) for label, r in results], n, fmt, out)
