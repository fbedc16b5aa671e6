"""`qascore serve -m NAME ...`: the scoring server (FastAPI + uvicorn; `pip install 'qascore[serve]'`)."""

from __future__ import annotations

import argparse
import sys

from qascore.serve import DEFAULT_MAX_BATCH, DEFAULT_MAX_BODY, DEFAULT_MAX_WAIT_S

INSTALL_HINT = "qascore serve needs FastAPI and uvicorn: pip install 'qascore[serve]'"
WARM_UP = {"id": "warm-up", "question": "what is warm?", "candidate": "warm up", "references": ["warm up"],
           "negatives": ["cold"], "context": "warm up before you start."}


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--metric", "-m", action="append", required=True,
                   help="metric to load, NAME[:key=value,...]; repeatable")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1: this machine only)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    p.add_argument("--max-batch", type=int, default=DEFAULT_MAX_BATCH,
                   help=f"records per model call when micro-batching (default {DEFAULT_MAX_BATCH})")
    p.add_argument("--max-wait-ms", type=float, default=DEFAULT_MAX_WAIT_S * 1000,
                   help=f"how long a batch waits for more requests (default {DEFAULT_MAX_WAIT_S * 1000:g} ms)")
    p.add_argument("--no-batching", action="store_true", help="one model call per request")
    p.add_argument("--max-body", type=int, default=DEFAULT_MAX_BODY,
                   help=f"largest request body in bytes (default {DEFAULT_MAX_BODY}); larger ones get 413")


def run(args: argparse.Namespace) -> int:
    try:
        import uvicorn

        from qascore.serve.app import create_app
    except ImportError:
        print(f"qascore: error: {INSTALL_HINT}", file=sys.stderr)
        return 2
    from qascore.cli.score import load_metrics  # the CLI's typed options and error texts

    metrics = load_metrics(args.metric)
    app = create_app(metrics, max_batch=0 if args.no_batching else args.max_batch,
                     max_wait_s=0 if args.no_batching else args.max_wait_ms / 1000, max_body_bytes=args.max_body)
    for label, m in metrics:  # load the models now, not on the first request
        print(f"loading {label}...", file=sys.stderr)
        try:
            m.score([WARM_UP])
        except (ValueError, KeyError) as err:
            print(f"{label}: warm-up skipped ({err})", file=sys.stderr)
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning", access_log=False)
    return 0
