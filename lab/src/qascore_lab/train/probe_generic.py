"""`qascore-lab train probe-generic`: an answer that names only the kind of thing asked for ("It is a city.", "A
famous person.") beside the gold in the same words.

A verifier reads "That would be a country." as fitting "Which country won the 2014 FIFA World Cup?": judge v13
accepts such answers in a third of dev pairs (lab/results/judge.md, round 2026-11-27e). This builder writes
the contrast from the suite's own questions: for each question of an `assertion` pair that asks "who ..."
or "which / what X ...", one pair, family `generic`, both members in one template of `probe-plain`:

- right member: "It is A.", "The answer is A.", "A." or "That would be A." (label 1);
- wrong member: the same words with "a person", "a famous person" or "someone well known" (who), or
  "a/an X" (which / what X; "what type of X" too) (label 0).

Splits are the suite's. Seeded by (seed, question).
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from qascore_lab.train.probe_plain import TEMPLATES
from qascore_lab.train.probes import Builder, assertion_pairs, composed_command

FAMILY = "generic"
PEOPLE = ("a person", "a famous person", "someone well known")
_KIND = re.compile(r"^(?:which|what)\s+(?:type of |kind of |sort of |species of |breed of )?((?:[a-z]+ ){0,2}?[a-z]+?)\s+"
                   r"(?:is|was|are|were|did|does|do|has|had|can|could|would|will|became|won|wrote|made)\b", re.IGNORECASE)
_NOT_KINDS = frozenset({"is", "was", "the", "a", "an", "of", "in", "on", "name", "year", "one", "number", "date", "term",
                        "word", "colour", "color", "time", "day"})


def kind_of(question: str, rng_pick: str) -> str | None:
    """The kind a question asks for, as an indefinite noun phrase: "a person" (or `rng_pick`'s choice among
    PEOPLE) for "who ...", "a city" for "Which city ...", None where the question names no kind."""
    q = question.strip().strip('"').strip()
    if q.lower().startswith("who "):
        return rng_pick
    m = _KIND.match(q)
    if not m or m.group(1).split()[-1].lower() in _NOT_KINDS:
        return None
    kind = m.group(1).lower()
    return f"{'an' if kind[0] in 'aeiou' else 'a'} {kind}"


def kind_pairs(probes: Path, seed: int, family: str, person: Callable[[str, random.Random], str],
               say: Callable[[str, random.Random], str], wrong_from: str) -> dict[str, list[dict[str, Any]]]:
    """One pair per question of an `assertion` pair that names a kind: the gold, and `say(kind, rng)` in the
    same template; `person(question, rng)` is the kind of a "who" question. Seeded by (seed, question, family)."""
    b = Builder(seed)
    done: set[str] = set()
    for split, r, a, _ in assertion_pairs(probes):
        if r["qid"] in done:
            continue
        done.add(r["qid"])
        rng = b.rng(r["qid"], family)
        kind = kind_of(r["question"], person(r["question"], rng))
        if kind is None:
            continue
        text = say(kind, rng)
        template = rng.choice(TEMPLATES)
        wrong = template.format(A=text[0].upper() + text[1:] if template.startswith("{") else text)
        b.pair(split, r["qid"], r["question"], r["references"], family, template.format(A=a), wrong, r["origin"],
               wrong_from)
    return b.rows


def build(probes: Path, seed: int) -> dict[str, list[dict[str, Any]]]:
    return kind_pairs(probes, seed, FAMILY, lambda question, rng: rng.choice(PEOPLE), lambda kind, rng: kind,
                      "the question's kind")


add_arguments, run = composed_command("runs/probe-generic", build, FAMILY)
