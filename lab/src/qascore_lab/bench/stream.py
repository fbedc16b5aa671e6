"""`qascore-lab bench stream`: peak RSS and time per record of `score --chunk-size` as the file grows.

Why: chunked scoring promises memory that does not grow with the number of
records and a constant time per record. Each size runs `qascore score` in a
fresh process on synthetic records (qascore_lab.bench.synthetic, same seed) and
reads that process's own peak RSS from the kernel (wait4's ru_maxrss), so the
figure includes the models, the interpreter and everything else. The first
size (one chunk by default) is the "models loaded" baseline the others are
compared against. Torch threads follow OMP_NUM_THREADS (set to 1 when unset).
A size whose predicted time exceeds the remaining --budget-s is skipped, and
says so.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from qascore_lab.bench import synthetic


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--metric", "-m", action="append", help="metric spec(s) to score with (default: f1)")
    p.add_argument("--sizes", default="1000,10000,100000,1000000",
                   help="comma-separated record counts (default 1000,10000,100000,1000000)")
    p.add_argument("--chunk-size", type=int, default=1000, help="records per chunk (default 1000)")
    p.add_argument("--engine", default="local", choices=("local", "ray"), help="score engine (default local)")
    p.add_argument("--workers", type=int, default=1, help="Ray actors when --engine ray (default 1)")
    p.add_argument("--budget-s", type=float, default=1800.0,
                   help="stop before a size predicted to exceed this many seconds in all (default 1800)")
    p.add_argument("--workdir", default=None, help="where synthetic files go (default: a temporary folder)")
    p.add_argument("--seed", type=int, default=0)


def _rss_mib(pid: int) -> float | None:
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        return None
    return None


def run_score(path: Path, out: Path, metrics: list[str], chunk_size: int, engine: str, workers: int,
              trace: list[float] | None = None) -> tuple[float, float]:
    """(wall seconds, peak RSS in MiB) of one `qascore score` process; `trace` gets its RSS every 0.5 s."""
    cmd = [sys.executable, "-m", "qascore.cli", "score", str(path), "-o", str(out), "--chunk-size", str(chunk_size),
           "--engine", engine, "--workers", str(workers)]
    for m in metrics:
        cmd += ["-m", m]
    env = {**os.environ, "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", "1"), "QASCORE_PROGRESS": "0"}
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    stop = threading.Event()

    def sample() -> None:
        while not stop.wait(0.5):
            rss = _rss_mib(proc.pid)
            if rss is not None and trace is not None:
                trace.append(rss)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    _, status, usage = os.wait4(proc.pid, 0)
    stop.set()
    sampler.join()
    wall = time.perf_counter() - start
    err = proc.stderr.read().decode() if proc.stderr else ""
    if proc.stderr:
        proc.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"qascore score failed on {path}:\n{err}")
    return wall, usage.ru_maxrss / 1024.0  # Linux: KiB


def predict_seconds(measured: list[tuple[int, float]], n: int) -> float | None:
    """Wall seconds a run of `n` records should take, from the (records, seconds) runs so far: the first
    run's time plus the marginal time per record of the last two sizes (start-up and model loading are paid
    once per run, so on a fast device the first size's per-record time overstates a big run many times);
    from a single run, its per-record time; None before any run."""
    if not measured:
        return None
    if len(measured) == 1:
        return n * measured[0][1] / measured[0][0]
    (n0, w0), (n1, w1) = measured[-2], measured[-1]
    return measured[0][1] + (n - measured[0][0]) * max(w1 - w0, 0.0) / max(n1 - n0, 1)


def run(args: argparse.Namespace) -> int:
    metrics = args.metric or ["f1"]
    sizes = [int(s) for s in args.sizes.split(",")]
    threads = os.environ.get("OMP_NUM_THREADS", "1")
    print(f"metrics {metrics}, chunk size {args.chunk_size}, engine {args.engine}, torch threads {threads}")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(args.workdir or tmp)
        work.mkdir(parents=True, exist_ok=True)
        print(f"{'records':>9} {'seconds':>9} {'rec/s':>9} {'us/rec':>9} {'marg us/rec':>11} {'peak MiB':>9} "
              f"{'RSS x':>7}  RSS MiB at 20/40/60/80/100% of the run")
        measured: list[tuple[int, float]] = []   # (records, seconds) of each run; the first is the baseline
        base_rss = 0.0
        for n in sizes:
            spent = sum(w for _, w in measured)
            guess = predict_seconds(measured, n)
            if guess is not None and spent + guess * 1.1 > args.budget_s:
                print(f"{n:>9} skipped: predicted {guess:.0f} s, {args.budget_s - spent:.0f} s of budget left")
                continue
            path = work / f"synthetic-{n}-seed{args.seed}.jsonl"
            if not path.exists():
                synthetic.write(n, path, args.seed)
            trace: list[float] = []
            wall, rss = run_score(path, work / "scored.jsonl", metrics, args.chunk_size, args.engine, args.workers,
                                  trace)
            at = " ".join(f"{trace[min(len(trace) - 1, int(q * len(trace)) - 1)]:.0f}" if trace else "-"
                          for q in (0.2, 0.4, 0.6, 0.8, 1.0))
            measured.append((n, wall))
            (n0, w0), base_rss = measured[0], base_rss or rss
            marginal = f"{1e6 * (wall - w0) / (n - n0):11.1f}" if n > n0 else f"{'-':>11}"
            print(f"{n:>9} {wall:9.1f} {n / wall:9.0f} {1e6 * wall / n:9.1f} {marginal} {rss:9.0f} {rss / base_rss:7.3f}"
                  f"  {at}", flush=True)
            (work / "scored.jsonl").unlink(missing_ok=True)
    print("marg us/rec: (seconds - first size's seconds) / (records - first size's records): the time per record\n"
          "without process start and model loading. RSS x: peak RSS over the first size's (same models loaded).")
    return 0
