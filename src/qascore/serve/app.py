"""The scoring server's app: `POST /score`, `GET /metrics`, `GET /health`.

Why a server: a training loop that uses a metric as a reward calls it
thousands of times a minute; loading models per call, or per process, would
cost more than the scoring. The app loads each metric once and micro-batches
concurrent requests (qascore.serve.batcher) on two workers: one for metrics that
run a model, one for those that do not, so a slow model call (a long passage)
never holds up a request for lexical metrics alone (issue 64).

`POST /score` takes `{"records": [...], "metrics": [optional subset]}` (or a
bare list of records) and answers `{"records": [...], "corpus": {...}}`: the
records exactly as `score --output` writes them (every field back, plus
`scores` and `details`) and per metric what `score --format json` prints for
them. Errors are 4xx with `{"error": TEXT}`, TEXT the CLI's own message:
400 malformed JSON or a body of the wrong shape, 404 a metric this server did
not load, 413 a body over `max_body_bytes`, 422 a record a metric cannot
score (located as `request:N: field 'F': ...`, N the record's 1-based index).
Metrics whose record scores depend on their batch mates (CIDEr, bertscore
with idf=true) are refused at start-up: micro-batching would change them.

Safety (issue 27): `POST /score` takes only `Content-Type: application/json`
(415 otherwise, so a web page cannot make a browser post to it); with a token
every request needs `Authorization: Bearer TOKEN` (401 otherwise); `/docs` and
`/openapi.json` exist only when asked; every error, 404 and 405 included, is
`{"error": TEXT}`; a request still scoring after `request_timeout_s` gets 504, and
one whose body has not arrived whole `body_timeout_s` after its head gets 408 and a closed connection;
a client's fault (a disconnect, a bad body) is one log line, never a traceback.
A request that timed out or whose client went away before its batch started is
not scored; a record with more references than a metric's `max_references` is
422 before it queues (issue 42).
"""

from __future__ import annotations

import asyncio
import hmac
import sys
import time
from contextlib import asynccontextmanager
from typing import Any, AsyncIterator, Awaitable, Callable, Sequence

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import ClientDisconnect

from qascore.metrics.base import Metric, MetricResult
from qascore import jsonio
from qascore.record_checks import printable, terminal_safe
from qascore.records import InputError, Record, decode_text, json_value
from qascore.serve import BODY_TIMEOUT_S, DEFAULT_MAX_BATCH, DEFAULT_MAX_BODY, DEFAULT_MAX_WAIT_S, DEFAULT_TIMEOUT_S
from qascore.serve.batcher import MicroBatcher
from qascore.stream import ExactMean, refuse_corpus_level, scored_objects

SOURCE = "request"

Job = tuple[list[Record], list[str]]  # a request's records and the labels it asked for
MODELS, LEXICAL = "models", "lexical"  # the two workers (Scorer.lane)


