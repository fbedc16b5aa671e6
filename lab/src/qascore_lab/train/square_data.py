"""SQuArE training/evaluation examples and input layouts.

SQuArE (Gabburo et al.) scores a target answer for a question given several
positive AND negative reference answers. In answer-sentence-selection data the
references come from the question's *other* labelled candidates: for each
(question, target) we draw n+ positive and n- negative references from the
question's candidate pool, never the target itself.

Reference counts and label leakage. If counts were simply "whatever exists"
per target, they would give the label away: in WikiQA 86% of questions have
one correct candidate, so a correct target would never get a positive
reference while every wrong target would. The default composition is therefore
"blind": the counts available are computed per *question* (P-1 positives and
N-1 negatives, whatever the target's label), so two targets of one question
always get the same number of positive and negative references.
`composition="greedy"` (use what exists for each target) is kept for
measuring that leak; see lab/results/square.md.

The input layouts (SQuArE's prompt string and the AVA baselines) live in
`runtime.square_layouts`; a configuration below names one.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from typing import Iterable, Mapping, Sequence

from qascore_lab.datasets.as2 import AS2Question
from qascore.records import Record

# --------------------------------------------------------------------------
# Examples built from AS2 questions (qascore_lab.datasets.as2.AS2Question)


@dataclass
class Example:
    """One (question, target) with its sampled references and gold label."""

    qid: str
    question: str
    target: str
    label: int
    positives: list[str] = field(default_factory=list)
    negatives: list[str] = field(default_factory=list)

    def to_record(self) -> Record:
        return Record(id=self.qid, question=self.question, candidate=self.target,
                      references=list(self.positives), negatives=list(self.negatives),
                      extra={"label": self.label})


# --------------------------------------------------------------------------
# How many references of each kind


@dataclass(frozen=True)
class RefSpec:
    """Requested references. Either `total` (a range, split evenly between
    positives and negatives, the short side filled by the other) or explicit
    `pos`/`neg` counts. Counts are capped by what the question has."""

    pos: int = 0
    neg: int = 0
    total: tuple[int, int] | None = None
    composition: str = "blind"  # or "greedy"

    def __post_init__(self) -> None:
        if self.composition not in ("blind", "greedy"):
            raise ValueError(f"composition must be 'blind' or 'greedy', not {self.composition!r}")
        if self.total is not None and not (1 <= self.total[0] <= self.total[1]):
            raise ValueError(f"total range must satisfy 1 <= lo <= hi, got {self.total}")
        if min(self.pos, self.neg) < 0:
            raise ValueError("reference counts must be >= 0")

    def counts(self, avail_pos: int, avail_neg: int, rng: random.Random) -> tuple[int, int, int]:
        """(n+, n-, requested total) for one target, given how many of each may be used."""
        if self.total is None:
            return min(self.pos, avail_pos), min(self.neg, avail_neg), self.pos + self.neg
        k = rng.randint(*self.total)
        n_pos = min(math.ceil(k / 2), avail_pos)
        n_neg = min(k - n_pos, avail_neg)
        n_pos = min(k - n_neg, avail_pos)  # fill from positives when negatives run short
        return n_pos, n_neg, k


@dataclass
class BuildStats:
    """What the builder could not satisfy, so the shortfall is reported, not hidden."""

    questions: int = 0
    skipped_questions: int = 0  # no positive or no negative candidate (not "clean")
    targets: int = 0
    short: int = 0  # targets that got fewer references than requested
    no_pos: int = 0  # targets without any positive reference
    no_refs: int = 0  # targets with no reference at all (while some were requested)
    pos_refs: int = 0
    neg_refs: int = 0

    def summary(self) -> str:
        t = max(self.targets, 1)
        return (f"{self.questions} questions ({self.skipped_questions} skipped: not clean), "
                f"{self.targets} targets; mean refs +{self.pos_refs / t:.2f} / -{self.neg_refs / t:.2f}; "
                f"fewer than requested {self.short}, no positive {self.no_pos}, "
                f"no reference {self.no_refs}")


def build_examples(questions: Iterable[AS2Question], spec: RefSpec, *, seed: int = 0,
                   clean: bool = True, targets: dict[str, list[int]] | None = None,
                   stats: BuildStats | None = None) -> list[Example]:
    """Every (question, target) of `questions` with references drawn from the other candidates.

    `targets` optionally restricts which candidate indices of each question are
    targets (a subsample); references are still drawn from the whole pool.
    Seeded: the same inputs and seed give the same examples.
    """
    rng = random.Random(seed)
    st = stats if stats is not None else BuildStats()
    out: list[Example] = []
    for q in questions:
        labels = [int(y) for y in q.labels]
        n_p = sum(labels)
        n_n = len(labels) - n_p
        st.questions += 1
        if clean and (n_p == 0 or n_n == 0):
            st.skipped_questions += 1
            continue
        chosen = range(len(labels)) if targets is None else targets.get(q.qid, [])
        for i in chosen:
            pos_pool = [c for j, (c, y) in enumerate(zip(q.candidates, labels)) if j != i and y]
            neg_pool = [c for j, (c, y) in enumerate(zip(q.candidates, labels)) if j != i and not y]
            if spec.composition == "blind":
                avail_p, avail_n = max(n_p - 1, 0), max(n_n - 1, 0)
            else:
                avail_p, avail_n = len(pos_pool), len(neg_pool)
            n_pos, n_neg, want = spec.counts(avail_p, avail_n, rng)
            # a candidate listed twice is still the target: drop a sampled copy of it (after
            # sampling, so the random stream, and every other example, stays the same)
            pos = [c for c in rng.sample(pos_pool, n_pos) if c != q.candidates[i]]
            neg = [c for c in rng.sample(neg_pool, n_neg) if c != q.candidates[i]]
            n_pos, n_neg = len(pos), len(neg)
            st.targets += 1
            st.pos_refs += n_pos
            st.neg_refs += n_neg
            st.short += n_pos + n_neg < want
            st.no_pos += n_pos == 0
            st.no_refs += (n_pos + n_neg == 0) and want > 0
            out.append(Example(q.qid, q.question, q.candidates[i], labels[i], pos, neg))
    return out


def sample_targets(questions: Sequence[AS2Question], n: int, *, seed: int = 0,
                   pos_fraction: float | None = None, clean: bool = True) -> dict[str, list[int]]:
    """A seeded subsample of n (question, candidate) targets, for a CPU-sized run.

    With `pos_fraction` the positives are over-sampled to that share (training);
    without it the natural label ratio is kept (evaluation).
    """
    rng = random.Random(seed)
    pos, neg = [], []
    for q in questions:
        labels = [int(y) for y in q.labels]
        if clean and (sum(labels) == 0 or sum(labels) == len(labels)):
            continue
        for i, lab in enumerate(labels):
            (pos if lab else neg).append((q.qid, i))
    if pos_fraction is None:
        allt = pos + neg
        picked = rng.sample(allt, min(n, len(allt)))
    else:
        k_pos = min(len(pos), round(n * pos_fraction))
        picked = rng.sample(pos, k_pos) + rng.sample(neg, min(len(neg), n - k_pos))
    out: dict[str, list[int]] = {}
    for qid, i in sorted(picked, key=lambda x: (x[0], x[1])):
        out.setdefault(qid, []).append(i)
    return out


def extra_examples(questions: Sequence[AS2Question], held_out: Mapping[str, Sequence[AS2Question]],
                   spec: RefSpec, *, name: str, n: int, seed: int, pos_fraction: float | None,
                   stats: BuildStats | None = None) -> list[Example]:
    """Training examples from an extra corpus (e.g. TREC-QA train), by the rules of the main one.

    Refuses (ValueError) a corpus sharing a question, by id or normalised text, with any held-out
    split; samples n targets with the same seeded rule; builds on its own, so the main corpus's
    examples stay exactly as without it; ids become '<name>:<id>'.
    """
    from qascore_lab.train.ava_data import check_disjoint, tag

    for split, qs in held_out.items():
        check_disjoint({name: questions, split: qs})
    tagged = tag(questions, name)
    targets = sample_targets(tagged, n, seed=seed, pos_fraction=pos_fraction)
    return build_examples(tagged, spec, seed=seed, targets=targets, stats=stats)


# --------------------------------------------------------------------------
# Named configurations: the paper's SQuArE, its ablations, and the AVA baselines


@dataclass(frozen=True)
class Config:
    name: str
    layout: str
    refs: RefSpec


CONFIGS: dict[str, Config] = {c.name: c for c in (
    Config("square", "square", RefSpec(total=(5, 5))),
    Config("square-pos", "square", RefSpec(pos=5, neg=0)),          # SQuArE(+)
    Config("square-3", "square", RefSpec(total=(3, 3))),
    Config("square-1to5", "square", RefSpec(total=(1, 5))),         # SQuArE [1,5]
    Config("ava-tqr", "tqr", RefSpec(pos=1, neg=0)),
    Config("ava-tqr-neg", "tqr", RefSpec(pos=0, neg=1)),            # AVA-TQR(-)
    Config("ava-qt", "qt", RefSpec()),
    Config("ava-tr", "tr", RefSpec(pos=1, neg=0)),
)}


def with_composition(cfg: Config, composition: str) -> Config:
    r = cfg.refs
    return Config(cfg.name, cfg.layout, RefSpec(r.pos, r.neg, r.total, composition))


