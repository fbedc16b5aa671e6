"""Chunked scoring (`qascore score --chunk-size N`): read, score and write N records at a time.

Why: scoring a million records must not hold a million records, their scores
or their details in memory. Every chunk goes through the same metric objects,
so models load once; output lines are written chunk by chunk, in input order.

Exactness: a record's scores equal whole-file scoring when they do not depend
on the other records (`Metric.corpus_dependence()` is None). A metric that
does depend on them either fits its corpus state in a first pass
(`fit_corpus`: IDF-weighted BERTScore counts WordPieces of every reference,
tokeniser only) or is refused with the reason (CIDEr: its IDF would need every
distinct n-gram of the file in memory). Corpus scores are means of the
per-record scores with an exactly rounded sum, so they do not depend on chunk
size or order (a resumed run prints the same figures), and equal the whole-file
path's (`metrics.base.exact_mean`: the whole file is one chunk).

Output: `-o FILE` is written to FILE.part and renamed to FILE when the last
chunk is in, so FILE only ever holds a complete result (issue 13); a killed
run leaves FILE.part, an in-order prefix. A run holds FILE.part under an
exclusive lock until FILE is in place (`output_claim`), so a second run on the
same FILE stops before writing anything. `-o -` streams the lines to
standard output chunk by chunk (the corpus table goes to stderr).

Resume: the output is always an in-order prefix of the input, so `--resume`
drops a partial last line, checks that each line is the input record at the
same position (its id, or its candidate where the input has no ids), keeps
the lines of whole chunks (a chunk cut short is scored again whole, so model
metrics batch, hence round, exactly as in an uninterrupted run), adds their
scores to the corpus means and scores only the rest. It continues FILE.part
when there is one (a killed run), else FILE itself (a finished run, or a file
cut short by hand), and renames the result to FILE as a fresh run does.
"""

from __future__ import annotations

import ctypes
import io
import json
import math
import os
import stat
import sys
from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Mapping, Sequence

from qascore import jsonio, output_claim
from qascore.metrics.base import Metric, MetricResult
from qascore.records import IdCheck, InputError, Record, TableColumns, iter_records, table_writer

STDOUT = "-"

DEFAULT_CHUNK_SIZE = 1000

# One scored chunk: its output lines (JSON, newline-terminated) and each label's main scores.
ChunkOut = tuple[list[str], dict[str, list[float]]]
Labelled = Sequence[tuple[str, Metric]]
# An engine: (records to skip, two-pass states by label) -> the scored chunks of the rest, in order.
Engine = Callable[[int, dict[str, Any]], Iterator[ChunkOut]]


class ExactMean:
    """Mean of a stream of floats whose sum is exactly rounded (math.fsum's partials), in any order."""

    def __init__(self) -> None:
        self.partials: list[float] = []
        self.n = 0

    def add(self, x: float) -> None:
        i = 0
        for y in self.partials:
            if abs(x) < abs(y):
                x, y = y, x
            hi = x + y
            lo = y - (hi - x)
            if lo:
                self.partials[i] = lo
                i += 1
            x = hi
        self.partials[i:] = [x]
        self.n += 1

    def extend(self, xs: Iterable[float]) -> None:
        for x in xs:
            self.add(x)

    @property
    def value(self) -> float:
        return math.fsum(self.partials) / self.n if self.n else 0.0


@dataclass
class Summary:
    """What `score` prints per metric: corpus mean, count, signature."""

    label: str
    signature: str
    mean: ExactMean = field(default_factory=ExactMean)

    @property
    def corpus(self) -> float:
        return self.mean.value


def chunks(items: Iterable[Any], size: int, start: int = 0) -> Iterator[list[Any]]:
    """Lists of `size` items; the items start at position `start` of the file, and chunks stay aligned
    to multiples of `size` from the file's start (the first is shorter), so a resumed run batches
    exactly as an uninterrupted one (model metrics' padding, hence their last digits, depends on it)."""
    it = iter(items)
    first = size - start % size
    while batch := list(islice(it, first)):
        yield batch
        first = size