class ApiError(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status, self.message = status, message


def parse_body(body: bytes, loaded: Sequence[str]) -> Job:
    """Records and metric labels from a request body, or an ApiError with the CLI's text."""
    try:  # the reader's own decoding and JSON errors, so the texts are the CLI's
        obj = json_value(decode_text(body, SOURCE).rstrip("\n"), SOURCE)
    except InputError as err:
        raise ApiError(400, str(err)) from None
    if isinstance(obj, dict):
        if "records" not in obj:
            raise ApiError(400, str(InputError("expected {\"records\": [...]} or a list of records", source=SOURCE)))
        rows, labels = obj["records"], obj.get("metrics") or list(loaded)
    else:
        rows, labels = obj, list(loaded)
    if not isinstance(rows, list) or not rows:
        raise ApiError(400, str(InputError("'records' must be a non-empty list of record objects", source=SOURCE)))
    if not isinstance(labels, list) or not all(isinstance(x, str) for x in labels):
        raise ApiError(400, str(InputError("'metrics' must be a list of metric names", source=SOURCE)))
    for label in labels:
        if label not in loaded:
            raise ApiError(404, f"metric '{label}' is not loaded by this server; loaded: {', '.join(loaded)}")
    try:
        return [Record.from_dict(r, source=SOURCE, line=i) for i, r in enumerate(rows, 1)], list(dict.fromkeys(labels))
    except InputError as err:
        raise ApiError(422, str(err)) from None


class Scorer:
    """Scores batches of jobs: one call per metric over every record of the batch."""

    def __init__(self, metrics: Sequence[tuple[str, Metric]]) -> None:
        refuse_corpus_level(metrics, two_pass=False, what="served",
                            instead="requests are micro-batched, so its scores would depend on other requests")
        self.metrics = dict(metrics)

    def validate(self, job: Job) -> None:
        records, labels = job
        for label in labels:
            try:
                self.metrics[label].validate(records)
            except InputError as err:
                raise ApiError(422, str(err)) from None

    def __call__(self, jobs: Sequence[Job]) -> list[dict[str, MetricResult]]:
        """Each job's results by label: one call per metric over the records of the jobs that asked for it."""
        where: dict[tuple[int, str], tuple[MetricResult, int]] = {}
        for label, metric in self.metrics.items():
            mine = [j for j, (_, labels) in enumerate(jobs) if label in labels]
            if not mine:
                continue
            result = metric.score([r for j in mine for r in jobs[j][0]])
            start = 0
            for j in mine:
                where[j, label] = (result, start)
                start += len(jobs[j][0])
        return [{label: _slice(*where[j, label], len(recs)) for label in labels}
                for j, (recs, labels) in enumerate(jobs)]

    def lane(self, label: str) -> str:
        """MODELS for a metric that runs a model (it has a `device` option), else LEXICAL: the two run on
        separate workers, so a slow model call never holds up a request for lexical metrics alone."""
        return MODELS if "device" in self.metrics[label].option_specs() else LEXICAL

    @staticmethod
    def assemble(job: Job, results: dict[str, MetricResult]) -> dict[str, Any]:
        """The answer to one request: its records with their scores, and each metric's corpus figures."""
        recs, labels = job
        parts = [(label, results[label]) for label in labels]
        corpus = {}
        for label, r in parts:
            mean = ExactMean()
            mean.extend(r.scores)
            corpus[label] = {"corpus": mean.value, "n": len(r.scores), "signature": r.signature}
        return {"records": scored_objects(recs, parts), "corpus": corpus}


def _slice(result: MetricResult, start: int, n: int) -> MetricResult:
    stop = start + n
    return MetricResult(result.name, result.scores[start:stop], 0.0, result.signature,
                        {k: v[start:stop] for k, v in result.details.items()}, result.empty[start:stop],
                        result.scored_empty)


def log_line(message: str) -> None:
    """One line on the server's stderr for what a client did wrong (never a traceback)."""
    print(f"qascore serve: {terminal_safe(message, 500)}", file=sys.stderr, flush=True)


def create_app(metrics: Sequence[tuple[str, Metric]], *, max_batch: int = DEFAULT_MAX_BATCH,
               max_wait_s: float = DEFAULT_MAX_WAIT_S, max_body_bytes: int = DEFAULT_MAX_BODY,
               token: str | None = None, docs: bool = False,
               request_timeout_s: float = DEFAULT_TIMEOUT_S, body_timeout_s: float = BODY_TIMEOUT_S) -> FastAPI:
    """The app over already-loaded metrics; max_batch <= 1 or max_wait_s <= 0 turns batching off.

    `token`: every request needs `Authorization: Bearer TOKEN`. `docs`: serve /docs and /openapi.json.
    `request_timeout_s` (<= 0: none): a request not scored by then gets 504. `body_timeout_s`: a body not
    received whole by then gets 408 (neither the head deadline, serve.guard, nor `request_timeout_s` covers
    a body that trickles in a byte at a time)."""
    scorer = Scorer(metrics)
    labels = list(scorer.metrics)
    lanes: dict[str, MicroBatcher[Job, dict[str, MetricResult]]] = {
        lane: MicroBatcher(scorer, lambda job: len(job[0]), max_batch=max_batch, max_wait_s=max_wait_s)
        for lane in (MODELS, LEXICAL)}
    served = [0]  # requests scored or scoring

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        for b in lanes.values():
            b.start()
        yield
        for b in lanes.values():
            await b.stop()

    async def submit(job: Job) -> dict[str, Any]:
        """The job's labels split by worker, each part queued on its own, the results put back together."""
        served[0] += 1
        records, wanted = job
        parts = [(lane, [x for x in wanted if scorer.lane(x) == lane]) for lane in lanes]
        got = await asyncio.gather(*(lanes[lane].submit((records, mine)) for lane, mine in parts if mine))
        return Scorer.assemble(job, {k: v for part in got for k, v in part.items()})

    app = FastAPI(title="qascore", lifespan=lifespan, docs_url="/docs" if docs else None,
                  redoc_url="/redoc" if docs else None, openapi_url="/openapi.json" if docs else None)
    app.state.batchers = lanes
    started = time.time()

    @app.exception_handler(ApiError)
    async def api_error(_: Request, err: ApiError) -> JSONResponse:
        close = {"connection": "close"} if err.status == 408 else None  # the rest of its body is not read
        return JSONResponse({"error": printable(err.message)}, status_code=err.status,  # echoed text may hold surrogates
                            headers=close)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, err: StarletteHTTPException) -> JSONResponse:
        path = terminal_safe(request.url.path, 200)  # a 100 KB path is not echoed back whole
        text = {404: f"no such path {path} (POST /score, GET /metrics, GET /health)",
                405: f"{terminal_safe(request.method, 20)} is not allowed on {path}"}.get(err.status_code,
                                                                                         str(err.detail))
        return JSONResponse({"error": text}, status_code=err.status_code, headers=err.headers)

    if token:
        @app.middleware("http")
        async def require_token(request: Request, call_next: Callable[[Request], Awaitable[Response]]) -> Response:
            given = request.headers.get("authorization", "")
            if not hmac.compare_digest(given.encode(), f"Bearer {token}".encode()):
                return JSONResponse({"error": "this server needs the header 'Authorization: Bearer TOKEN' "
                                              "(the token it was started with)"}, status_code=401)
            return await call_next(request)

    @app.post("/score")
    async def score(request: Request) -> Response:
        ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if ctype != "application/json":
            raise ApiError(415, f"send the body as Content-Type: application/json (got {ctype or 'none'})")
        try:
            return await _score(request)
        except ClientDisconnect:
            log_line(f"client disconnected before its request was read ({_client(request)})")
            return Response(status_code=400)
        except _Gone:
            log_line(f"client went away while its request waited; not scored ({_client(request)})")
            return Response(status_code=400)
        except asyncio.TimeoutError:
            log_line(f"a request from {_client(request)} was still scoring after {request_timeout_s:g} s")
            raise ApiError(504, f"scoring took longer than this server's {request_timeout_s:g} s (--timeout); "
                                f"send fewer or shorter records per request") from None
        except ApiError:
            raise
        except Exception as err:  # noqa: BLE001 -- a bug, said in one line, the server lives on
            log_line(f"internal error: {type(err).__name__}: {err}")
            raise ApiError(500, f"internal error: {type(err).__name__}: {err}") from None

    async def _score(request: Request) -> JSONResponse:
        declared = request.headers.get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > max_body_bytes:
            raise ApiError(413, f"request body of {declared} bytes is over this server's limit of "
                                f"{max_body_bytes} bytes (--max-body); send fewer records per request")
        body = bytearray()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + body_timeout_s
        parts = request.stream().__aiter__()
        while True:
            try:
                part = await asyncio.wait_for(parts.__anext__(), max(0.0, deadline - loop.time()))
            except StopAsyncIteration:
                break
            except asyncio.TimeoutError:
                raise ApiError(408, f"request body not received whole within {body_timeout_s:g} s "
                                    f"({len(body)} bytes came); send it at once") from None
            body += part
            if len(body) > max_body_bytes:
                raise ApiError(413, f"request body is over this server's limit of {max_body_bytes} bytes "
                                    f"(--max-body); send fewer records per request")
        job = parse_body(bytes(body), labels)
        scorer.validate(job)
        try:
            out = await _while_connected(asyncio.ensure_future(submit(job)), request, request_timeout_s)
            return JSONResponse(jsonio.finite(out))  # NaN as null, as `score -o` writes
        except InputError as err:
            raise ApiError(422, str(err)) from None
        except (ValueError, KeyError) as err:
            raise ApiError(422, str(err.args[0] if err.args else err)) from None

    @app.get("/metrics")
    async def list_loaded() -> dict[str, Any]:
        return {label: {"signature": m.signature, "description": m.description, "requires": list(m.requires)}
                for label, m in scorer.metrics.items()}

    @app.get("/health")
    async def health() -> dict[str, Any]:
        return {"status": "ok", "metrics": labels, "uptime_s": round(time.time() - started, 1),
                "batching": {"enabled": lanes[MODELS].enabled, "max_batch": max_batch, "max_wait_s": max_wait_s},
                "requests": served[0], "model_calls": sum(b.batches for b in lanes.values()),
                "max_body_bytes": max_body_bytes}

    return app


class _Gone(Exception):
    """The client disconnected while its request waited to be scored."""


async def _while_connected(task: asyncio.Future, request: Request, timeout_s: float, poll_s: float = 0.5) -> Any:
    """`task`'s result; asyncio.TimeoutError after `timeout_s` (<= 0: none), _Gone when the client disconnects
    first. Either way the task is cancelled, so a request still queued is never scored (nobody would read it)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_s if timeout_s > 0 else None
    try:
        while True:
            wait = poll_s if deadline is None else min(poll_s, deadline - loop.time())
            if wait <= 0:
                raise asyncio.TimeoutError
            done, _ = await asyncio.wait({task}, timeout=wait)
            if done:
                return task.result()
            if await request.is_disconnected():
                raise _Gone
    finally:
        if not task.done():
            task.cancel()


def _client(request: Request) -> str:
    return f"{request.client.host}:{request.client.port}" if request.client else "a client"
