"""The metric contract: a small class, its result, and its signature.

Every metric turns a list of records into one main number per record (plus
optional parts such as P/R/F under `details`) and one corpus number. The
signature names everything that changes the numbers, so two results can be
compared only when their signatures match.
"""

from __future__ import annotations

import math
import unicodedata
from abc import ABC, abstractmethod
from functools import lru_cache
from importlib import metadata
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar, Iterable, Mapping, Sequence

import numpy as np

from qascore.version import __version__
from qascore.progress import scoring
from qascore.metrics.options import Option, format_value, resolve
from qascore.records import InputError, Record, as_records, table_hint

AGGREGATIONS = ("max", "mean")
EMPTY_CANDIDATE = "empty_candidate"  # the details key that says a record scored 0.0 for its empty candidate


@dataclass
class MetricResult:
    """Per-example main scores, their named parts, and the corpus score."""

    name: str
    scores: list[float]
    corpus: float
    signature: str
    details: dict[str, list[float]] = field(default_factory=dict)
    # Records whose candidate was empty: scored 0.0 by the base class's rule, their details say only that.
    empty: list[bool] = field(default_factory=list)
    # True where the metric scored its empty candidates itself (`em`, `f1`: SQuAD's rule): their scores and
    # details are the metric's, and the details say `empty_candidate` beside them.
    scored_empty: bool = False

    def __len__(self) -> int:
        return len(self.scores)

    def example(self, i: int) -> dict[str, Any]:
        """Record i's details as written to the output (`{"empty_candidate": true}` for an empty candidate;
        `em` and `f1` keep their parts beside it)."""
        if self.empty and self.empty[i]:
            own = {k: v[i] for k, v in self.details.items()} if self.scored_empty else {}
            return {**own, EMPTY_CANDIDATE: True}
        return {k: v[i] for k, v in self.details.items()}


def blank(text: str) -> bool:
    """True when `text` shows nothing: only whitespace, control characters and invisible format characters
    (zero-width spaces and joiners, a byte-order mark). Tokenizers drop them all, so a model would read an
    empty string and score it as if it were an answer."""
    return all(ch.isspace() or unicodedata.category(ch) in ("Cc", "Cf") for ch in text)


def without_blank_references(records: Sequence[Record], name: str) -> list[Record]:
    """The records with their blank references left out; a record with a candidate and only blank references
    is an InputError naming it (`Metric.needs_reference_text`). An empty candidate is left as it is: it scores
    0.0 without a model."""
    out = []
    for rec in records:
        kept = [r for r in rec.references if not blank(r)]
        if len(kept) == len(rec.references) or blank(rec.candidate):
            out.append(rec)
            continue
        if not kept:
            raise InputError(f"every reference is blank, and '{name}' judges a candidate against gold text "
                             "(for an unanswerable question, em and f1 score an empty answer as SQuAD does)",
                             source=rec.source, line=rec.line, field="references")
        out.append(replace(rec, references=kept))
    return out