def scored_objects(records: Sequence[Record], results: Sequence[tuple[str, MetricResult]]) -> list[dict[str, Any]]:
    """Each record as it was read plus `scores` (and `details`): the output line of `score`."""
    out = []
    for i, rec in enumerate(records):
        obj = rec.to_dict()
        obj["scores"] = {**_earlier(obj, "scores", rec), **{label: r.scores[i] for label, r in results}}
        details = {label: d for label, r in results if (r.details or r.empty) and (d := r.example(i))}
        earlier = _earlier(obj, "details", rec)
        if details or earlier:
            obj["details"] = {**earlier, **details}
        out.append(obj)
    return out


def _earlier(obj: dict[str, Any], key: str, rec: Record) -> dict[str, Any]:
    """The `scores` (or `details`) a record already had (a file scored before, now scored with another metric):
    kept, a metric scored again replacing its own entry (issue 42). A field of that name that is not an
    object cannot be merged: it is replaced, and a warning says so once."""
    value = obj.get(key)
    if value is None or isinstance(value, dict):
        return value or {}
    from qascore.messages import first_time, warn

    if first_time(f"replaced:{key}:{rec.source}"):
        where = ":".join(str(p) for p in (rec.source, rec.line) if p is not None)
        warn(f"{where + ': ' if where else ''}field '{key}' is not an object; the output replaces it with this "
             f"run's {key}")
    return {}


def table_columns(records: Iterable[Record], metrics: Labelled) -> TableColumns:
    """The CSV/TSV output's columns for these records and metrics (`correct.<label>` for each metric with a
    threshold: `Metric.decision_threshold`)."""
    columns = TableColumns([label for label, _ in metrics],
                           [label for label, m in metrics if m.decision_threshold() is not None])
    for rec in records:
        columns.see(rec)
    return columns


def score_chunk(records: Sequence[Record], metrics: Labelled) -> ChunkOut:
    """Score one chunk with every metric; the output lines and the main scores per label."""
    results = [(label, m.score(records)) for label, m in metrics]
    lines = [jsonio.dumps(obj, ensure_ascii=False) + "\n" for obj in scored_objects(records, results)]
    return lines, {label: r.scores for label, r in results}


def refuse_corpus_level(metrics: Labelled, *, two_pass: bool, what: str = "scored in chunks",
                        instead: str = "leave out --chunk-size to score it in one pass over the whole file in memory"
                        ) -> None:
    """Raise the reason when a metric's record scores would depend on which records share its call."""
    for label, m in metrics:
        if type(m).corpus is not Metric.corpus:
            raise ValueError(f"{label} cannot be {what}: its corpus score is not a mean of record scores; {instead}")
        why = m.corpus_dependence()
        if why is not None and not (two_pass and type(m).fit_corpus is not Metric.fit_corpus):
            raise ValueError(f"{label} cannot be {what}: {why}; {instead}")


def prepare(metrics: Labelled, records: Callable[[], Iterable[Record]]) -> dict[str, Any]:
    """Refuse metrics that cannot be chunked; fit the two-pass ones. Returns label -> fitted state."""
    refuse_corpus_level(metrics, two_pass=True)
    states = {}
    for label, m in metrics:
        why = m.corpus_dependence()
        if why is not None:
            say(f"{label}: first pass over the file ({why})...")
            states[label] = m.fit_corpus(records())
            m.use_corpus(states[label])
    return states


def say(message: str) -> None:
    """A progress line on stderr, only where a terminal watches (or QASCORE_PROGRESS=1): logs stay quiet."""
    from qascore.progress import enabled

    if enabled():
        print(message, file=sys.stderr)


def forget_memos(metrics: Labelled = ()) -> None:
    """Drop per-process memos of texts (tokens, BLEU statistics, keyphrase weights) between chunks.

    They speed up one call over repeated texts; kept across a million records
    they would grow with the file (KPW's has no bound) and break flat memory.
    Each metric knows its own memos (`Metric.forget_memos`).
    """
    from qascore.metrics.ngrams import clear_cache as clear_ngrams
    from qascore.text import clear_cache as clear_tokens

    clear_tokens()
    clear_ngrams()
    for _, metric in metrics:
        metric.forget_memos()
    if sys.platform.startswith("linux"):  # hand freed heap (tensors of the last chunk) back to the OS
        try:
            ctypes.CDLL("libc.so.6").malloc_trim(0)
        except (OSError, AttributeError):
            pass


