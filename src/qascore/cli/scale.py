"""`qascore score --chunk-size N [--resume] [--engine ray]`: the glue from flags to qascore.stream."""

from __future__ import annotations

import argparse
import sys

from qascore.cli.options import labelled_specs
from qascore.metrics.registry import load
from qascore.records import parse_mapping
from qascore.stream import DEFAULT_CHUNK_SIZE, print_corpus, score_file


def run_chunked(args: argparse.Namespace) -> int:
    specs = labelled_specs(args.metric)
    metrics = [(label, load(name, **opts)) for label, name, opts in specs]
    chunk_size = DEFAULT_CHUNK_SIZE if args.chunk_size is None else args.chunk_size
    engine = None
    if args.engine == "ray":
        from qascore.engines.ray_engine import RayEngine

        engine = RayEngine(args.input, specs, chunk_size=chunk_size, workers=args.workers, address=args.address,
                           fmt=args.input_format, mapping=parse_mapping(args.map))
    elif args.address:
        raise ValueError("--address is for --engine ray")
    print(f"scoring in chunks of {chunk_size} ({args.engine} engine) with {', '.join(s[0] for s in specs)}...",
          file=sys.stderr)
    summaries, n_new = score_file(args.input, metrics, output=args.output, chunk_size=chunk_size,
                                  resume_output=args.resume, mapping=parse_mapping(args.map),
                                  fmt=args.input_format, engine=engine)
    n = summaries[0].mean.n
    print(f"scored {n_new} records ({n - n_new} kept from the output)", file=sys.stderr)
    print_corpus([(s.label, s.corpus, s.signature) for s in summaries], n, args.format)
    return 0
