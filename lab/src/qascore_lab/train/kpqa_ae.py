"""Keyphrase-tagger examples from answer-equivalence pairs (`../shared/data/answer_equivalence`).

A pair (question, reference, candidate, label) gives a tagged example when the
candidate is a sentence that holds the reference literally: the candidate is
the answer sentence and the reference's place in it is the keyphrase `K`
(KPQA 3.1's recipe: the answer span inside the answer sentence). Both labels
qualify: the label says whether the sentence answers the question right, not
where the answer phrase sits in it; "The capital is Lyon." under "Paris?" with
reference "Lyon" still marks what a reader looks at.

"Holds literally" is a whole-token match after normalisation: case-folded
word tokens (letters/digits), punctuation ignored, the articles a/an/the
dropped on both sides (the verifier corpus's `normalize` rule), so
"the Eiffel Tower" matches "... Eiffel Tower, ..." and "May" never matches
inside "Mayor". The span runs from the first to the last matched token.
"A sentence": at least `MIN_WORDS` word tokens and more than the reference
has (a bare answer that equals its reference says nothing about where K is).

Questions that an evaluation set uses (KPQA human sets, WikiQA dev/test,
TREC-QA dev, QGEval; `train.verifier_corpus.held_out`) are dropped, and so are
the questions of the verification corpus's dev split (`qascore-lab train
verifier-data`, its default --seed 13): the `judge` stacks `kpqa-rougeL` and is
fitted and reported on that split, so the tagger must not have seen them. An AE
question that is also a SQuAD question takes that SQuAD example's group, so
both land on the same side of the split; the others are grouped by question.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

from qascore_lab.datasets.answer_equivalence import AEPair
from qascore_lab.train.ava_data import question_key
from qascore_lab.train.kpqa_example import Example


MIN_WORDS = 4
VERIFIER_DEV_SEED = 13   # `qascore-lab train verifier-data --seed` default: the corpus whose dev split the judge uses
ARTICLES = frozenset({"a", "an", "the"})
_WORD = re.compile(r"[^\W_]+")


@dataclass
class AEReport:
    """What happened to each pair (counts; the card prints them)."""

    rows: int = 0
    qualify: int = 0
    qualify_correct: int = 0
    qualify_incorrect: int = 0
    no_match: int = 0
    not_a_sentence: int = 0
    eval_question: int = 0
    verifier_dev_question: int = 0
    duplicate: int = 0
    shared_with_squad: int = 0


def words(text: str) -> list[tuple[str, int, int]]:
    """(normalised word, start, end) of every word of `text`, articles left out."""
    out = []
    for m in _WORD.finditer(text):
        w = m.group(0).casefold()
        if w not in ARTICLES:
            out.append((w, m.start(), m.end()))
    return out


def find_span(candidate: str, reference: str) -> tuple[int, int] | None:
    """Character span of the first whole-token occurrence of `reference` in `candidate`, or None."""
    ref = [w for w, _, _ in words(reference)]
    cand = words(candidate)
    if not ref:
        return None
    for i in range(len(cand) - len(ref) + 1):
        if all(cand[i + j][0] == ref[j] for j in range(len(ref))):
            return cand[i][1], cand[i + len(ref) - 1][2]
    return None


def is_sentence(candidate: str, reference: str) -> bool:
    """The candidate counts as an answer sentence: MIN_WORDS words or more, and more than the reference."""
    n = len(_WORD.findall(candidate))
    return n >= MIN_WORDS and n > len(_WORD.findall(reference))


def from_pairs(pairs: Iterable[AEPair], *, held_out: frozenset[str] | set[str] = frozenset(),
               squad_groups: Mapping[str, str] | None = None,
               seen: set[tuple[str, str]] | None = None,
               verifier_dev_seed: int | None = VERIFIER_DEV_SEED) -> tuple[list[Example], AEReport]:
    """Tagged examples from AE pairs, and the report of how many qualified and why others did not.

    `held_out`: question keys (`question_key`) of evaluation sets, dropped. `squad_groups`: question
    key -> group of a SQuAD example with that question. `seen`: (question key, sentence) pairs already
    present (other sources); a repeat is dropped, and every kept example is added to it.
    `verifier_dev_seed`: questions in the verification corpus's dev split for that seed are dropped
    (None: keep them).
    """
    from qascore_lab.train.verifier_corpus import in_dev

    squad_groups = squad_groups or {}
    seen = set() if seen is None else seen
    rep = AEReport()
    out: list[Example] = []
    for p in pairs:
        rep.rows += 1
        qk = question_key(p.question)
        if not is_sentence(p.candidate, p.reference):
            rep.not_a_sentence += 1
            continue
        span = find_span(p.candidate, p.reference)
        if span is None:
            rep.no_match += 1
            continue
        rep.qualify += 1
        if p.label:
            rep.qualify_correct += 1
        else:
            rep.qualify_incorrect += 1
        if qk in held_out:
            rep.eval_question += 1
            continue
        if verifier_dev_seed is not None and in_dev(qk, verifier_dev_seed):
            rep.verifier_dev_question += 1
            continue
        key = (qk, " ".join(w for w, _, _ in words(p.candidate)))
        if key in seen:
            rep.duplicate += 1
            continue
        seen.add(key)
        group = squad_groups.get(qk)
        rep.shared_with_squad += group is not None
        out.append(Example(p.question, p.candidate, (span,), "ae", group or f"ae:{qk}", f"ae:{p.line}"))
    return out, rep


def seen_keys(examples: Sequence[Example]) -> set[tuple[str, str]]:
    """(question key, normalised sentence) of existing examples, for `from_pairs(seen=...)`."""
    return {(question_key(e.question), " ".join(w for w, _, _ in words(e.sentence))) for e in examples}