def local_chunks(records: Iterable[Record], metrics: Labelled, chunk_size: int, start: int = 0
                 ) -> Iterator[ChunkOut]:
    """The local engine: one chunk at a time in this process (records from position `start`)."""
    for batch in chunks(records, chunk_size, start):
        yield score_chunk(batch, metrics)
        forget_memos(metrics)


def _drop_partial_line(path: Path) -> None:
    """A run killed mid-write leaves a line without its newline: cut it (it is scored again)."""
    with path.open("rb+") as fh:
        size = fh.seek(0, 2)
        if size == 0:
            return
        fh.seek(size - 1)
        if fh.read(1) == b"\n":
            return
        pos = size
        while pos > 0:
            step = min(65536, pos)
            fh.seek(pos - step)
            block = fh.read(step)
            cut = block.rfind(b"\n")
            if cut >= 0:
                fh.truncate(pos - step + cut + 1)
                return
            pos -= step
        fh.truncate(0)


def resume(output: Path, records: Iterable[Record], summaries: Sequence[Summary], chunk_size: int) -> int:
    """Check the output's lines against the input and keep its whole chunks; how many records to skip.

    Lines of a chunk cut short are dropped and scored again with their whole
    chunk, so model metrics batch exactly as in an uninterrupted run.
    """
    if not output.exists():
        return 0
    _drop_partial_line(output)
    src = iter(records)
    labels = {s.label for s in summaries}
    done, kept_bytes, offset = 0, 0, 0
    pending: list[dict[str, Any]] = []  # scores of the chunk being read, added once it is whole
    with output.open("rb") as fh:
        for lineno, raw in enumerate(fh, 1):
            offset += len(raw)
            rec = next(src, None)
            if rec is None:
                raise InputError("--resume: the output has more lines than the input has records",
                                 source=str(output), line=lineno)
            try:
                obj = json.loads(raw.decode("utf-8"))  # decoded here: json.loads(bytes) guesses UTF-16 from a BOM
            except json.JSONDecodeError as err:
                raise InputError(f"--resume: malformed output line ({err.msg})", source=str(output),
                                 line=lineno) from None
            except UnicodeDecodeError as err:  # a binary tail (a disk error, another program's bytes)
                raise InputError(f"--resume: this line is not UTF-8 text (byte 0x{raw[err.start]:02x} at column "
                                 f"{err.start + 1}); remove the damaged lines or start afresh without --resume",
                                 source=str(output), line=lineno) from None
            mine = (str(obj["id"]) if obj.get("id") is not None else None, obj.get("candidate"))
            theirs = (rec.id if "id" in rec.present else None, rec.candidate)
            if mine != theirs:
                raise InputError(_not_the_same(mine, theirs), source=str(output), line=lineno)
            scores = obj.get("scores", {})
            for s in summaries:
                if s.label not in scores:
                    raise InputError(f"--resume: no score for '{s.label}' (written with other metrics?)",
                                     source=str(output), line=lineno)
            extra = [k for k in scores if k not in labels] if isinstance(scores, dict) else []
            if extra:  # its lines would hold scores the lines scored now do not
                raise InputError(f"--resume: this line has scores for {', '.join(map(repr, extra))} too, which this "
                                 f"run does not score (written with other metrics: give the same -m options, or "
                                 f"start afresh without --resume)", source=str(output), line=lineno)
            pending.append(scores)
            if len(pending) == chunk_size:
                for s in summaries:
                    s.mean.extend(_number(x[s.label]) for x in pending)
                done, kept_bytes, pending = done + chunk_size, offset, []
    if pending and next(src, None) is None:  # the file's last chunk, shorter but whole
        for s in summaries:
            s.mean.extend(_number(x[s.label]) for x in pending)
        done, kept_bytes, pending = done + len(pending), offset, []
    if pending:
        with output.open("rb+") as fh:
            fh.truncate(kept_bytes)
    return done


