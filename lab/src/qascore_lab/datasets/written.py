"""The helper-written chatbot answers of lab/data/ (`judge_written_train*.jsonl`): their split and the blind set's
questions kept out. One place, so that every use (the judge's probe rows, the asserted reader's rows) leaves the
same dev questions untrained."""

from __future__ import annotations

import difflib
import hashlib
import json
import re
from pathlib import Path
from typing import Any, Sequence


def read_rows(paths: Sequence[str | Path]) -> list[dict[str, Any]]:
    return [json.loads(line) for path in paths for line in open(path, encoding="utf-8")]


def _words(q: str) -> str:
    return " ".join(re.findall(r"[a-z0-9]+", q.lower()))


def without_blind(rows: list[dict[str, Any]], blind: str | Path) -> tuple[list[dict[str, Any]], int]:
    """`rows` without every question that matches one of the blind set's (difflib ratio >= 0.75 on lower-cased
    words), and how many questions went."""
    seen = sorted({_words(json.loads(line)["question"]) for line in open(blind, encoding="utf-8")})
    near = {q for q in {r["question"] for r in rows} if difflib.get_close_matches(_words(q), seen, n=1, cutoff=0.75)}
    return [r for r in rows if r["question"] not in near], len(near)


def split_of(question: str) -> str:
    """"train" for 80% of questions, else "dev", by a salted hash of the question."""
    h = int(hashlib.sha1(f"written:{question}".encode()).hexdigest()[:8], 16) / 2**32
    return "train" if h < 0.8 else "dev"
