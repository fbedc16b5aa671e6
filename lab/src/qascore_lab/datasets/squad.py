"""SQuAD 2.0 dev (../shared/data/squad_v2_dev/dev-v2.0.json) as flat, typed rows.

One `SquadQuestion` per question, carrying its passage and article title, so
callers need not walk the nested JSON. Used by the KPQA tagger's data builder
(answer spans inside passages) and by QRelScore (passages as contexts).
Every answer is checked against its passage (text == context[start:start+len]);
a mismatch is an InputError naming the question id, never a silently wrong span.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from qascore_lab.datasets import benchmark_dir
from qascore.records import InputError

FOLDER = "squad_v2_dev"
FILE = "dev-v2.0.json"


@dataclass(frozen=True)
class Answer:
    text: str
    start: int  # character offset into the passage

    @property
    def end(self) -> int:
        return self.start + len(self.text)


@dataclass(frozen=True)
class SquadQuestion:
    """One question with its passage; `answers` is empty for unanswerable ones."""

    id: str
    title: str
    passage_index: int           # index of the passage in file order (a stable passage id)
    context: str
    question: str
    answers: tuple[Answer, ...]
    is_impossible: bool
    plausible_answers: tuple[Answer, ...] = ()


def default_path(root: str | os.PathLike[str] | None = None) -> Path:
    return benchmark_dir(FOLDER, root) / FILE


def load(path: str | os.PathLike[str] | None = None, *, root: str | os.PathLike[str] | None = None,
         answerable_only: bool = False) -> list[SquadQuestion]:
    """All questions in file order (optionally only the answerable ones)."""
    src = Path(path) if path is not None else default_path(root)
    if not src.is_file():
        raise InputError("no such file", source=str(src))
    with src.open(encoding="utf-8") as fh:
        doc = json.load(fh)
    if not isinstance(doc, dict) or not isinstance(doc.get("data"), list):
        raise InputError("not a SQuAD JSON file (no top-level 'data' list)", source=str(src))
    out: list[SquadQuestion] = []
    passage_index = 0
    for article in doc["data"]:
        title = str(article.get("title", ""))
        for para in article.get("paragraphs", []):
            context = para["context"]
            for qa in para.get("qas", []):
                qid = str(qa.get("id", ""))
                answers = _answers(qa.get("answers", []), context, str(src), qid, "answers")
                plausible = _answers(qa.get("plausible_answers", []), context, str(src), qid, "plausible_answers")
                impossible = bool(qa.get("is_impossible", not answers))
                if answerable_only and (impossible or not answers):
                    continue
                out.append(SquadQuestion(qid, title, passage_index, context, qa["question"], answers,
                                         impossible, plausible))
            passage_index += 1
    return out


def passages(questions: list[SquadQuestion]) -> list[tuple[int, str, str]]:
    """Unique (passage_index, title, context) in file order."""
    seen: dict[int, tuple[int, str, str]] = {}
    for q in questions:
        seen.setdefault(q.passage_index, (q.passage_index, q.title, q.context))
    return list(seen.values())


def _answers(raw: list, context: str, src: str, qid: str, fld: str) -> tuple[Answer, ...]:
    out = []
    for a in raw:
        ans = Answer(str(a["text"]), int(a["answer_start"]))
        if context[ans.start:ans.end] != ans.text:
            raise InputError(f"question {qid}: answer '{ans.text}' does not match the passage at "
                             f"offset {ans.start}", source=src, field=fld)
        out.append(ans)
    return tuple(out)


__all__ = ["Answer", "SquadQuestion", "FOLDER", "FILE", "default_path", "load", "passages"]


V11_FOLDER = "squad_v1_train"
V11_FILE = "train-v1.1.jsonl.gz"


def load_v11(root: str | os.PathLike[str] | None = None) -> list[SquadQuestion]:
    """SQuAD 1.1 train (one JSON object per question, gzipped) as `SquadQuestion`s.

    `answer_starts` is the answer's first occurrence in the paragraph; it is checked like v2's offsets.
    Passages are numbered in file order from 10**6, so they never collide with v2 dev's indices.
    """
    import gzip

    src = benchmark_dir(V11_FOLDER, root) / V11_FILE
    out: list[SquadQuestion] = []
    index: dict[str, int] = {}
    with gzip.open(src, "rt", encoding="utf-8") as fh:
        for line in fh:
            if not line.strip():
                continue
            item = json.loads(line)
            article, para, _ = item["id"].rsplit("/", 2)
            pidx = index.setdefault(f"{article}/{para}", 10**6 + len(index))
            raw = [{"text": t, "answer_start": s} for t, s in zip(item["answers"], item["answer_starts"])]
            answers = _answers(raw, item["context"], str(src), item["id"], "answers")
            out.append(SquadQuestion(item["id"], item["title"], pidx, item["context"], item["question"], answers,
                                     False))
    return out
