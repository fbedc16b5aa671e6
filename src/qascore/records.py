"""The one record type that flows through qascore, and its readers/writers.

A record is `id, question, candidate, references, negatives, context, answer` (`answer`: for QG,
the answer span a question was generated for) plus any other fields, which are kept untouched so that
scoring a file writes every input line back with only `scores`/`details` added.
"""

from __future__ import annotations

import codecs
import contextlib
import csv
import io
import itertools
import json
import math
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Iterable, Iterator, Mapping, Sequence

from qascore import jsonio
from qascore.record_checks import MAX_DEPTH, printable, surrogate_problem, value_problem, visible  # noqa: F401  (MAX_DEPTH: re-exported)

CORE_FIELDS = ("id", "question", "candidate", "references", "negatives", "context", "answer")
_LIST_FIELDS = ("references", "negatives")


class InputError(ValueError):
    """Bad input, located precisely: file, line (1-based) and field."""

    def __init__(self, message: str, *, source: str | None = None, line: int | None = None,
                 field: str | None = None) -> None:
        self.source, self.line, self.field = source, line, field
        where = ":".join(str(p) for p in (source, line) if p is not None)
        prefix = f"{where}: " if where else ""
        fld = f"field '{visible(field)}': " if field else ""
        super().__init__(f"{prefix}{fld}{message}")


