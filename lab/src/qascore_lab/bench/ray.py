"""`qascore-lab bench ray`: records/s of `score --engine ray` with 1 and 2 workers, and the local engine.

Why: the Ray engine is worth its start-up only where actors add throughput.
Each configuration runs `qascore score` in a fresh process twice on
synthetic records (qascore_lab.bench.synthetic): on one chunk (start-up: Ray
runtime, actors, models) and on `--records`; records/s is given both overall
and marginal ((records - one chunk) / (seconds - start-up seconds)), which is
what a long run gets. Torch threads: OMP_NUM_THREADS (default 1) locally, 1
per actor (Ray's default for a 1-CPU actor).
"""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path

from qascore_lab.bench import synthetic
from qascore_lab.bench.stream import run_score


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--metric", "-m", action="append", help="metric spec(s) (default: f1)")
    p.add_argument("--records", type=int, default=100000, help="records in the timed file (default 100000)")
    p.add_argument("--chunk-size", type=int, default=1000, help="records per chunk (default 1000)")
    p.add_argument("--configs", default="local,ray:1,ray:2",
                   help="engine[:workers] list (default local,ray:1,ray:2)")
    p.add_argument("--seed", type=int, default=0)


def run(args: argparse.Namespace) -> int:
    metrics = args.metric or ["f1"]
    print(f"metrics {metrics}, {args.records} synthetic records, chunk size {args.chunk_size}, "
          f"torch threads {os.environ.get('OMP_NUM_THREADS', '1')} (local) / 1 per actor, CPUs {os.cpu_count()}")
    print(f"{'config':>8} {'start-up s':>10} {'total s':>8} {'rec/s':>8} {'marginal rec/s':>14} {'vs ray:1':>8}")
    with tempfile.TemporaryDirectory() as tmp:
        small = synthetic.write(args.chunk_size, Path(tmp) / "one-chunk.jsonl", args.seed)
        big = synthetic.write(args.records, Path(tmp) / "big.jsonl", args.seed)
        base = None
        for config in args.configs.split(","):
            engine, _, workers = config.partition(":")
            w = int(workers or 1)
            t0, _ = run_score(small, Path(tmp) / "out.jsonl", metrics, args.chunk_size, engine, w)
            t1, _ = run_score(big, Path(tmp) / "out.jsonl", metrics, args.chunk_size, engine, w)
            marginal = (args.records - args.chunk_size) / max(t1 - t0, 1e-9)
            if config == "ray:1":
                base = marginal
            ratio = f"{marginal / base:8.2f}" if base else f"{'-':>8}"
            print(f"{config:>8} {t0:10.1f} {t1:8.1f} {args.records / t1:8.0f} {marginal:14.0f} {ratio}", flush=True)
    return 0
