"""Answer-equivalence pairs (../shared/data/answer_equivalence/ae_augmented_train.jsonl).

Each line: question, reference (a gold answer), candidate, label
("correct"/"incorrect"). Questions carry stray tabs in places; they are
stripped. Training data only (the folder's README: research-only).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from qascore_lab.datasets import benchmark_dir
from qascore.records import InputError

FOLDER = "answer_equivalence"
FILE = "ae_augmented_train.jsonl"
LABELS = {"correct": 1, "incorrect": 0}


@dataclass(frozen=True)
class AEPair:
    line: int
    question: str
    reference: str
    candidate: str
    label: int


def load(root: str | os.PathLike[str] | None = None) -> list[AEPair]:
    """Every pair in file order; a bad line is an InputError naming the line and field."""
    src = benchmark_dir(FOLDER, root) / FILE
    out = []
    with Path(src).open(encoding="utf-8") as fh:
        for n, raw in enumerate(fh, 1):
            if not raw.strip():
                continue
            try:
                row = json.loads(raw)
            except json.JSONDecodeError as err:
                raise InputError(f"malformed JSON ({err.msg})", source=str(src), line=n) from None
            for key in ("question", "reference", "candidate", "label"):
                if isinstance(row.get(key), (int, float)) and not isinstance(row.get(key), bool):
                    row[key] = str(row[key])   # a few answers are bare JSON numbers (26, 1945)
                if not isinstance(row.get(key), str):
                    raise InputError("missing or not a string", source=str(src), line=n, field=key)
            if row["label"] not in LABELS:
                raise InputError(f"unknown label {row['label']!r}", source=str(src), line=n, field="label")
            out.append(AEPair(n, row["question"].strip(), row["reference"].strip(), row["candidate"].strip(),
                              LABELS[row["label"]]))
    return out
