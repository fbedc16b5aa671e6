"""`qascore.score(...)`: from texts to scores in one call, for a notebook or a script.

    qascore.score("f1", candidates=["Paris", "Rome"], references=[["Paris"], ["Milan", "Turin"]])
    qascore.score("judge", question="capital of France?", candidate="Paris", references=["Paris"])

The list form takes one value per example for every field (`candidates`, `references`, `questions`,
`negatives`, `contexts`, `answers`, `ids`; any other keyword is a field kept under its own name) and
returns `Scores`; the one-example form takes the record's own fields (`candidate`, `question`,
`references`, ...) and returns that example's `ScoredExample`. The metric is a name or a spec string as
`qascore.load` and `-m` take it (`"ava:aggregate=max"`), or a loaded metric. Models load on first use and
are shared by every call in the process (`qascore.runtime.cache`), so calling this in a loop loads nothing
twice; `import qascore` loads nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Iterator, overload

from qascore.metrics.base import Metric, MetricResult
from qascore.metrics.registry import load
from qascore.records import Record, as_records

# The list form's keyword for each record field, and the field it fills.
PLURALS: dict[str, str] = {"candidates": "candidate", "questions": "question", "references": "references",
                           "negatives": "negatives", "contexts": "context", "answers": "answer", "ids": "id"}
_SINGULAR = {field: plural for plural, field in PLURALS.items()}


@dataclass(frozen=True)
class ScoredExample:
    """One example's result: its score, its decision (`correct`, None where the metric has no threshold), its
    details as `qascore score -o` writes them, and the signature to compare it by."""

    metric: str
    score: float
    correct: bool | None
    details: dict[str, Any]
    signature: str


@dataclass(frozen=True)
class Scores:
    """Per-example scores, decisions and details of one metric, with its corpus score and signature.

    `correct` is None where the metric has no threshold (`f1`, `bleu4`...), else one decision per example at
    `threshold` (an empty candidate is never correct). `details[i]` holds example i's parts."""

    metric: str
    scores: list[float]
    correct: list[bool] | None
    details: list[dict[str, Any]]
    corpus: float
    signature: str
    threshold: float | None

    def __len__(self) -> int:
        return len(self.scores)

    def __getitem__(self, i: int) -> ScoredExample:
        return ScoredExample(self.metric, self.scores[i], None if self.correct is None else self.correct[i],
                             self.details[i], self.signature)

    def __iter__(self) -> Iterator[ScoredExample]:
        return (self[i] for i in range(len(self)))


@overload
def score(metric: str | Metric, candidates: Sequence[str], references: Sequence[Sequence[str]] | None = None,
          questions: Sequence[str] | None = None, **fields: Any) -> Scores: ...


@overload
def score(metric: str | Metric, candidates: None = None, references: Sequence[str] | None = None,
          questions: None = None, *, candidate: str, **fields: Any) -> ScoredExample: ...


def score(metric: str | Metric, candidates: Sequence[str] | None = None, references: Any = None,
          questions: Sequence[str] | None = None, *, candidate: str | None = None,
          **fields: Any) -> Scores | ScoredExample:
    """Score examples given field by field with one metric; see the module's docstring.

    A list of another length than `candidates`, a plural keyword in the one-example form (or a singular one in
    the list form) is a ValueError naming the keyword; a bad value is an InputError naming the example
    (`<input>:2`, 1-based) and the field, as for a list of dicts."""
    if candidate is not None:
        if candidates is not None:
            raise ValueError("qascore.score: give candidates=[...] (a list of examples) or candidate=... (one "
                             "example), not both")
        row = _one_example(candidate, references, questions, fields)
        return _scored(metric, [row])[0]
    if candidates is None:
        raise ValueError("qascore.score: give candidates=[...] (one per example), or candidate=... for one example")
    rows = _rows({"candidates": candidates, "references": references, "questions": questions, **fields})
    return _scored(metric, rows)


def _one_example(candidate: Any, references: Any, questions: Any, fields: dict[str, Any]) -> dict[str, Any]:
    """The one-example form's record: every keyword is the record's own field."""
    if questions is not None:
        raise ValueError("qascore.score: questions= is the list form's; for one example give question=...")
    for key in fields:
        if key in PLURALS and key not in ("references", "negatives"):
            raise ValueError(f"qascore.score: {key}= is the list form's (with candidates=[...]); for one example "
                             f"give {PLURALS[key]}=...")
    row = {"candidate": candidate, **fields}
    if references is not None:
        row["references"] = references
    return row


def _rows(columns: dict[str, Any]) -> list[dict[str, Any]]:
    """One dict per example from the list form's keywords; every list as long as `candidates`."""
    n = _length("candidates", columns["candidates"])
    out: list[dict[str, Any]] = [{} for _ in range(n)]
    for key, values in columns.items():
        if values is None:
            continue
        if key in _SINGULAR and key not in PLURALS:  # `question=` beside `candidates=`
            raise ValueError(f"qascore.score: {key}= is the one-example form's (with candidate=...); with "
                             f"candidates=[...] give {_SINGULAR[key]}=[...], one per example")
        size = _length(key, values)
        if size != n:
            raise ValueError(f"qascore.score: {key} has {_items(size)} but candidates has {n}; give one per example")
        name = PLURALS.get(key, key)
        for row, value in zip(out, values):
            row[name] = value
    return out


def _items(n: int) -> str:
    return f"{n} item" if n == 1 else f"{n} items"


def _length(key: str, values: Any) -> int:
    """len(values) of a per-example list; a string, a dict or a number is a ValueError naming `key`."""
    if isinstance(values, (str, bytes, Mapping)) or not hasattr(values, "__len__"):
        raise ValueError(f"qascore.score: {key} must be a list with one item per example, got "
                         f"{type(values).__name__}" + (" (for one example give candidate=...)"
                                                       if key == "candidates" else ""))
    return len(values)


def _scored(metric: str | Metric, rows: Sequence[Mapping[str, Any] | Record]) -> Scores:
    """Score the rows with the metric (a name, a spec string or a loaded metric)."""
    m = metric if isinstance(metric, Metric) else load(metric)
    label = metric.strip() if isinstance(metric, str) else m.name
    result = m.score(as_records(rows))
    return _as_scores(label, m, result)


def _as_scores(label: str, m: Metric, result: MetricResult) -> Scores:
    threshold = m.decision_threshold()
    details = [result.example(i) for i in range(len(result))]
    correct = None
    if threshold is not None:
        correct = [bool(d["correct"]) if "correct" in d else (not d.get("empty_candidate") and s >= threshold)
                   for d, s in zip(details, result.scores)]
    return Scores(label, list(result.scores), correct, details, result.corpus, result.signature, threshold)


__all__ = ["score", "Scores", "ScoredExample"]
