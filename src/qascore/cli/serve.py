"""`qascore serve -m NAME ...`: the scoring server (FastAPI + uvicorn; `pip install 'qascore[serve]'`)."""

from __future__ import annotations

import argparse
import ipaddress
import os
import sys

from qascore.cli.runtime_args import add_runtime_arguments, apply_runtime_arguments
from qascore.errors import UsageError
from qascore.serve import DEFAULT_MAX_BATCH, DEFAULT_MAX_BODY, DEFAULT_MAX_WAIT_S, DEFAULT_TIMEOUT_S, TOKEN_ENV

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
    p.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT_S, metavar="S",
                   help=f"a request still scoring after S seconds gets 504 (default {DEFAULT_TIMEOUT_S:g}; 0: none)")
    p.add_argument("--token", help=f"every request must send 'Authorization: Bearer TOKEN' (default: ${TOKEN_ENV} "
                                   f"when set); needed to bind an address other than this machine's")
    p.add_argument("--insecure", action="store_true",
                   help="allow a non-loopback --host without a token (anyone who can reach it can score)")
    p.add_argument("--docs", action="store_true", help="serve the OpenAPI page at /docs and /openapi.json")
    add_runtime_arguments(p)


def run(args: argparse.Namespace) -> int:
    try:
        import uvicorn

        from qascore.serve.app import create_app
    except ImportError:
        print(f"qascore: error: {INSTALL_HINT}", file=sys.stderr)
        return 2
    from qascore.cli.options import load_metrics  # the CLI's typed options and error texts

    token = args.token or os.environ.get(TOKEN_ENV) or None
    if not is_loopback(args.host) and not token and not args.insecure:
        raise UsageError(f"--host {args.host} lets other machines reach the server: give --token TOKEN (or set "
                         f"${TOKEN_ENV}), or --insecure to serve without one")
    apply_runtime_arguments(args)
    metrics = load_metrics(args.metric)
    app = create_app(metrics, max_batch=0 if args.no_batching else args.max_batch,
                     max_wait_s=0 if args.no_batching else args.max_wait_ms / 1000, max_body_bytes=args.max_body,
                     token=token, docs=args.docs, request_timeout_s=args.timeout)
    for label, m in metrics:  # load the models now, not on the first request
        print(f"loading {label}...", file=sys.stderr)
        try:
            m.score([WARM_UP])
        except (ValueError, KeyError) as err:
            print(f"{label}: warm-up skipped ({err})", file=sys.stderr)
    host = f"[{args.host}]" if ":" in args.host else args.host
    print(f"qascore serve: {', '.join(label for label, _ in metrics)} on http://{host}:{args.port} "
          f"(POST /score, GET /metrics, GET /health{'; token required' if token else ''}); Ctrl-C stops",
          file=sys.stderr, flush=True)
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning", access_log=False)
    return 0


def is_loopback(host: str) -> bool:
    """127.0.0.0/8, ::1 and localhost: only this machine can connect."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
