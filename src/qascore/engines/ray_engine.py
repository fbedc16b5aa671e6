"""`qascore score --engine ray`: the chunks of `score --chunk-size` scored on a Ray Data actor pool.

Why Ray Data and not a scheduler of our own: it gives streaming execution,
back-pressure, an actor pool whose actors keep their models between batches,
and the same code on one machine (a local runtime, started when no
`--address` is given) or a cluster.

The dataset holds one row per chunk: where the chunk starts in the JSONL
input (byte offset, line number) and how many records it has, found by a
cheap scan of the raw lines in the driver (memory: one row per chunk). Each
actor builds the metrics once from their specs (plus any two-pass state
fitted by the driver), reads its chunk's lines, and scores them with
`stream.score_chunk`, the local engine's own function, so chunk boundaries,
scores, details and signatures are the local engine's. Rows come back in
input order (`preserve_order`) and the driver writes them as they arrive.
Errors in a record come back as the CLI's text. On a cluster the input path
must be readable by every node, as for Ray's own readers.
"""

from __future__ import annotations

import codecs
import json
import logging
import os
import signal
import threading
import warnings
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Any, Iterator, Mapping, Sequence

from qascore.metrics.base import Metric
from qascore.records import InputError, Record, decode_line, parse_jsonl_line, remap
from qascore.stream import ChunkOut, forget_memos, score_chunk

INSTALL_HINT = "--engine ray needs Ray: pip install 'qascore[ray]'"

Spec = tuple[str, str, dict[str, str]]  # label, metric name, options as text (metrics.registry.labelled_specs)


def chunk_starts(path: Path, chunk_size: int, skip: int, source: str | None = None) -> list[dict[str, int]]:
    """One row per chunk after the first `skip` records: byte offset, first line number, record count."""
    rows: list[dict[str, int]] = []
    seen, offset = 0, 0
    with path.open("rb") as fh:
        for lineno, raw in enumerate(fh, 1):
            if lineno == 1 and raw.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
                raise InputError("starts with a UTF-16 byte-order mark: --engine ray reads UTF-8 JSONL; convert it "
                                 "(iconv -f utf-16 -t utf-8) or use the local engine", source=source or str(path))
            if (raw[len(codecs.BOM_UTF8):] if lineno == 1 and raw.startswith(codecs.BOM_UTF8) else raw).strip():
                if seen >= skip:
                    if seen % chunk_size == 0 or seen == skip:  # aligned as stream.chunks
                        rows.append({"offset": offset, "line": lineno, "count": 0})
                    rows[-1]["count"] += 1
                seen += 1
            offset += len(raw)
    return rows


def read_chunk(path: str, offset: int, line: int, count: int, mapping: Mapping[str, str],
               source: str | None = None) -> list[Any]:
    """The `count` records starting at byte `offset` (line number `line`), parsed as `read_records` does
    (a UTF-8 byte-order mark dropped, a byte that is not UTF-8 named by line and column)."""
    src = source or path
    out: list[Record] = []
    with open(path, "rb") as fh:
        fh.seek(offset)
        lineno = line
        while len(out) < count:
            raw = fh.readline()
            if not raw:
                break
            if offset == 0 and lineno == 1 and raw.startswith(codecs.BOM_UTF8):
                raw = raw[len(codecs.BOM_UTF8):]
            rec = parse_jsonl_line(decode_line(raw.rstrip(b"\n"), src, lineno), src, lineno)
            if rec is not None:
                out.append(remap(rec, mapping) if mapping else rec)
            lineno += 1
    return out


class ChunkScorer:
    """A Ray Data actor: builds the metrics once, then scores one chunk per row."""

    def __init__(self, path: str, specs: Sequence[Spec], states: dict[str, Any], mapping: dict[str, str],
                 source: str | None = None) -> None:
        from qascore.metrics.registry import load_named  # typed option parsing and error texts, as the CLI's

        self.path, self.mapping, self.source = path, mapping, source
        self.metrics: list[tuple[str, Metric]] = []
        for label, name, opts in specs:
            m = load_named(name, opts)
            if label in states:
                m.use_corpus(states[label])
            self.metrics.append((label, m))

    def __call__(self, batch: dict[str, Any]) -> dict[str, list[str]]:
        texts, scores, errors = [], [], []
        for offset, line, count in zip(batch["offset"], batch["line"], batch["count"]):
            try:
                records = read_chunk(self.path, int(offset), int(line), int(count), self.mapping, self.source)
                lines, main = score_chunk(records, self.metrics)
                texts.append("".join(lines))
                scores.append(json.dumps(main))
                errors.append("")
            except (InputError, ValueError, KeyError) as err:
                texts.append("")
                scores.append("{}")
                errors.append(str(err.args[0] if isinstance(err, KeyError) and err.args else err))
            forget_memos(self.metrics)
        return {"text": texts, "scores": scores, "error": errors}