class Metric(ABC):
    """Base class. Subclasses set `name`, `requires`, and implement `_score`.

    `_score` gets validated records and returns (main scores, details). The
    corpus score defaults to the mean; corpus-level metrics override `corpus`.
    """

    name: ClassVar[str]
    requires: ClassVar[tuple[str, ...]] = ("candidate", "references")
    description: ClassVar[str] = ""
    # Parts that are yes/no decisions: written as JSON true/false, not 1.0/0.0.
    boolean_parts: ClassVar[tuple[str, ...]] = ("correct", "truncated")
    # True where the metric's own definition scores an empty candidate (em, f1: SQuAD's script gives 1
    # for an empty answer to an empty reference); elsewhere the base class scores it 0.0.
    scores_empty_candidates: ClassVar[bool] = False
    # True where a model reads each reference's text (`ava`, `judge`): a blank reference gives it
    # nothing to judge against, so blank ones are left out, and a record with only blank ones is an error.
    needs_reference_text: ClassVar[bool] = False
    # True where the `max_references` option is a bound that refuses a record with more references (`ava`,
    # `bertscore` and its KPQA forms: each reference is a model pass); `square` and `judge` read the best few.
    refuses_many_references: ClassVar[bool] = False

    def __init__(self, **options: Any) -> None:
        from qascore.metrics.model_paths import check_model_options

        specs = self.option_specs()
        self.options = resolve(self.name, specs, options)
        check_model_options(self.name, specs, self.options)  # a bad model path fails now, before any record

    @classmethod
    def option_specs(cls) -> dict[str, Option]:
        """Every option with its type, default and help (`qascore list NAME` prints them)."""
        return {}

    @classmethod
    def option_defaults(cls) -> dict[str, Any]:
        return {k: o.default for k, o in cls.option_specs().items()}

    # -- contract -------------------------------------------------------
    def score(self, examples: Iterable[Record | Mapping[str, Any]]) -> MetricResult:
        """Scores of a list (or any iterable) of records or dicts; an empty one is an error, as an empty
        file is on the command line. An empty candidate (`blank`: nothing visible) scores 0.0, unless the metric
        scores empties itself (`scores_empty_candidates`), and its details say `empty_candidate`."""
        records = as_records(examples)
        if not records:
            raise InputError("no records to score (got an empty list)")
        if self.needs_reference_text:
            records = without_blank_references(records, self.name)
        self.validate(records)
        blanks = [blank(rec.candidate) for rec in records]
        empty = [False] * len(records) if self.scores_empty_candidates else blanks
        with scoring(self.name):  # progress bars name this metric, also where it runs another inside
            main, details = self._score_nonempty(records, empty) if any(empty) else self._score(records)
        main = [0.0 if e else float(x) for x, e in zip(main, empty)]
        details = {k: [bool(x) for x in v] if k in self.boolean_parts else v for k, v in details.items()}
        if any(np.isnan(x) for x in main):
            raise RuntimeError(f"{self.name} produced NaN; this is a bug, please report the input")
        return MetricResult(self.name, main, self.corpus(records, main, details), self.signature, details,
                            blanks if any(blanks) else [], scored_empty=self.scores_empty_candidates)

    def _score_nonempty(self, records: Sequence[Record], empty: Sequence[bool]
                        ) -> tuple[list[float], dict[str, list[Any]]]:
        """`_score` with empty candidates left out (no model sees them), their rows filled with 0.0 / False.

        A metric whose record scores depend on the other records (IDF over the call's references) still
        sees every record, so the others score as they would anyway; only the empties' scores become 0.0."""
        if self.corpus_dependence() is not None:
            main, details = self._score(records)
            return list(main), {k: list(v) for k, v in details.items()}
        keep = [i for i, e in enumerate(empty) if not e]
        part_main, part_details = self._score([records[i] for i in keep]) if keep else ([], {})
        main = [0.0] * len(records)
        details = {k: [False if k in self.boolean_parts else 0.0] * len(records) for k in part_details}
        for j, i in enumerate(keep):
            main[i] = part_main[j]
            for k, v in part_details.items():
                details[k][i] = v[j]
        return main, details

    def validate(self, records: Sequence[Record]) -> None:
        if self.needs_reference_text:  # a record with only blank references: refused here too, so chunked
            records = without_blank_references(records, self.name)  # scoring finds it before writing anything
        for rec in records:
            rec.require(*self.requires, needed_by=f"metric '{self.name}'")
            if "references" in self.requires and not rec.references:
                raise InputError("needs at least one reference (got an empty list)"
                                 + table_hint(rec.source, "references"), source=rec.source, line=rec.line,
                                 field="references")
            limit = self.options.get("max_references") if self.refuses_many_references else None
            if limit is not None and len(rec.references) > limit:
                raise InputError(f"{len(rec.references)} references; {self.name} reads each with its model and "
                                 f"takes at most {limit} per record (-m {self.name}:max_references=N raises it)",
                                 source=rec.source, line=rec.line, field="references")

    @abstractmethod
    def _score(self, records: Sequence[Record]) -> tuple[list[float], dict[str, list[float]]]:
        ...

    def corpus(self, records: Sequence[Record], main: list[float], details: dict[str, list[float]]) -> float:
        return exact_mean(main)

    def forget_memos(self) -> None:
        """Drop the per-process memos this metric fills (tokens, n-gram statistics), e.g. between chunks:
        they speed up one call over repeated texts, and kept across a file they grow with it.
        Families with memos of their own (KPW) extend this."""
        from qascore.metrics.ngrams import clear_cache as clear_ngrams
        from qascore.text import clear_cache as clear_tokens

        clear_tokens()
        clear_ngrams()

    def decision_threshold(self) -> float | None:
        """The metric's own correct/incorrect cut-off, if it has one: a `threshold` option, else the one
        stored with its model (a verifier's dev-tuned threshold, which its signature names)."""
        value = self.options.get("threshold")
        if value is None:
            value = self.signature_fields().get("threshold")
        return None if value is None else float(value)

    # -- chunked scoring (qascore.stream) -------------------------------
    def corpus_dependence(self) -> str | None:
        """Why a record's score depends on the other records scored with it, or None when it does not.

        Chunked scoring is exact only for metrics that return None here, or
        that fit the corpus state in a first pass (`fit_corpus`).
        """
        return None

    def fit_corpus(self, records: Iterable[Record]) -> Any:
        """First pass of two-pass scoring: the state (e.g. IDF) every chunk must share."""
        raise NotImplementedError(f"{self.name} has no two-pass route")

    def use_corpus(self, state: Any) -> None:
        """Score every later call with a state from `fit_corpus` (on this or another process)."""
        raise NotImplementedError(f"{self.name} has no two-pass route")

    # -- signature ------------------------------------------------------
    def signature_fields(self) -> dict[str, Any]:
        """What changes the numbers beyond the options (model hash, tokenizer...)."""
        return {}

    @property
    def signature(self) -> str:
        """metric, then `signature_fields`, then every signed option that is set, then the version.

        Unset (None) options and options that cannot change the numbers (`signed=False`:
        batch sizes, devices, model specs that `signature_fields` already names by hash) are left out.
        """
        specs = self.option_specs()
        parts: dict[str, Any] = {"metric": self.name}
        parts.update(self.signature_fields())
        for k, v in sorted(self.options.items()):
            spec = specs.get(k)
            if k not in parts and v is not None and spec is not None and spec.signed and spec.type != "object":
                parts[k] = v
        parts.update(version_fields())
        return join_signature(parts)


