"""EVOUNA-TQ (../shared/data/evouna_tq/TQ.json): LLM and retrieve-and-read answers to TriviaQA questions,
each judged correct or incorrect by people.

One `EvounaQuestion` per proper question (the 62 flagged `improper` are dropped, as the dataset's paper
does); `golden_answer` holds several acceptable answers joined by "/", which become the references.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from qascore_lab.datasets import benchmark_dir
from qascore.records import InputError

FOLDER = "evouna_tq"
FILE = "TQ.json"
SYSTEMS = ("fid", "gpt35", "chatgpt", "gpt4", "newbing")


@dataclass(frozen=True)
class EvounaQuestion:
    index: int                                 # position in the file (a stable question id)
    question: str
    references: tuple[str, ...]                # the gold aliases
    answers: tuple[tuple[str, str, int], ...]  # (system, answer text, human label 0/1)


def split_aliases(golden: str) -> tuple[str, ...]:
    """"a/b/c" -> ("a", "b", "c"), blanks dropped, order and duplicates as given minus exact repeats."""
    return tuple(dict.fromkeys(a.strip() for a in golden.split("/") if a.strip()))


def load(root: str | os.PathLike[str] | None = None) -> list[EvounaQuestion]:
    path = benchmark_dir(FOLDER, root) / FILE
    src = str(path)
    try:
        doc = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise InputError(f"cannot read ({exc})", source=src) from None
    if not isinstance(doc, list):
        raise InputError("expected a JSON list of questions", source=src)
    out = []
    for i, item in enumerate(doc):
        if item.get("improper"):
            continue
        answers = []
        for s in SYSTEMS:
            if f"answer_{s}" not in item or f"judge_{s}" not in item:
                raise InputError(f"question {i}: missing answer_{s}/judge_{s}", source=src)
            answers.append((s, str(item[f"answer_{s}"] or ""), int(bool(item[f"judge_{s}"]))))
        out.append(EvounaQuestion(i, str(item["question"]), split_aliases(str(item["golden_answer"])), tuple(answers)))
    return out


def split_of(question: str, seed: int = 13) -> str:
    """train / dev / test (about 60 / 20 / 20) by a salted hash of the normalised question."""
    import hashlib

    from qascore_lab.train.ava_data import question_key

    h = int(hashlib.sha1(f"{seed}:evouna:{question_key(question)}".encode()).hexdigest()[:8], 16) / 0xFFFFFFFF
    return "train" if h < 0.6 else "dev" if h < 0.8 else "test"
