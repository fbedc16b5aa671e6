"""`qascore serve -m NAME ...`: the scoring server (FastAPI + uvicorn; `pip install 'qascore[serve]'`)."""

from __future__ import annotations

import argparse
import errno
import ipaddress
import math
import os
import socket
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
                                   f"when set); needed to bind an address other than this machine's. On the command "
                                   f"line it shows in `ps`: prefer ${TOKEN_ENV} or --token-file")
    p.add_argument("--token-file", metavar="FILE", help="read the token from FILE's first line (not shown in `ps`)")
    p.add_argument("--insecure", action="store_true",
                   help="allow a non-loopback --host without a token (anyone who can reach it can score)")
    p.add_argument("--docs", action="store_true", help="serve the OpenAPI page at /docs and /openapi.json")
    add_runtime_arguments(p)


def run(args: argparse.Namespace) -> int:
    try:
        import uvicorn

        from qascore.serve.app import create_app
        from qascore.serve.guard import server_config
    except ImportError:
        print(f"qascore: error: {INSTALL_HINT}", file=sys.stderr)
        return 2
    from qascore.cli.options import load_metrics  # the CLI's typed options and error texts

    token = read_token(args)
    if not is_loopback(args.host) and not token and not args.insecure:
        raise UsageError(f"--host {args.host} lets other machines reach the server: give --token TOKEN (or set "
                         f"${TOKEN_ENV}), or --insecure to serve without one")
    check_numbers(args)
    apply_runtime_arguments(args)  # --device, --threads: checked first, as every command does
    sock = listen_socket(args.host, args.port)  # a port in use or out of range: said now, before any model loads
    try:
        metrics = load_metrics(args.metric)
    except BaseException:
        sock.close()
        raise
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
    print(f"qascore serve: {', '.join(label for label, _ in metrics)} on http://{host}:{sock.getsockname()[1]} "
          f"(POST /score, GET /metrics, GET /health{'; token required' if token else ''}); Ctrl-C stops",
          file=sys.stderr, flush=True)
    server = uvicorn.Server(server_config(app))
    server.run(sockets=[sock])
    return 0


def read_token(args: argparse.Namespace) -> str | None:
    """--token, else --token-file's first line, else $QASCORE_TOKEN; a token on the command line is visible to
    every user of the machine (`ps`), so it draws a warning (issue 42)."""
    if args.token is not None and args.token_file:
        raise UsageError("give --token or --token-file, not both")
    if args.token is not None and not args.token.strip():  # '' would serve with no token and no warning
        raise UsageError("--token is empty; give a token, or leave the option out")
    if args.token_file:
        try:
            with open(args.token_file, encoding="utf-8") as fh:
                token = fh.readline().strip()
        except (OSError, UnicodeDecodeError) as err:
            raise UsageError(f"--token-file {args.token_file}: cannot be read "
                             f"({getattr(err, 'strerror', None) or err})") from None
        if not token:
            raise UsageError(f"--token-file {args.token_file}: its first line is empty")
        return token
    if args.token:
        from qascore.messages import warn

        warn(f"--token on the command line can be read by other users of this machine (ps); set ${TOKEN_ENV} or "
             f"use --token-file FILE instead")
        return args.token
    env = os.environ.get(TOKEN_ENV)
    if env is not None and not env.strip():  # no client could send a blank token: everyone would get 401
        raise UsageError(f"${TOKEN_ENV} is set but blank; give it a token, or unset it to serve without one")
    return env or None


MAX_WAIT_MS = 10_000  # a batch that waits longer than this for company answers nobody in time


def check_numbers(args: argparse.Namespace) -> None:
    """The numeric options, before any model loads (issue 42): each error names its option."""
    if not 0 <= args.port <= 65535:
        raise UsageError(f"--port must be between 0 and 65535 (got {args.port})")
    if not (math.isfinite(args.max_wait_ms) and 0 <= args.max_wait_ms <= MAX_WAIT_MS):
        raise UsageError(f"--max-wait-ms must be between 0 and {MAX_WAIT_MS} (got {args.max_wait_ms:g})")
    if args.max_batch < 1:
        raise UsageError(f"--max-batch must be at least 1 (got {args.max_batch}; --no-batching turns batching off)")
    if args.max_body < 1:
        raise UsageError(f"--max-body must be at least 1 byte (got {args.max_body})")
    if not (math.isfinite(args.timeout) and args.timeout >= 0):
        raise UsageError(f"--timeout must be a number of seconds >= 0, 0 for none (got {args.timeout:g})")


def listen_socket(host: str, port: int) -> socket.socket:
    """A socket bound to (host, port), handed to uvicorn: a port in use is one line naming it, not uvicorn's."""
    try:
        family, kind, proto, _, addr = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM,
                                                          flags=socket.AI_PASSIVE)[0]
    except (socket.gaierror, UnicodeError) as err:
        raise UsageError(f"--host {host}: not an address this machine can listen on "
                         f"({getattr(err, 'strerror', None) or err})") from None
    sock = socket.socket(family, kind, proto)
    try:
        if os.name != "nt":  # as uvicorn does: a restarted server may rebind a port in TIME_WAIT
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(addr)
    except OSError as err:
        sock.close()
        why = err.strerror or str(err)
        hint = " (another server is listening there: stop it or pick another --port)" \
            if err.errno == errno.EADDRINUSE else ""
        raise UsageError(f"--port {port}: cannot listen on {host}:{port}: {why}{hint}") from None
    return sock


def is_loopback(host: str) -> bool:
    """127.0.0.0/8, ::1 and localhost: only this machine can connect."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
