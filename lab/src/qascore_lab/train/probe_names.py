"""`qascore-lab train probe-names`: a wrong answer that shares a word with the gold name ("It is Louis Armstrong."
beside "It is Neil Armstrong.").

The suite's wrong answers are other answers to the question or answers of other questions, which seldom share
a word with the gold; a judge that reads a shared word as agreement is never caught there, while people and
LLMs err exactly so ("George Bush" for the first US president). This builder writes the contrast from the
suite's own questions: for each `assertion` pair's gold A, a gold answer of another question of the suite
(any split: only its words are used) that `names.name_clash` reads as another name sharing a word with one
of this question's references and substituting for another (not an alias: every reference it shares a word
with lacks one of its words and holds none of its own in that place). One pair per question, family `names`,
both members in one template of `probe-plain`:

- right member: "It is A." / "The answer is A." / "A." / "That would be A." (label 1);
- wrong member: the same words with the other name (label 0).

Splits are the suite's. Seeded by (seed, question).
"""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path
from typing import Any

from qascore.text.answer_match import Reading, fold
from qascore.text.names import GENERIC, name_clash
from qascore_lab.train.probe_plain import TEMPLATES
from qascore_lab.train.probes import Builder, assertion_pairs, composed_command

FAMILY = "names"
_NAME = re.compile(r"[A-Z][\w'.-]*(?: (?:[A-Z][\w'.-]*|of|de|da|van|von|the|and|la|le|du))* [A-Z][\w'.-]*")


def is_name(text: str) -> bool:
    """A proper name of two to four words, each capitalised but for connectors ("Neil Armstrong", "Bank of
    England"), no digits: the answers whose near namesakes the family pairs."""
    return bool(_NAME.fullmatch(text)) and 2 <= len(text.split()) <= 4 and not any(ch.isdigit() for ch in text)


def distinctive(name: str) -> set[str]:
    """The folded words of a name that can tell it from another (not a connector, title or head noun)."""
    return {w for w in fold(name).split() if len(w) >= 3 and w not in GENERIC}


def build(probes: Path, seed: int) -> dict[str, list[dict[str, Any]]]:
    b = Builder(seed)
    rights = [(split, r, a) for split, r, a, _ in assertion_pairs(probes) if is_name(a)]
    by_word: dict[str, set[tuple[str, str]]] = defaultdict(set)  # a distinctive word -> (qid, name) of every name holding it
    for _, r, a in rights:
        for word in distinctive(a):
            by_word[word].add((r["qid"], a))
    done: set[str] = set()
    for split, r, a in rights:
        if r["qid"] in done:
            continue
        done.add(r["qid"])
        refs = r["references"]  # a namesake that is a reference is held whole: no clash
        namesakes = sorted({name for word in distinctive(a) for qid, name in by_word.get(word, ()) if qid != r["qid"]})
        others = [n for n in namesakes if name_clash(Reading(r["question"], n, refs))]
        if not others:
            continue
        rng = b.rng(r["qid"], FAMILY)
        other = rng.choice(others)
        template = rng.choice(TEMPLATES)
        b.pair(split, r["qid"], r["question"], refs, FAMILY, template.format(A=a), template.format(A=other),
               r["origin"], "other-question")
    return b.rows


add_arguments, run = composed_command("runs/probe-names", build, FAMILY)
