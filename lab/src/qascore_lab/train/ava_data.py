"""AVA point-wise data from AS2 corpora (AVA paper, section 4.2).

Only questions with at least two correct answers are kept. For such a
question with correct set C and incorrect set C̄:

- AVA-Pos: (q, r, t) for every ordered pair r, t in C with r != t (label 1);
- AVA-Neg: (q, r, t) for every r in C and t in C̄ (label 0).

A candidate is never its own reference: pairs of the same sentence, or of two
candidates with identical text, are skipped. Optional seeded subsampling of
negatives keeps CPU training affordable; the order of triples is fixed by the
corpus order, so the same seed always gives the same data.

Training may add triples from other AS2 corpora (e.g. TREC-QA train) built by
the same rules; their question ids are prefixed with the corpus name, and
`check_disjoint` compares question texts with case, spacing and punctuation
removed, so a tokenised TREC-QA question ("who is x ?") still matches its
WikiQA form ("Who is X?").
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Iterable, Mapping, Sequence

import numpy as np

from qascore_lab.datasets.as2 import AS2Question
from qascore.records import Record


@dataclass(frozen=True)
class Triple:
    qid: str
    question: str
    reference: str
    target: str
    label: int
    ref_id: str = ""
    target_id: str = ""
    short: tuple[str, ...] = field(default=())  # answer phrases of the reference (AVA's s)


def eligible(q: AS2Question) -> bool:
    """AVA keeps questions with at least two correct answers."""
    return len(q.positives) >= 2


def build_triples(questions: Iterable[AS2Question], *, short: dict[str, list[str]] | None = None,
                  neg_ratio: float | None = None, max_pos_per_question: int | None = None,
                  seed: int = 13) -> list[Triple]:
    """AVA-Pos and AVA-Neg triples; optionally at most `neg_ratio` negatives per positive (seeded)."""
    rng = np.random.default_rng(seed)
    pos: list[Triple] = []
    neg: list[Triple] = []
    for q in questions:
        if not eligible(q):
            continue
        ps, ns = q.positives, q.negatives
        qpos = []
        for i in ps:
            s = tuple((short or {}).get(q.cand_ids[i], ()))
            for j in ps:
                if i == j or q.candidates[i].strip() == q.candidates[j].strip():
                    continue
                qpos.append(Triple(q.qid, q.question, q.candidates[i], q.candidates[j], 1,
                                   q.cand_ids[i], q.cand_ids[j], s))
            for j in ns:
                if q.candidates[i].strip() == q.candidates[j].strip():
                    continue
                neg.append(Triple(q.qid, q.question, q.candidates[i], q.candidates[j], 0,
                                  q.cand_ids[i], q.cand_ids[j], s))
        if max_pos_per_question is not None and len(qpos) > max_pos_per_question:
            keep = sorted(rng.choice(len(qpos), max_pos_per_question, replace=False).tolist())
            qpos = [qpos[k] for k in keep]
        pos.extend(qpos)
    if neg_ratio is not None and len(neg) > neg_ratio * len(pos):
        k = int(round(neg_ratio * len(pos)))
        keep = set(rng.choice(len(neg), k, replace=False).tolist())
        neg = [t for n, t in enumerate(neg) if n in keep]
    # interleave back into corpus order: by question, then positives before negatives
    order = {q: n for n, q in enumerate(dict.fromkeys(t.qid for t in pos + neg))}
    return sorted(pos + neg, key=lambda t: (order[t.qid], -t.label))


def to_records(triples: Sequence[Triple]) -> tuple[list[Record], list[int]]:
    """Triples as verifier records: candidate = t, references = [r]; labels alongside."""
    recs = [Record(id=f"{t.qid}:{t.ref_id}:{t.target_id}", question=t.question, candidate=t.target,
                   references=[t.reference], extra={"qid": t.qid, "short": list(t.short)}) for t in triples]
    return recs, [t.label for t in triples]


def build_combined(base: Sequence[Triple], extra: Mapping[str, Sequence[AS2Question]], *,
                   neg_ratio: float | None = None, max_pos_per_question: int | None = None,
                   seed: int = 13) -> list[Triple]:
    """`base` triples followed by those of each extra corpus, built by the same rules.

    Each extra corpus is built on its own (its negatives subsampled to `neg_ratio`
    per positive of that corpus, seeded), so adding a corpus never changes the
    base triples; its question ids become '<name>:<id>' so corpora never share an id.
    """
    out = list(base)
    base_ids = {t.qid for t in base}
    for name, qs in extra.items():
        tagged = tag(qs, name)
        clash = base_ids & {q.qid for q in tagged}
        if clash:
            raise ValueError(f"question ids {sorted(clash)[:3]} of {name} are already in the base triples")
        out.extend(build_triples(tagged, neg_ratio=neg_ratio, max_pos_per_question=max_pos_per_question,
                                 seed=seed))
    return out


def tag(questions: Iterable[AS2Question], name: str) -> list[AS2Question]:
    """Copies with ids '<name>:<id>' (an extra corpus's questions, as they appear in its triples)."""
    return [replace(q, qid=f"{name}:{q.qid}") for q in questions]


def drop_overlap(train: Sequence[AS2Question], held_out: Iterable[Sequence[AS2Question]]
                 ) -> tuple[list[AS2Question], list[AS2Question]]:
    """Training questions kept, and those dropped because an evaluation split holds the same question.

    Same = same id or same `question_key`. WikiQA itself ships one such pair (train Q2079 "what is
    homebrew for wii?" = test Q2940 "what is homebrew for wii"), so the loaders drop before they
    run `check_disjoint` as the guard.
    """
    keys = {k for qs in held_out for q in qs for k in (f"id:{q.qid}", "text:" + question_key(q.question))}
    kept, dropped = [], []
    for q in train:
        hit = f"id:{q.qid}" in keys or (question_key(q.question) and "text:" + question_key(q.question) in keys)
        (dropped if hit else kept).append(q)
    return kept, dropped


def question_key(text: str) -> str:
    """Question text for split checks: case-folded letters and digits only (tokenisation-proof)."""
    return "".join(ch for ch in text.casefold() if ch.isalnum())


def check_disjoint(splits: Mapping[str, Sequence[AS2Question]]) -> None:
    """Raise if a question (by id or by normalised text) appears in two splits."""
    seen: dict[str, str] = {}
    for name, qs in splits.items():
        for q in qs:
            keys = [f"id:{q.qid}"]
            if question_key(q.question):
                keys.append("text:" + question_key(q.question))
            for key in keys:
                if key in seen and seen[key] != name:
                    raise ValueError(f"question {key!r} is in both {seen[key]} and {name}")
                seen[key] = name


def stats(triples: Sequence[Triple]) -> dict[str, int]:
    """Counts in the layout of the paper's Table 2 (AVA part)."""
    return {"questions": len({t.qid for t in triples}), "positives": sum(t.label for t in triples),
            "negatives": sum(1 - t.label for t in triples), "total": len(triples)}
