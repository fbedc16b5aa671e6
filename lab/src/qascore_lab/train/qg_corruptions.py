"""A dev set that looks like bad generated questions, built from held-out SQuAD questions (issue 45).

QGEval's annotators mark generated questions down for faults a QG system makes; this builder makes those
faults from held-out SQuAD questions (the reader never trained on them), so `answerability`'s rule can be
chosen on rows like QGEval's without reading QGEval. Each own question (q, passage, answer) is kept as a
positive (`own`) and yields at most one row of each kind, all with the own passage and answer:

- `other_answer`: another question of the passage, about a different answer (token F1 < 0.5);
- `other_passage`: a question of another paragraph of the same article;
- `dropped_words`: half of q's content words (at least one) dropped;
- `vague`: q's wh-word in a generic question ("What happened?");
- `entity_swap`: a capitalised name or number of q replaced by one from another article, absent from the
  passage (a false premise: unanswerable);
- `copied_cut`: the passage sentence holding the answer, with the answer replaced by "what" and a "?"
  (answerable, a lazy copy; reported, not a negative: a rule need not mark it down).

Seeded: the same questions and seed give the same rows.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import Sequence

from qascore.text.squad import normalize_answer, squad_f1

NEGATIVE_KINDS = ("other_answer", "other_passage", "dropped_words", "vague", "entity_swap")
KINDS = ("own", *NEGATIVE_KINDS, "copied_cut")

STOP = frozenset("""a an the of in on at to for from by with about as into than then that this these those is are was
were be been being do does did has have had what which who whom whose when where why how and or but not no it its
their his her they he she them there here if so can could would should may might will shall much many""".split())
WH = ("what", "who", "whom", "whose", "when", "where", "which", "why", "how")
VAGUE = ("{wh} happened?", "{wh} is it?", "{wh} did they do?", "{wh} is mentioned?")
_TOKEN = re.compile(r"\w+(?:[-'.]\w+)*|[^\w\s]")
_NAME = re.compile(r"(?<!^)(?<![.?!] )\b(?:[A-Z][\w'-]*|\d[\d,.]*)(?: (?:[A-Z][\w'-]*|\d[\d,.]*|of|de|the))*"
                   r"(?<! of)(?<! de)(?<! the)")
_SENTENCE = re.compile(r"[^.!?]*(?:[.!?]+|$)")


@dataclass(frozen=True)
class Source:
    """A held-out question with its passage, answer and article."""

    question: str
    context: str
    answer: str
    title: str


@dataclass(frozen=True)
class Row:
    kind: str
    question: str
    context: str
    answer: str
    title: str
    base: int   # index of the own question it was made from


def wh_word(question: str) -> str:
    """The first wh-word of `question`, capitalised ("What" when it has none)."""
    for tok in _TOKEN.findall(question.lower()):
        if tok in WH:
            return tok.capitalize()
    return "What"


def drop_words(question: str, rng: random.Random) -> str | None:
    """`question` without half of its content words (rounded up; None when it has none)."""
    toks = _TOKEN.findall(question)
    content = [i for i, t in enumerate(toks) if t[0].isalnum() and t.lower() not in STOP]
    if not content:
        return None
    gone = set(rng.sample(content, (len(content) + 1) // 2))
    return _join([t for i, t in enumerate(toks) if i not in gone])


def _join(tokens: Sequence[str]) -> str:
    out = ""
    for t in tokens:
        out += t if (not out or not t[0].isalnum() and t not in "(\"") else " " + t
    return out


def names(text: str) -> list[str]:
    """Capitalised names and numbers in `text`, not counting its first word (capitalised anyway)."""
    return [m.group(0) for m in _NAME.finditer(text) if m.group(0).lower() not in STOP]


def swap_entity(question: str, context: str, pool: Sequence[str], rng: random.Random) -> str | None:
    """`question` with one of its names/numbers replaced by one of `pool` of the same kind (number or name)
    that the passage does not mention; None when there is none to swap."""
    found = names(question)
    if not found:
        return None
    old = rng.choice(found)
    is_num = old[0].isdigit()
    norm = normalize_answer(context)
    choices = [p for p in pool if p[0].isdigit() == is_num and p != old and normalize_answer(p) not in norm]
    if not choices:
        return None
    return question.replace(old, rng.choice(choices), 1)


def copy_cut(context: str, answer: str) -> str | None:
    """The passage sentence holding `answer` with the answer replaced by 'what', ending in '?'."""
    for m in _SENTENCE.finditer(context):
        s = m.group(0).strip()
        if answer and answer in s:
            return s.replace(answer, "what", 1).rstrip(".!? ") + "?"
    return None


def build(sources: Sequence[Source], n: int, seed: int = 45) -> list[Row]:
    """Rows of every kind for `n` own questions drawn (seeded) from `sources`."""
    rng = random.Random(seed)
    by_context: dict[str, list[int]] = {}
    by_title: dict[str, list[int]] = {}
    for i, s in enumerate(sources):
        by_context.setdefault(s.context, []).append(i)
        by_title.setdefault(s.title, []).append(i)
    name_pool: dict[str, list[str]] = {}
    for s in sources:
        name_pool.setdefault(s.title, []).extend(names(s.question))
    picks = sorted(rng.sample(range(len(sources)), min(n, len(sources))))
    rows: list[Row] = []
    for b, i in enumerate(picks):
        s = sources[i]
        made: dict[str, str | None] = {"own": s.question}
        others = [sources[j].question for j in by_context[s.context] if squad_f1(sources[j].answer, s.answer) < 0.5]
        made["other_answer"] = rng.choice(others) if others else None
        far = [sources[j].question for j in by_title[s.title] if sources[j].context != s.context
               and normalize_answer(sources[j].answer) not in normalize_answer(s.context)]
        made["other_passage"] = rng.choice(far) if far else None
        made["dropped_words"] = drop_words(s.question, rng)
        made["vague"] = rng.choice(VAGUE).format(wh=wh_word(s.question))
        pool = [x for t in sorted(name_pool) if t != s.title for x in name_pool[t]]
        made["entity_swap"] = swap_entity(s.question, s.context, pool, rng)
        made["copied_cut"] = copy_cut(s.context, s.answer)
        rows.extend(Row(k, q, s.context, s.answer, s.title, b) for k in KINDS if (q := made[k]) is not None)
    return rows


__all__ = ["Source", "Row", "KINDS", "NEGATIVE_KINDS", "build", "drop_words", "swap_entity", "copy_cut", "names",
           "wh_word"]
