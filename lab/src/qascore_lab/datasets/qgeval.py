"""QGEval, SQuAD half (Fu et al., EMNLP 2024; ../shared/data/qgeval_squad) as qascore Records.

1,500 generated questions (100 SQuAD passages x 15 sources, one of them the
reference questions themselves) with seven human dimensions (mean of three
annotators, 1-3) and the scores of 15 automatic metrics computed by the
QGEval authors (QRelScore among them). Each Record has candidate = the
generated question, context = the passage, references = [gold question];
answer = the answer span the question was generated for; extra holds the seven dimensions (floats),
`source`/`system`, and
the authors' metric scores under "qgeval:<column>" (floats; dict-valued
GPTScore/UniEval columns are split into "qgeval:<column>:<dimension>").
"""

from __future__ import annotations

import ast
import csv
import os
from pathlib import Path
from typing import Any

from qascore_lab.datasets import benchmark_dir
from qascore.records import InputError, Record

FOLDER = "qgeval_squad"
DIMENSIONS = ("fluency", "clarity", "conciseness", "relevance", "consistency", "answerability", "answer_consistency")
_KEYS = ("id", "reference", "passage", "answer", "prediction", "source")


def default_dir(root: str | os.PathLike[str] | None = None) -> Path:
    return benchmark_dir(FOLDER, root)


def _float(value: str, src: str, line: int, field: str) -> float:
    try:
        return float(value)
    except ValueError:
        raise InputError(f"not a number: {value!r}", source=src, line=line, field=field) from None


def load(root: str | os.PathLike[str] | None = None, *, with_metrics: bool = True) -> list[Record]:
    """All 1,500 rows of scores.csv in file order, joined with metric_result.csv on (row order, id, prediction)."""
    folder = default_dir(root)
    src = str(folder / "scores.csv")
    with open(src, newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    metric_rows: list[dict[str, str]] = []
    msrc = str(folder / "metric_result.csv")
    if with_metrics:
        with open(msrc, newline="", encoding="utf-8") as fh:
            metric_rows = list(csv.DictReader(fh))
        if len(metric_rows) != len(rows):
            raise InputError(f"has {len(metric_rows)} rows, scores.csv has {len(rows)}", source=msrc)
    out = []
    for i, row in enumerate(rows):
        line = i + 2
        missing = [k for k in (*_KEYS, *DIMENSIONS) if k not in row]
        if missing:
            raise InputError(f"missing columns {missing}", source=src, line=1)
        extra: dict[str, Any] = {d: _float(row[d], src, line, d) for d in DIMENSIONS}
        extra.update(source=row["source"], system=row["source"].split("_", 1)[1])
        if with_metrics:
            m = metric_rows[i]
            if (m["id"], m["prediction"]) != (row["id"], row["prediction"]):
                raise InputError("row does not match scores.csv (id/prediction differ)", source=msrc, line=line)
            for col, value in m.items():
                if col in _KEYS:
                    continue
                if value.startswith("{"):
                    for dim, v in ast.literal_eval(value).items():
                        extra[f"qgeval:{col}:{dim}"] = float(v)
                elif value != "":
                    extra[f"qgeval:{col}"] = _float(value, msrc, line, col)
        out.append(Record(id=f"{row['id']}:{row['source']}", candidate=row["prediction"], context=row["passage"],
                          references=[row["reference"]], answer=row["answer"], extra=extra, source=src, line=line,
                          present=frozenset({"id", "candidate", "context", "references", "answer"})))
    return out