@dataclass
class Record:
    """One example. Empty strings are legal; missing fields are None/empty lists."""

    id: str = ""
    question: str = ""
    candidate: str = ""
    references: list[str] = field(default_factory=list)
    negatives: list[str] = field(default_factory=list)
    context: str = ""
    answer: str = ""   # for QG: the answer span the question (candidate) was generated for
    extra: dict[str, Any] = field(default_factory=dict)
    # Where the record came from, for error messages raised later by metrics.
    source: str | None = field(default=None, repr=False, compare=False)
    line: int | None = field(default=None, repr=False, compare=False)
    present: frozenset[str] = field(default=frozenset(), repr=False, compare=False)
    # Core fields the input gave as null (`"id": null`): written back as null, not dropped (issue 42).
    nulls: frozenset[str] = field(default=frozenset(), repr=False, compare=False)

    def __post_init__(self) -> None:
        """Every field checked however the record was made (a reader, the server, `Record(...)` in Python):
        a wrong type, a lone surrogate or a too-deep pass-through value is an InputError naming the field."""
        self.check()

    def check(self, where: tuple[str, int] | None = None) -> None:
        """The checks of `__post_init__`, again: a record is a plain mutable object, so the Python API runs them
        once more when it is scored (`as_records`): `r.references = "abc"` would otherwise be scored per
        character, and `r.references.append(5)` fail deep inside a metric (issue 42); `types_hold` is its
        quick form. `where` (source, line) names a record that has no source of its own."""
        self._where = where if self.source is None and self.line is None else None
        if isinstance(self.id, int) and not isinstance(self.id, bool):
            self.id = str(self.id)
        for name in ("id", "question", "candidate", "context", "answer"):
            value = getattr(self, name)
            if not isinstance(value, str):
                raise self._bad(f"must be a string, got {type(value).__name__}", field=name)
            why = surrogate_problem(value)
            if why:
                raise self._bad(why, field=name)
        for name in _LIST_FIELDS:
            value = getattr(self, name)
            if isinstance(value, str):
                raise self._bad("must be a list of strings, got a string (wrap it in [...])", field=name)
            if isinstance(value, tuple):
                value = list(value)
                setattr(self, name, value)
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise self._bad("must be a list of strings", field=name)
            for text in value:
                why = surrogate_problem(text)
                if why:
                    raise self._bad(why, field=name)
        if not isinstance(self.extra, dict):
            raise self._bad(f"must be a dict of other fields, got {type(self.extra).__name__}", field="extra")
        for key, value in self.extra.items():
            if not isinstance(key, str):
                raise self._bad(f"field names must be strings, got {type(key).__name__} {key!r}", field=None)
            why = surrogate_problem(key) or value_problem(value)
            if why:
                raise self._bad(why if not surrogate_problem(key) else f"the field name {why}",
                                field=printable(key))

    def types_hold(self) -> bool:
        """The quick part of `check`, for every record a metric scores: the core fields still have their types.
        (A record changed after it was made is checked in full when this fails; the surrogate and depth checks
        of its texts ran when it was made.)"""
        return (type(self.id) is str and type(self.question) is str and type(self.candidate) is str
                and type(self.context) is str and type(self.extra) is dict
                and type(self.references) is list and all(type(t) is str for t in self.references)
                and type(self.negatives) is list and all(type(t) is str for t in self.negatives))

    def _bad(self, message: str, *, field: str | None) -> InputError:
        source, line = getattr(self, "_where", None) or (self.source, self.line)
        return InputError(message, source=source, line=line, field=field)

    @classmethod
    def from_dict(cls, obj: Mapping[str, Any], *, source: str | None = None,
                  line: int | None = None) -> "Record":
        """Validate types of the core fields; everything else goes to `extra`."""
        if not isinstance(obj, Mapping):
            raise InputError(f"expected a JSON object, got {type(obj).__name__}", source=source, line=line)
        kw: dict[str, Any] = {}
        for name in CORE_FIELDS:
            if name not in obj or obj[name] is None:
                continue
            value = obj[name]
            if name in _LIST_FIELDS:
                if isinstance(value, str):
                    raise InputError("must be a list of strings, got a string (wrap it in [...])",
                                     source=source, line=line, field=name)
                if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
                    raise InputError("must be a list of strings", source=source, line=line, field=name)
                kw[name] = list(value)
            elif name == "id":
                if not isinstance(value, (str, int)) or isinstance(value, bool):
                    raise InputError("must be a string or an integer", source=source, line=line, field=name)
                kw[name] = str(value)
            else:
                if not isinstance(value, str):
                    raise InputError(f"must be a string, got {type(value).__name__}",
                                     source=source, line=line, field=name)
                kw[name] = value
        extra = {k: v for k, v in obj.items() if k not in CORE_FIELDS}
        present = frozenset(k for k in CORE_FIELDS if k in kw)
        nulls = frozenset(k for k in CORE_FIELDS if k in obj and obj[k] is None)
        if "id" not in kw and line is not None:
            kw["id"] = str(line)
        return cls(**kw, extra=extra, source=source, line=line, present=present, nulls=nulls)

    def to_dict(self) -> dict[str, Any]:
        """The record as it was read: only the fields it had, then the pass-through ones."""
        out: dict[str, Any] = {}
        for name in CORE_FIELDS:
            if name in self.present or (not self.present and getattr(self, name)):
                out[name] = getattr(self, name)
            elif name in self.nulls:
                out[name] = None
        out.update(self.extra)
        return out

    def require(self, *names: str, needed_by: str = "") -> None:
        """Raise an InputError unless every named field was given; `needed_by` names who needs it."""
        for name in names:
            if self.present and name not in self.present:
                raise InputError(f"is missing; {needed_by or 'this metric'} needs it{table_hint(self.source, name)}",
                                 source=self.source, line=self.line, field=name)


def as_records(examples: Iterable[Record | Mapping[str, Any]]) -> list[Record]:
    """Accept a list (or any iterable) of records or plain dicts (the Python API's convenience); anything
    else is a TypeError that names what was given."""
    if isinstance(examples, (Mapping, Record)):
        raise TypeError(f"expected a list of records or dicts, got one {type(examples).__name__} "
                        f"(wrap it in [...])")
    if isinstance(examples, (str, bytes)) or not isinstance(examples, Iterable):
        raise TypeError(f"expected a list of records or dicts, got {type(examples).__name__}")
    out = []
    for i, ex in enumerate(examples, 1):
        if isinstance(ex, Record):
            if not ex.types_hold():  # changed since it was made (`r.references = "abc"`): say what, where
                ex.check(where=("<input>", i))
            out.append(ex)
        elif isinstance(ex, Mapping):
            out.append(Record.from_dict(ex, source="<input>", line=i))
        else:
            raise TypeError(f"expected a list of records or dicts, but item {i} is {type(ex).__name__}")
    return out