@contextmanager
def kept_signal_handlers() -> Iterator[None]:
    """SIGINT and SIGTERM handled after `ray.init` as before it (the command's: cli.errors). Ray's driver sets
    a SIGTERM handler of its own (`sys.exit(15)`) and its core a C-level one that prints a stack dump and
    aborts (issue 42); given back, a stopped run exits 130 / 143 with one line and keeps its FILE.part, as
    the local engine does."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    kept = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, handler in kept.items():
            if handler is not None:  # None: not installed from Python; nothing to give back
                signal.signal(sig, handler)


def pool_size(workers: int, n_chunks: int, *, local: bool) -> int:
    """The actors to start: no more than there are chunks to score, and on a local runtime no more than this
    machine's CPUs (each actor is a process that loads its own models: `--workers 200` on a laptop would
    start 200 of them). At least 1."""
    size = min(workers, max(1, n_chunks))
    if local:
        size = min(size, max(2, _cpus()))
    return max(1, size)


def _cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


LOOPBACK_ENV = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"


@contextmanager
def on_loopback() -> Iterator[None]:
    """A local Ray runtime whose servers (GCS, raylet, object manager, workers) listen on 127.0.0.1 only.

    Ray's own switch: with clusters "disabled" (its Windows/macOS default, `RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0`)
    the node's address is the loopback one and its gRPC servers bind it; otherwise they listen on every
    interface, unauthenticated, for the whole run. The variable reaches the processes Ray starts; a value the
    user set is theirs and is kept (set it to 1 to serve the runtime to other machines).
    """
    if LOOPBACK_ENV in os.environ:
        yield
        return
    from ray._private import ray_constants

    kept = getattr(ray_constants, "ENABLE_RAY_CLUSTER", True)
    os.environ[LOOPBACK_ENV] = "0"
    ray_constants.ENABLE_RAY_CLUSTER = False  # read when the node's address is chosen; the module is loaded
    try:
        yield
    finally:
        os.environ.pop(LOOPBACK_ENV, None)
        ray_constants.ENABLE_RAY_CLUSTER = kept


class RayEngine:
    """The `stream.Engine` that scores on Ray: call it with (skip, states)."""

    def __init__(self, path: str | Path, specs: Sequence[Spec], *, chunk_size: int, workers: int = 2,
                 address: str | None = None, fmt: str | None = None, mapping: Mapping[str, str] | None = None,
                 source: str | None = None) -> None:
        self.path, self.source = Path(path), source
        kind = (fmt or self.path.suffix.lstrip(".")).lower()
        if kind not in ("jsonl", "json", "ndjson"):
            raise ValueError(f"--engine ray reads JSONL (got {kind!r}); convert the file, or use the local engine")
        try:
            import ray  # noqa: F401
            import ray.data  # noqa: F401
        except ImportError:
            raise ValueError(INSTALL_HINT) from None
        if workers < 1:
            raise ValueError(f"--workers must be at least 1 (got {workers})")
        self.specs, self.chunk_size, self.workers = list(specs), chunk_size, workers
        self.address, self.mapping = address, dict(mapping or {})

    def __call__(self, skip: int, states: dict[str, Any]) -> Iterator[ChunkOut]:
        import ray

        rows = chunk_starts(self.path, self.chunk_size, skip, self.source)
        if not rows:
            return
        workers = pool_size(self.workers, len(rows), local=not self.address)
        if not ray.is_initialized():
            kw: dict[str, Any] = {"address": self.address} if self.address else {"num_cpus": max(2, workers)}
            with kept_signal_handlers(), (nullcontext() if self.address else on_loopback()):
                ray.init(include_dashboard=False, log_to_driver=False, logging_level=logging.ERROR, **kw)
        logging.getLogger("ray.data").setLevel(logging.ERROR)  # before the switch below, which logs a warning
        ctx = ray.data.DataContext.get_current()
        ctx.execution_options.preserve_order = True
        ctx.enable_progress_bars = False
        ds: Any = ray.data.from_items(rows, override_num_blocks=min(len(rows), 200))
        # max_restarts=0: a restarted actor could not get its constructor arguments back (Ray logs an error
        # line saying so for every actor); a failed chunk fails the run, and --resume continues it.
        with warnings.catch_warnings():  # no named parameter for it yet: Ray warns that the kwargs route will go
            warnings.filterwarnings("ignore", message=".*ray_remote_args.*")
            ds = ds.map_batches(ChunkScorer, batch_size=1, compute=ray.data.ActorPoolStrategy(size=workers),
                                num_cpus=1, max_restarts=0,
                                fn_constructor_kwargs={"path": str(self.path.resolve()), "specs": self.specs,
                                                       "states": states, "mapping": self.mapping,
                                                       "source": self.source})
        for row in ds.iter_rows():
            if row["error"]:
                raise InputError(row["error"])
            # json.dumps escapes newlines inside strings, so "\n" only ends lines.
            yield [line + "\n" for line in row["text"].split("\n")[:-1]], json.loads(row["scores"])