@lru_cache(maxsize=1)
def torch_version() -> str:
    """The installed torch's version, read from its metadata (importing torch costs seconds)."""
    try:
        return metadata.version("torch")
    except metadata.PackageNotFoundError:
        return "none"


def version_fields() -> dict[str, str]:
    """The last fields of every signature: torch (its kernels move model scores) and qascore's version."""
    return {"torch": torch_version(), "version": __version__}


def exact_mean(values: Sequence[float]) -> float:
    """The mean with an exactly rounded sum (math.fsum), so that a file scored whole and the same file
    scored in chunks (stream.ExactMean, whatever the chunk size) print the same corpus figure; 0.0 if empty."""
    return math.fsum(values) / len(values) if len(values) else 0.0


def join_signature(parts: Mapping[str, Any]) -> str:
    """key:value|key:value, booleans as true/false, None fields dropped."""
    return "|".join(f"{k}:{_fmt(v)}" for k, v in parts.items() if v is not None)


def _fmt(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return ",".join(map(str, value))
    return format_value(value)


def aggregate(per_reference: Sequence[Mapping[str, float]], main: str, how: str) -> dict[str, float]:
    """Combine one candidate's scores against each reference into one set of parts.

    'max' keeps every part from the reference with the best main score (so P, R
    and F stay consistent); 'mean' averages each part over references.
    """
    if not per_reference:
        return {main: 0.0}
    if how == "max":
        best = max(range(len(per_reference)), key=lambda i: per_reference[i][main])
        return dict(per_reference[best])
    if how == "mean":
        return {k: float(np.mean([p[k] for p in per_reference])) for k in per_reference[0]}
    raise ValueError(f"unknown aggregation '{how}' (choose from {AGGREGATIONS} or 'joint' where supported)")