def parse_mapping(items: Sequence[str] | None) -> dict[str, str]:
    """`["candidate=answer", "references=reference*"]` -> {"candidate": "answer", ...}."""
    mapping: dict[str, str] = {}
    for item in items or ():
        if "=" not in item:
            raise InputError(f"--map {item}: must look like FIELD=COLUMN")
        key, col = item.split("=", 1)
        key, col = key.strip(), col.strip()
        if key not in CORE_FIELDS:
            raise InputError(f"--map {item}: unknown field '{key}' (fields: {', '.join(CORE_FIELDS)}; "
                             f"other columns are kept under their own names)")
        if not col:
            raise InputError(f"--map {item}: the column name is empty")
        if key in mapping:  # the last would silently win
            raise InputError(f"--map {item}: field '{key}' is already mapped to '{mapping[key]}'; map it once "
                             f"(a comma list or a glob reads several columns: {key}=a,b or {key}=col*)")
        mapping[key] = col
    return mapping


def _columns_for(pattern: str, header: Sequence[str]) -> list[str]:
    """A column spec: 'a', 'a,b' or a glob 'reference*' (numbered columns in numeric order)."""
    names: list[str] = []
    for part in pattern.split(","):
        part = part.strip()
        if "*" in part:
            rx = re.compile("^" + re.escape(part).replace(r"\*", "(.*)") + "$")
            hits = [h for h in header if rx.match(h)]
            hits.sort(key=lambda h: [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", h)])
            names.extend(hits)
        else:
            names.append(part)
    return list(dict.fromkeys(names))  # a column named twice (e.g. by a glob) counts once


# The header of each table read in this process, by source name: a record that lacks a field a metric needs
# can then say which columns there were and how to map one (`table_hint`).
_TABLE_HEADERS: dict[str, tuple[tuple[str, ...], dict[str, str]]] = {}
_DEFAULT_COLUMNS = {"references": "'references' or 'reference*' (reference1, reference2, ...)",
                    "negatives": "'negatives' or 'negative*'"}


def table_hint(source: str | None, field: str) -> str:
    """For a record read from a CSV/TSV file: which column `field` is read from, the columns the header has,
    and the --map that names another; '' for any other record."""
    table = _TABLE_HEADERS.get(source or "")
    if table is None:
        return ""
    header, mapping = table
    shown = ", ".join(visible(h) for h in header[:20]) + (f", ... ({len(header)} columns)" if len(header) > 20 else "")
    column = f"'{visible(mapping[field])}' (--map)" if field in mapping else _DEFAULT_COLUMNS.get(field, repr(field))
    return (f" (CSV/TSV: {field} is read from column {column}, which has no text on this row; the header has "
            f"{shown}; --map {field}=COLUMN reads another)")


def _read_table(lines: Iterable[str], src: str, delimiter: str, mapping: Mapping[str, str]) -> Iterator[Record]:
    """CSV/TSV from lines of text: columns map onto fields; multi-column references by a glob or a comma list."""
    ended = _EndWatch(lines)
    reader = csv.reader(ended, delimiter=delimiter)
    with _csv_errors_located(src, reader):
        try:
            header = next(reader)
        except StopIteration:
            raise InputError("file is empty", source=src) from None
        seen: dict[str, int] = {}
        for i, h in enumerate(header, 1):  # a column named twice: one of them would be dropped
            if h in seen:
                raise InputError(f"the header names column '{visible(h)}' twice (columns {seen[h]} and {i}); rename "
                                 f"one", source=src, line=1)
            seen[h] = i
        _TABLE_HEADERS[src] = (tuple(header), dict(mapping))
        cols = _column_plan(header, mapping, src)
        used = {i for idx in cols.values() for i in idx}
        n, start = 0, reader.line_num + 1
        for row in reader:
            lineno, first, start = reader.line_num, start, reader.line_num + 1
            if not row:
                continue
            if len(row) != len(header):
                if ended.done and lineno > first and any("\n" in cell for cell in row):
                    raise InputError(f"a quoted field opened on line {first} is never closed (an unclosed quote "
                                     f"runs to the end of the file, line {lineno})", source=src, line=first)
                raise InputError(f"has {len(row)} columns, header has {len(header)}", source=src, line=lineno)
            obj: dict[str, Any] = {}
            for name, idx in cols.items():
                if name in _LIST_FIELDS:
                    obj[name] = [row[i] for i in idx if row[i] != ""]
                else:
                    obj[name] = row[idx[0]]
            for i, h in enumerate(header):
                if i not in used:
                    obj[h] = row[i]
            n += 1
            yield Record.from_dict(obj, source=src, line=lineno)
    if n == 0:
        raise InputError("file has a header but no rows", source=src)


class _EndWatch:
    """The lines of a table, noting when they run out: a row that ends there inside a quote is an unclosed quote."""

    def __init__(self, lines: Iterable[str]) -> None:
        self.lines, self.done = iter(lines), False

    def __iter__(self) -> "_EndWatch":
        return self

    def __next__(self) -> str:
        try:
            return next(self.lines)
        except StopIteration:
            self.done = True
            raise


def _column_plan(header: Sequence[str], mapping: Mapping[str, str], src: str) -> dict[str, list[int]]:
    """Column indices of each field; a mapped column or glob that matches nothing is an error naming it."""
    spec = {name: name for name in CORE_FIELDS}
    spec["references"] = "references,reference*"
    spec["negatives"] = "negatives,negative*"
    spec.update(mapping)
    for key, pattern in mapping.items():
        for part in (p.strip() for p in pattern.split(",")):
            if "*" in part and not _columns_for(part, header):
                raise InputError(f"--map {key}={pattern}: no column matches '{part}' (header: {', '.join(header)})",
                                 source=src, line=1)
        for col in _columns_for(pattern, header):
            if col not in header:
                raise InputError(f"--map {key}={pattern}: column '{col}' is not in the header "
                                 f"({', '.join(header)})", source=src, line=1)
    # A column mapped to a field explicitly is not also read into the field it is named after
    # (`--map candidate=answer` leaves the `answer` field empty).
    claimed = {c for key, pattern in mapping.items() for c in _columns_for(pattern, header)}
    cols: dict[str, list[int]] = {}
    for name, pattern in spec.items():
        idx = [header.index(c) for c in _columns_for(pattern, header)
               if c in header and (name in mapping or c not in claimed)]
        if idx:
            cols[name] = idx
    return cols


@contextlib.contextmanager
def _csv_errors_located(src: str, reader: Any) -> Iterator[None]:
    """csv's own errors (an unclosed quote, a NUL byte) with the file and line; fields of any size."""
    old = csv.field_size_limit()
    csv.field_size_limit(2**31 - 1)  # a long passage in one cell is data, not an error
    try:
        yield
    except csv.Error as err:
        raise InputError(f"malformed CSV/TSV ({err})", source=src, line=reader.line_num or 1) from None
    finally:
        csv.field_size_limit(old)


class _DuplicateKey(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object whose keys are all different: JSON readers disagree on which of two equal keys wins (Python's
    keeps the last), so a record holding both is refused, as a CSV header naming a column twice is."""
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return obj


def json_value(text: str, source: str, lineno: int | None = None) -> Any:
    """json.loads with the CLI's error text (also the server's, for a request body)."""
    try:
        return json.loads(text, object_pairs_hook=_unique_keys)
    except json.JSONDecodeError as err:
        at = "" if err.msg.endswith(" at") else " at"  # "Unterminated string starting at" has its own
        raise InputError(f"malformed JSON ({err.msg}{at} column {err.colno})", source=source, line=lineno) from None
    except _DuplicateKey as err:
        raise InputError(f"the key {printable(err.key)!r} appears twice in one object (JSON readers disagree on "
                         f"which one counts); keep one", source=source, line=lineno) from None
    except (ValueError, RecursionError) as err:  # e.g. an integer of 5000 digits, [[[[... nested too deep
        msg = "nested too deeply" if isinstance(err, RecursionError) else str(err)
        if "integer string conversion" in msg:  # Python's text advises sys.set_int_max_str_digits()
            msg = f"a number of more than {sys.get_int_max_str_digits():,} digits"
        raise InputError(f"malformed JSON ({msg})", source=source, line=lineno) from None


# A number JSON output cannot hold: NaN and Infinity (Python's json reads them; no JSON parser writes them)
# and a literal beyond a double's range (1e400 reads as inf). Looked for only where this matches.
_NONFINITE_HINT = re.compile(r"NaN|Infinity|[eE][+]?\d{3}")


def parse_jsonl_line(text: str, source: str, lineno: int) -> Record | None:
    """One JSONL line as a record (None for a blank line); errors name the file and line. A number that is
    written back as null (NaN, Infinity, 1e400: JSON has no such number) draws one warning per file."""
    if not text.strip():
        return None
    obj = json_value(text, source, lineno)
    if _NONFINITE_HINT.search(text) and _has_nonfinite(text):
        _warn_nonfinite(source, lineno)
    return Record.from_dict(obj, source=source, line=lineno)


def _has_nonfinite(text: str) -> bool:
    found = []

    def number(s: str) -> float:
        x = float(s)
        if not math.isfinite(x):
            found.append(s)
        return x

    def constant(s: str) -> float:
        found.append(s)
        return float(s.replace("Infinity", "inf"))

    json.loads(text, parse_float=number, parse_constant=constant)
    return bool(found)


def _warn_nonfinite(source: str, lineno: int) -> None:
    from qascore.messages import first_time, warn

    if not first_time(f"nonfinite:{source}"):
        return

    warn(f"{source}:{lineno}: holds NaN, Infinity or a number beyond a double's range (1e400), which JSON output "
         f"cannot hold: it is written back as null (the first such line of this file)")


def _read_jsonl(lines: Iterable[str], src: str) -> Iterator[Record]:
    """JSONL from decoded lines (the whole text split on newlines, or a file streamed line by line)."""
    n = 0
    for lineno, line in enumerate(lines, 1):
        rec = parse_jsonl_line(line, src, lineno)
        if rec is not None:
            n += 1
            yield rec
    if n == 0:
        raise InputError("file is empty", source=src)


FORMATS = ("jsonl", "csv", "tsv")
STDIN = "-"


def stdin_bytes() -> IO[bytes]:
    """Standard input as bytes; an InputError when the process was started with it closed (`<&-`)."""
    if sys.stdin is None or getattr(sys.stdin, "buffer", None) is None:
        raise InputError("standard input is closed (started with <&-?); give a file, or pipe records in",
                         source="<stdin>")
    return sys.stdin.buffer


def read_records(path: str | Path | Iterable[Record | Mapping[str, Any]], *,
                 mapping: Mapping[str, str] | None = None, fmt: str | None = None) -> list[Record]:
    """Read JSONL (canonical), CSV or TSV; `fmt` overrides the extension. '-' reads standard input
    (JSONL unless `fmt` says otherwise).

    A list of dicts (or of records) is read as the lines of a JSONL file would be: each dict checked
    (`Record.from_dict`), an error naming the item (1-based, as `<input>:2`) and the field; `mapping`
    renames keys as `--map` does."""
    if not isinstance(path, (str, os.PathLike)):
        if isinstance(path, bytes) or not isinstance(path, Iterable):
            raise TypeError(f"read_records takes a file path or a list of dicts, got {type(path).__name__}")
        if fmt is not None:
            raise TypeError(f"fmt={fmt!r} names a file format; a list of dicts has none")
        records = as_records(path)
        if not records:
            raise InputError("no records (got an empty list)", source="<input>")
        return [remap(r, mapping) for r in records] if mapping else records
    if str(path) == STDIN:
        src, kind, data = "<stdin>", (fmt or "jsonl").lower(), stdin_bytes().read()
    else:
        path, src, kind = _checked_input(path, fmt)
        data = path.read_bytes()
    return parse_records(data, src, kind, mapping or {})


def _checked_input(path: str | Path, fmt: str | None, source: str | None = None) -> tuple[Path, str, str]:
    """(path, name for errors, format) of an input file that exists and has a known format."""
    path = Path(path)
    src = source or str(path)
    if not path.exists():
        raise InputError("no such file", source=src)
    if path.is_dir():
        raise InputError("is a directory, not a file of records", source=src)
    kind = (fmt or path.suffix.lstrip(".")).lower()
    if kind not in ("jsonl", "json", "ndjson", "csv", "tsv"):
        raise InputError(f"unknown format '{kind}' (use .jsonl, .csv or .tsv, or --input-format)", source=src)
    return path, src, kind


def iter_records(path: str | Path, *, mapping: Mapping[str, str] | None = None, fmt: str | None = None,
                 source: str | None = None) -> Iterator[Record]:
    """`read_records` one record at a time, so chunked scoring never holds the whole file.

    Same parsers, same errors: the bytes are decoded a line at a time (`decoded_lines`: BOM-aware, a
    byte that is not UTF-8 named by line and column). '-' streams standard input once. `source`
    names the input in errors (e.g. '<stdin>' for a spooled copy of it).
    """
    if str(path) == STDIN:
        src, kind = source or "<stdin>", (fmt or "jsonl").lower()
        opener: Any = lambda: contextlib.nullcontext(stdin_bytes())  # noqa: E731
    else:
        file, src, kind = _checked_input(path, fmt, source)
        opener = lambda: file.open("rb")  # noqa: E731
    if kind not in ("jsonl", "json", "ndjson", "csv", "tsv"):
        raise InputError(f"unknown format '{kind}' (use --input-format jsonl, csv or tsv)", source=src)
    return _stream_records(opener, src, kind, mapping or {})


def _stream_records(opener: Any, src: str, kind: str, mapping: Mapping[str, str]) -> Iterator[Record]:
    with opener() as fh:
        lines = decoded_lines(fh, src)
        if kind in ("csv", "tsv"):
            yield from _read_table(lines, src, "," if kind == "csv" else "\t", mapping)
        else:  # lines as `text.split("\n")` gives them (no newline), so JSON errors point at the same column
            records = _read_jsonl((line[:-1] if line.endswith("\n") else line for line in lines), src)
            yield from ((remap(r, mapping) for r in records) if mapping else records)


def decoded_lines(fh: IO[bytes], src: str) -> Iterator[str]:
    """The lines of a binary stream as text, split on b'\\n' as `decode_text(...).split('\\n')` would:
    a UTF-8 byte-order mark dropped, UTF-16 (by its mark) decoded whole, bad bytes an error naming
    the line and column (the messages of `decode_text`)."""
    first = fh.readline()
    if first.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):  # rare: not streamed
        text = decode_text(first + fh.read(), src)
        parts = text.split("\n")
        yield from (part + "\n" for part in parts[:-1])
        if parts[-1]:
            yield parts[-1]
        return
    if first.startswith(codecs.BOM_UTF8):
        first = first[len(codecs.BOM_UTF8):]
    lineno = 1
    for raw in itertools.chain([first], fh) if first else ():
        yield decode_line(raw, src, lineno)
        lineno += 1


def decode_line(raw: bytes, src: str, lineno: int) -> str:
    """One line's bytes as UTF-8 text; a bad byte is the error `decode_text` gives for it."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise InputError(f"byte 0x{raw[err.start]:02x} at column {err.start + 1} is not UTF-8; save the file as "
                         f"UTF-8 (e.g. iconv -f latin1 -t utf-8)", source=src, line=lineno) from None


def parse_records(data: bytes, src: str, kind: str, mapping: Mapping[str, str]) -> list[Record]:
    """Records from the bytes of one input (decoded by `decode_text`), named `src` in errors."""
    text = decode_text(data, src)
    if kind in ("jsonl", "json", "ndjson"):
        if mapping:
            return [remap(r, mapping) for r in _read_jsonl(text.split("\n"), src)]
        return list(_read_jsonl(text.split("\n"), src))
    if kind in ("csv", "tsv"):
        return list(_read_table(io.StringIO(text, newline=""), src, "," if kind == "csv" else "\t", mapping))
    raise InputError(f"unknown format '{kind}' (use --input-format jsonl, csv or tsv)", source=src)


def decode_text(data: bytes, src: str) -> str:
    """UTF-8 text, with or without a byte-order mark (Excel writes one); UTF-16 when its BOM says so.

    A byte that is not UTF-8 is an error naming the line and column, not a codec traceback.
    """
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError as err:
            raise InputError(f"starts with a UTF-16 byte-order mark but is not valid UTF-16 ({err.reason})",
                             source=src) from None
    body = data[len(codecs.BOM_UTF8):] if data.startswith(codecs.BOM_UTF8) else data
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError as err:
        start = err.start
        line = body.count(b"\n", 0, start) + 1
        column = start - (body.rfind(b"\n", 0, start) + 1) + 1
        raise InputError(f"byte 0x{body[start]:02x} at column {column} is not UTF-8; save the file as UTF-8 "
                         f"(e.g. iconv -f latin1 -t utf-8)", source=src, line=line) from None


def remap(rec: Record, mapping: Mapping[str, str]) -> Record:
    """JSONL with other key names: rebuild the record from the mapped keys."""
    obj = rec.to_dict()
    for key, col in mapping.items():
        if col not in obj:
            raise InputError(f"key '{col}' (--map {key}={col}) is missing", source=rec.source,
                             line=rec.line, field=col)
        obj[key] = obj.pop(col)
    return Record.from_dict(obj, source=rec.source, line=rec.line)


def write_jsonl(records: Iterable[Mapping[str, Any]], path: str | Path) -> None:
    with Path(path).open("w", encoding="utf-8") as fh:
        dump_jsonl(records, fh)


def dump_jsonl(records: Iterable[Mapping[str, Any]], fh: IO[str]) -> None:
    for obj in records:
        fh.write(jsonio.dumps(obj, ensure_ascii=False) + "\n")


# -- `score -o FILE`'s formats: JSONL (every record with its `scores` and `details`), or a flat CSV/TSV table -------
OUTPUT_FORMATS = ("jsonl", "csv", "tsv")
_OUTPUT_SUFFIXES = {".jsonl": "jsonl", ".json": "jsonl", ".ndjson": "jsonl", ".csv": "csv", ".tsv": "tsv"}


def output_format(path: str | None, fmt: str | None = None) -> str:
    """The format `-o PATH` is written in: `fmt` (--output-format) where given, else PATH's extension (.jsonl,
    .json, .ndjson: JSONL; .csv; .tsv). Standard output ('-'), no output and a name without an extension: JSONL.
    Another extension is a UsageError, so that a typo never writes JSONL into `scores.xlsx`."""
    from qascore.errors import UsageError

    if fmt is not None:
        if fmt.lower() not in OUTPUT_FORMATS:
            raise UsageError(f"--output-format {fmt}: choose from {', '.join(OUTPUT_FORMATS)}")
        return fmt.lower()
    if path is None or path == STDIN or os.path.isdir(path):  # a folder: `check_writable` names it
        return "jsonl"
    suffix = Path(path).suffix.lower()
    if not suffix:
        return "jsonl"
    if suffix not in _OUTPUT_SUFFIXES:
        raise UsageError(f"-o {visible(path)}: unknown output format '{visible(suffix)}' (write .jsonl, .csv or .tsv, "
                         f"or give --output-format jsonl|csv|tsv)")
    return _OUTPUT_SUFFIXES[suffix]


class TableColumns:
    """The columns of `score`'s CSV/TSV output, gathered from the input records (`see` each one, e.g. in the
    pass that checks a file before chunked scoring writes anything): the input's fields in the order they first
    appear, each list field as numbered columns (`reference1`, `reference2`, ...: the columns the CSV reader
    takes for `references`, so the table reads back), then `scores.<metric>` per metric and `correct.<metric>`
    per metric that decides (`decided`: it has a threshold). Scores and decisions a record already had (a
    scored file scored again) keep their columns, as they keep their keys in JSONL."""

    _NUMBERED = {"references": "reference", "negatives": "negative"}

    def __init__(self, labels: Sequence[str], decided: Sequence[str]) -> None:
        self.labels, self.decided = list(labels), list(decided)
        self.fields: dict[str, None] = {}
        self.lists: dict[str, int] = {}
        self.scores: dict[str, None] = {}
        self.decisions: dict[str, None] = {}

    def see(self, rec: Record) -> None:
        for key, value in rec.to_dict().items():
            if key in self._NUMBERED:
                self.fields.setdefault(key)
                self.lists[key] = max(self.lists.get(key, 0), len(value or ()))
            elif key == "scores" and isinstance(value, dict):
                self.scores.update(dict.fromkeys(value))
            elif key == "details" and isinstance(value, dict):
                self.decisions.update((k, None) for k, v in value.items() if isinstance(v, dict) and "correct" in v)
            elif key not in ("scores", "details"):
                self.fields.setdefault(key)

    def _inputs(self) -> list[str]:
        """The input's fields, less a column this run writes anew (`scores.f1` of a table scored before, now
        scored with f1 again: the new score replaces it, as it replaces its key in JSONL)."""
        made = {f"scores.{k}" for k in self.labels} | {f"correct.{k}" for k in self.decided}
        return [k for k in self.fields if k not in made]

    def header(self) -> list[str]:
        out: list[str] = []
        for key in self._inputs():
            if key in self._NUMBERED:
                out.extend(f"{self._NUMBERED[key]}{i}" for i in range(1, self.lists[key] + 1))
            else:
                out.append(key)
        out.extend(f"scores.{k}" for k in {**self.scores, **dict.fromkeys(self.labels)})
        out.extend(f"correct.{k}" for k in {**self.decisions, **dict.fromkeys(self.decided)})
        return out

    def row(self, obj: Mapping[str, Any]) -> list[str]:
        """One scored record (an output line of JSONL, as a dict) as the header's cells."""
        out: list[str] = []
        for key in self._inputs():
            value = obj.get(key)
            if key in self._NUMBERED:
                items = list(value or ())
                out.extend(_cell(items[i] if i < len(items) else None) for i in range(self.lists[key]))
            else:
                out.append(_cell(value))
        scores = _object(obj.get("scores"))
        details = _object(obj.get("details"))
        out.extend(_cell(scores.get(k)) for k in {**self.scores, **dict.fromkeys(self.labels)})
        for k in {**self.decisions, **dict.fromkeys(self.decided)}:
            part = _object(details.get(k))
            if "correct" in part:
                out.append(_cell(bool(part["correct"])))
            else:  # an empty candidate has no `correct` in JSONL; it is not correct
                out.append(_cell(False) if k in self.decided and part.get("empty_candidate") else "")
        return out


def _object(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _cell(value: Any) -> str:
    """A value as CSV text: strings as they are, booleans true/false, numbers as Python writes them (shortest
    exact), a missing value or one JSON cannot hold (NaN) empty, lists and objects as JSON."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value) if math.isfinite(value) else ""
    return jsonio.dumps(value, ensure_ascii=False)


def table_writer(fh: IO[str], fmt: str) -> Any:
    """A csv writer for `fmt` ('csv' or 'tsv'): quotes only where needed, lines end in a newline, as JSONL's do."""
    return csv.writer(fh, delimiter="," if fmt == "csv" else "\t", lineterminator="\n")


def dump_table(objects: Sequence[Mapping[str, Any]], columns: TableColumns, fh: IO[str], fmt: str) -> None:
    """Scored records (`scored_objects`) as a CSV/TSV table with a header."""
    writer = table_writer(fh, fmt)
    writer.writerow(columns.header())
    writer.writerows(columns.row(obj) for obj in objects)


def check_unique_ids(records: Iterable[Record], *, strict: bool = False) -> None:
    """Repeated ids make scored rows ambiguous to join back: a warning, or an error when `strict`."""
    ids = IdCheck(strict=strict)
    for rec in records:
        ids.see(rec)
    ids.finish()


class IdCheck:
    """`check_unique_ids` one record at a time (chunked scoring): keeps each id's first line, not the records.

    With `fail_fast` (chunked --strict) the first repeat raises at once, before more chunks are scored.
    """

    def __init__(self, *, strict: bool = False, fail_fast: bool = False) -> None:
        self.strict, self.fail_fast = strict, fail_fast
        self.first: dict[str, int | None] = {}
        self.repeat: tuple[int | None, Record] | None = None
        self.count = 0

    def see(self, rec: Record) -> None:
        if rec.id not in self.first:
            self.first[rec.id] = rec.line
            return
        self.count += 1
        if self.repeat is None:
            self.repeat = (self.first[rec.id], rec)
            if self.strict and self.fail_fast:
                self.finish()

    def finish(self) -> None:
        if self.repeat is None:
            return
        earlier, rec = self.repeat
        more = f" (and {self.count - 1} more repeated ids)" if self.count > 1 else ""
        message = f"id '{rec.id}' repeats line {earlier}{more}"
        if self.strict:
            raise InputError(message, source=rec.source, line=rec.line, field="id")
        from qascore.messages import warn

        warn(f"{rec.source}:{rec.line}: field 'id': {message}; --strict makes this an error")
