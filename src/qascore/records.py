"""The one record type that flows through qascore, and its readers/writers.

A record is `id, question, candidate, references, negatives, context` plus any
other fields, which are kept untouched so that scoring a file writes every
input line back with only `scores`/`details` added.
"""

from __future__ import annotations

import csv
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping, Sequence

CORE_FIELDS = ("id", "question", "candidate", "references", "negatives", "context")
_LIST_FIELDS = ("references", "negatives")


class InputError(ValueError):
    """Bad input, located precisely: file, line (1-based) and field."""

    def __init__(self, message: str, *, source: str | None = None, line: int | None = None,
                 field: str | None = None) -> None:
        self.source, self.line, self.field = source, line, field
        where = ":".join(str(p) for p in (source, line) if p is not None)
        prefix = f"{where}: " if where else ""
        fld = f"field '{field}': " if field else ""
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
    extra: dict[str, Any] = field(default_factory=dict)
    # Where the record came from, for error messages raised later by metrics.
    source: str | None = field(default=None, repr=False, compare=False)
    line: int | None = field(default=None, repr=False, compare=False)
    present: frozenset[str] = field(default=frozenset(), repr=False, compare=False)

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
                if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
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
        if "id" not in kw and line is not None:
            kw["id"] = str(line)
        return cls(**kw, extra=extra, source=source, line=line, present=present)

    def to_dict(self) -> dict[str, Any]:
        """The record as it was read: only the fields it had, then the pass-through ones."""
        out: dict[str, Any] = {}
        for name in CORE_FIELDS:
            if name in self.present or (not self.present and getattr(self, name)):
                out[name] = getattr(self, name)
        out.update(self.extra)
        return out

    def require(self, *names: str) -> None:
        """Raise an InputError unless every named field was given."""
        for name in names:
            if self.present and name not in self.present:
                raise InputError("is required by this metric but missing",
                                 source=self.source, line=self.line, field=name)


def as_records(examples: Iterable[Record | Mapping[str, Any]]) -> list[Record]:
    """Accept records or plain dicts (the Python API's convenience)."""
    out = []
    for i, ex in enumerate(examples, 1):
        out.append(ex if isinstance(ex, Record) else Record.from_dict(ex, source="<input>", line=i))
    return out


def parse_mapping(items: Sequence[str] | None) -> dict[str, str]:
    """`["candidate=answer", "references=reference*"]` -> {"candidate": "answer", ...}."""
    mapping: dict[str, str] = {}
    for item in items or ():
        if "=" not in item:
            raise InputError(f"column mapping '{item}' must look like FIELD=COLUMN")
        key, col = item.split("=", 1)
        key, col = key.strip(), col.strip()
        if key not in CORE_FIELDS and not key:
            raise InputError(f"column mapping '{item}' has an empty field name")
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


def _read_table(path: Path, delimiter: str, mapping: Mapping[str, str]) -> Iterator[Record]:
    """CSV/TSV: columns map onto fields; multi-column references by a glob or a comma list."""
    src = str(path)
    with path.open(newline="", encoding="utf-8") as fh:
        reader = csv.reader(fh, delimiter=delimiter)
        try:
            header = next(reader)
        except StopIteration:
            raise InputError("file is empty", source=src) from None
        spec = {name: name for name in CORE_FIELDS}
        spec["references"] = "references,reference*"
        spec["negatives"] = "negatives,negative*"
        spec.update(mapping)
        for key, pattern in mapping.items():
            for col in _columns_for(pattern, header):
                if col not in header:
                    raise InputError(f"column '{col}' (mapped to '{key}') not in header {header}",
                                     source=src, line=1)
        cols: dict[str, list[int]] = {}
        for name, pattern in spec.items():
            idx = [header.index(c) for c in _columns_for(pattern, header) if c in header]
            if idx:
                cols[name] = idx
        used = {i for idx in cols.values() for i in idx}
        n = 0
        for lineno, row in enumerate(reader, 2):
            if not row:
                continue
            if len(row) != len(header):
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


def parse_jsonl_line(text: str, source: str, lineno: int) -> Record | None:
    """One JSONL line as a record (None for a blank line); errors name the file and line."""
    if not text.strip():
        return None
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as err:
        raise InputError(f"malformed JSON ({err.msg} at column {err.colno})", source=source, line=lineno) from None
    return Record.from_dict(obj, source=source, line=lineno)


def _read_jsonl(path: Path) -> Iterator[Record]:
    src = str(path)
    n = 0
    with path.open(encoding="utf-8") as fh:
        for lineno, text in enumerate(fh, 1):
            rec = parse_jsonl_line(text, src, lineno)
            if rec is not None:
                n += 1
                yield rec
    if n == 0:
        raise InputError("file is empty", source=src)


def read_records(path: str | Path, *, mapping: Mapping[str, str] | None = None,
                 fmt: str | None = None) -> list[Record]:
    """Read JSONL (canonical), CSV or TSV; `fmt` overrides the extension."""
    return list(iter_records(path, mapping=mapping, fmt=fmt))


def iter_records(path: str | Path, *, mapping: Mapping[str, str] | None = None,
                 fmt: str | None = None) -> Iterator[Record]:
    """`read_records` one record at a time, so chunked scoring never holds the whole file."""
    path = Path(path)
    if not path.exists():
        raise InputError("no such file", source=str(path))
    kind = (fmt or path.suffix.lstrip(".")).lower()
    if kind in ("jsonl", "json", "ndjson"):
        if mapping:
            return (remap(r, mapping) for r in _read_jsonl(path))
        return _read_jsonl(path)
    if kind in ("csv", "tsv"):
        return _read_table(path, "," if kind == "csv" else "\t", mapping or {})
    raise InputError(f"unknown format '{kind}' (use .jsonl, .csv or .tsv, or --format-in)", source=str(path))


def remap(rec: Record, mapping: Mapping[str, str]) -> Record:
    """JSONL with other key names: rebuild the record from the mapped keys."""
    obj = rec.to_dict()
    for key, col in mapping.items():
        if col not in obj:
            raise InputError(f"key '{col}' (mapped to '{key}') is missing", source=rec.source,
                             line=rec.line, field=col)
        obj[key] = obj.pop(col)
    return Record.from_dict(obj, source=rec.source, line=rec.line)


def write_jsonl(records: Iterable[Mapping[str, Any]], path: str | Path) -> None:
    with Path(path).open("w", encoding="utf-8") as fh:
        for obj in records:
            fh.write(json.dumps(obj, ensure_ascii=False) + "\n")
