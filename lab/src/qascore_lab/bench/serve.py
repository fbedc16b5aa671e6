"""`qascore-lab bench serve`: a bounded load test of `qascore serve` on loopback, micro-batching on and off.

Why: a training loop calling a metric as a reward needs throughput and tail
latency, and must never see a failed request. For each mode the bench starts
`qascore serve` on 127.0.0.1 (a free port, OMP_NUM_THREADS torch threads,
default 1), sends `--requests` requests of 1-16 synthetic records
(qascore_lab.bench.synthetic, seeded) from `--clients` concurrent clients, and
stops by itself when they are answered (or after `--timeout-s`). It prints
throughput (requests/s, records/s), p50/p99 latency, failures, model calls;
then sends malformed JSON, a record missing a field, an unknown metric and an
oversized body, checks each gets a 4xx with a message, and that the server
still answers /health.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import socket
import subprocess
import sys
import time

import numpy as np

from qascore_lab.bench import synthetic


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--metric", "-m", action="append", help="metric(s) the server loads (default: bertscore)")
    p.add_argument("--requests", type=int, default=2000, help="requests per mode (default 2000)")
    p.add_argument("--clients", type=int, default=8, help="concurrent clients (default 8)")
    p.add_argument("--max-records", type=int, default=16, help="records per request: 1..this (default 16)")
    p.add_argument("--timeout-s", type=float, default=600.0, help="stop a mode after this long (default 600)")
    p.add_argument("--modes", default="on,off", help="micro-batching modes to run, comma-separated (default on,off)")
    p.add_argument("--seed", type=int, default=0)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(metrics: list[str], batching: bool) -> tuple[subprocess.Popen, str]:
    port = _free_port()
    cmd = [sys.executable, "-m", "qascore.cli", "serve", "--port", str(port)]
    for m in metrics:
        cmd += ["-m", m]
    if not batching:
        cmd.append("--no-batching")
    env = {**os.environ, "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", "1")}
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return proc, f"http://127.0.0.1:{port}"


async def wait_ready(client, url: str, proc: subprocess.Popen, timeout: float = 120.0) -> None:
    import httpx

    deadline = time.time() + timeout
    while time.time() < deadline:
        if proc.poll() is not None:
            raise RuntimeError("the server exited while starting")
        try:
            if (await client.get(f"{url}/health")).status_code == 200:
                return
        except httpx.TransportError:
            pass
        await asyncio.sleep(0.2)
    raise RuntimeError("the server did not start in time")


async def load(client, url: str, bodies: list[list[dict]], clients: int, timeout: float
               ) -> tuple[list[float], int, float]:
    """(latencies of answered requests, failures, wall seconds)."""
    queue: asyncio.Queue[list[dict]] = asyncio.Queue()
    for b in bodies:
        queue.put_nowait(b)
    lat: list[float] = []
    failures = 0

    async def worker() -> None:
        nonlocal failures
        while not queue.empty():
            body = queue.get_nowait()
            t = time.perf_counter()
            try:
                r = await client.post(f"{url}/score", json={"records": body})
                ok = r.status_code == 200 and len(r.json()["records"]) == len(body)
            except Exception:  # noqa: BLE001 - counted, the bench goes on
                ok = False
            if ok:
                lat.append(time.perf_counter() - t)
            else:
                failures += 1

    start = time.perf_counter()
    try:
        await asyncio.wait_for(asyncio.gather(*(worker() for _ in range(clients))), timeout)
    except asyncio.TimeoutError:
        print(f"  stopped after {timeout:.0f} s (--timeout-s)")
    return lat, failures + queue.qsize(), time.perf_counter() - start


async def bad_requests(client, url: str, max_body: int) -> list[str]:
    """Each bad request must get a 4xx with a message; then /health must still answer."""
    cases = {
        "malformed JSON": dict(content=b'{"records": [{"candidate": '),
        "missing field": dict(json={"records": [{"candidate": "x"}]}),
        "unknown metric": dict(json={"records": [{"candidate": "x", "references": ["x"]}], "metrics": ["nosuch"]}),
        "oversized body": dict(content=b"[" + b" " * (max_body + 1) + b"]"),
    }
    lines = []
    for name, kw in cases.items():
        r = await client.post(f"{url}/score", **kw)
        msg = r.json().get("error", "") if r.headers.get("content-type", "").startswith("application/json") else ""
        ok = 400 <= r.status_code < 500 and bool(msg)
        lines.append(f"  {name:15} -> {r.status_code} {'ok' if ok else 'FAILED'}: {msg[:90]}")
    alive = (await client.get(f"{url}/health")).status_code == 200
    lines.append(f"  server still answers /health: {alive}")
    return lines


def run(args: argparse.Namespace) -> int:
    from qascore.serve import DEFAULT_MAX_BATCH, DEFAULT_MAX_WAIT_S

    metrics = args.metric or ["bertscore"]
    rng = random.Random(args.seed)
    pool = list(synthetic.records(args.requests * args.max_records // 2 + args.max_records, args.seed))
    bodies, at = [], 0
    for _ in range(args.requests):
        k = rng.randint(1, args.max_records)
        if at + k > len(pool):
            at = 0
        bodies.append(pool[at:at + k])
        at += k
    n_records = sum(len(b) for b in bodies)
    print(f"metrics {metrics}; {args.requests} requests ({n_records} records, 1-{args.max_records} each), "
          f"{args.clients} clients, server torch threads {os.environ.get('OMP_NUM_THREADS', '1')}; "
          f"batching on = max batch {DEFAULT_MAX_BATCH} records, max wait {DEFAULT_MAX_WAIT_S * 1000:g} ms")
    status = 0
    for mode in args.modes.split(","):
        proc, url = start_server(metrics, batching=mode == "on")
        try:
            status |= asyncio.run(run_mode(args, mode, proc, url, bodies))
        finally:
            proc.terminate()
            proc.wait(timeout=30)
    return status


async def run_mode(args: argparse.Namespace, mode: str, proc: subprocess.Popen, url: str,
                   bodies: list[list[dict]]) -> int:
    """Load one server, print its figures and the bad-request checks; 1 if anything failed."""
    import httpx

    from qascore.serve import DEFAULT_MAX_BODY

    limits = httpx.Limits(max_connections=args.clients)
    async with httpx.AsyncClient(timeout=args.timeout_s, limits=limits) as client:
        await wait_ready(client, url, proc)
        lat, failed, wall = await load(client, url, bodies, args.clients, args.timeout_s)
        health = (await client.get(f"{url}/health")).json()
        ms = np.array(lat) * 1000 if lat else np.array([float("nan")])
        done = len(lat)
        recs = sum(len(b) for b in bodies[:done]) if not failed else float("nan")
        print(f"batching {mode}: {done} answered, {failed} failed in {wall:.1f} s: {done / wall:.1f} req/s, "
              f"{recs / wall:.0f} records/s, latency p50 {np.percentile(ms, 50):.1f} ms, "
              f"p99 {np.percentile(ms, 99):.1f} ms, model calls {health['model_calls']}", flush=True)
        status = int(failed > 0)
        for line in await bad_requests(client, url, DEFAULT_MAX_BODY):
            print(line, flush=True)
            status |= "FAILED" in line or line.endswith("False")
    return status