def _not_the_same(mine: tuple[str | None, Any], theirs: tuple[str | None, Any]) -> str:
    """Why a line of the output is not the input record at its position: another id, or the same id with
    another candidate."""
    if mine[0] is not None and mine[0] == theirs[0]:
        return (f"--resume: this line is record {mine[0]!r} with another candidate than the input's record "
                f"{theirs[0]!r} at that position (the input changed since it was written?)")
    return (f"--resume: this line is record {mine[0] or mine[1]!r} but the input has {theirs[0] or theirs[1]!r} "
            f"at that position (written from another input?)")


RESUME_JSONL_ONLY = ("--resume continues JSONL output only (it checks each line written against the input); "
                     "write -o FILE.jsonl to resume, or leave out --resume")


def _table_text(columns: TableColumns, fmt: str) -> Callable[[list[str]], str]:
    """Turn each chunk's output lines (JSON) into rows of the table; the header goes before the first chunk's."""
    first = True

    def render(lines: list[str]) -> str:
        nonlocal first
        buf = io.StringIO()
        writer = table_writer(buf, fmt)
        if first:
            writer.writerow(columns.header())
            first = False
        writer.writerows(columns.row(json.loads(line)) for line in lines)
        return buf.getvalue()

    return render


def _number(x: Any) -> float:
    return math.nan if x is None else float(x)  # NaN is written as null (qascore.jsonio)


@contextmanager
def naming(path: str | Path | None) -> Iterator[None]:
    """An OSError without a file name raised inside (a write that finds the disk full, a read-only file
    system, fchmod) comes out naming `path`: `out.jsonl.part: No space left on device` (issue 42)."""
    try:
        yield
    except OSError as err:
        if path is None or err.filename is not None or not err.errno:
            raise
        raise OSError(err.errno, err.strerror or str(err), str(path)) from None


def take_permissions(fd: int, target: str | Path) -> None:
    """Give the file open on `fd`, about to replace `target`, what `target` has: its mode, and its owner and
    group where this process may set them (root may; others keep their own, a group of theirs still passes).
    A `target` that does not exist yet: what open() gives a new file (0666 less the umask)."""
    try:
        st = os.stat(target)
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        os.fchmod(fd, 0o666 & ~umask)
        return
    if hasattr(os, "fchown"):
        for uid, gid in ((st.st_uid, st.st_gid), (-1, st.st_gid)):
            try:
                os.fchown(fd, uid, gid)
                break
            except OSError:
                continue
    os.fchmod(fd, stat.S_IMODE(st.st_mode))  # after chown, which may clear setuid/setgid bits


def _open_partial(fd: int, like: Path | None, append: bool) -> Any:
    """FILE.part (held on `fd`, `output_claim.claim`) for writing: emptied unless `append`, and given the
    permissions of `like` (FILE; the umask's for a file that does not exist; None keeps its own), so the
    records of a file only its owner may read are never readable by others on the way (issue 42)."""
    if like is not None:
        take_permissions(fd, like)
    if not append:
        os.ftruncate(fd, 0)
    return os.fdopen(fd, "a" if append else "w", encoding="utf-8")


def partial_path(output: str | Path) -> Path:
    """Where chunked scoring writes until the last chunk is in: FILE.part, next to FILE."""
    out = Path(output)
    return out.with_name(out.name + ".part")


def score_file(path: str | Path, metrics: Labelled, *, output: str | Path | None = None,
               chunk_size: int = DEFAULT_CHUNK_SIZE, resume_output: bool = False,
               mapping: Mapping[str, str] | None = None, fmt: str | None = None,
               engine: Engine | None = None, source: str | None = None, strict: bool = False,
               output_format: str = "jsonl") -> tuple[list[Summary], int]:
    """Score `path` in chunks, appending to `output` in input order; (summaries, records newly scored).

    `engine(skip, states)` yields the scored chunks of the input after its
    first `skip` records, metrics using the two-pass `states` (default: this
    process, `local_chunks`). `output` '-' writes standard output; `source`
    names the input in errors; repeated ids warn (or, `strict`, stop the run).
    `output_format` 'csv' or 'tsv' writes a table (`TableColumns`, its columns
    gathered in the checking pass) instead of JSONL; it cannot be resumed.
    """
    if chunk_size < 1:
        raise ValueError(f"--chunk-size must be at least 1 (got {chunk_size})")
    to_stdout = output is not None and str(output) == STDOUT
    if resume_output and (output is None or to_stdout):
        raise ValueError("--resume needs --output: it continues the file written there"
                         + (" (-o - writes standard output, which cannot be continued)" if to_stdout else ""))
    if resume_output and output_format != "jsonl":
        raise ValueError(RESUME_JSONL_ONLY)

    def read() -> Iterator[Record]:
        return iter_records(path, mapping=mapping, fmt=fmt, source=source)

    ids = IdCheck(strict=strict, fail_fast=True)
    columns = table_columns((), metrics) if output_format != "jsonl" else None
    for batch in chunks(read(), chunk_size):  # every record checked (ids, each metric's fields) before
        for rec in batch:                     # the first line is written anywhere: a refused run writes nothing
            ids.see(rec)
            if columns is not None:  # a table's header names every column before the first row
                columns.see(rec)
        for _, m in metrics:
            m.validate(batch)
    states = prepare(metrics, read)
    summaries = [Summary(label, m.signature) for label, m in metrics]
    out = Path(output) if output is not None and not to_stdout else None
    part = partial_path(out) if out is not None else None
    skip = 0
    fd, existed = -1, False
    if part is not None:  # held until FILE is in place: a second run on the same -o is refused here
        with naming(part):
            fd, created = output_claim.claim(part)
        existed = not created
    fh: Any = sys.stdout if to_stdout else None
    render = (lambda lines: "".join(lines)) if columns is None else _table_text(columns, output_format)
    n = 0
    try:  # opened inside: a stop (Ctrl-C, SIGTERM) at any point leaves no empty FILE.part
        if resume_output and out is not None and part is not None:
            prefix = part if existed else out
            with naming(prefix):
                skip = resume(prefix, read(), summaries, chunk_size)
            if skip:  # named before the rename: where the kept records were found
                print(f"resuming after {skip} records already in {prefix}", file=sys.stderr)
            if prefix == out and out.exists():  # continued under FILE.part, renamed back when complete
                with naming(out):
                    fd, existed = output_claim.adopt(fd, out, part), True
        if engine is None:
            def engine(k: int, _: dict[str, Any]) -> Iterator[ChunkOut]:
                return local_chunks(islice(read(), k, None), metrics, chunk_size, k)
        if part is not None and out is not None:
            # permissions: FILE's; FILE.part's own when it continues a killed run (FILE moved there on resume)
            like = out if out.exists() or not existed else part
            with naming(part):
                fh = _open_partial(fd, None if like == part else like, append=bool(skip))
        for lines, scores in engine(skip, states):
            if fh is not None:
                with naming(part if part is not None else "standard output"):
                    fh.write(render(lines))
                    fh.flush()
            for s in summaries:
                s.mean.extend(scores[s.label])
            n += len(lines)
    except BaseException:
        if part is not None:  # this run holds FILE.part (a run refused above never gets here)
            size = os.fstat(fd).st_size
            if size and fh is not None:  # records written by this run (a killed run's part stays as it was)
                from qascore.messages import warn

                warn(f"{part} keeps the records scored before this stopped; "
                     + ("--resume continues from there" if columns is None else
                        "--resume continues JSONL output only, so score again to write the table"))
            elif not size:
                part.unlink(missing_ok=True)
            if fh is not None:
                fh.close()
            else:
                os.close(fd)
        raise
    if part is not None and out is not None:
        with naming(part):
            if out.exists():  # a file that appeared (or changed) while scoring: its permissions still win
                take_permissions(fh.fileno(), out)
            fh.flush()
        os.replace(part, out)  # still locked: no other run can take FILE.part until FILE is in place
        fh.close()
    ids.finish()
    return summaries, n
