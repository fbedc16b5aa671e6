"""`qascore-lab train probe-relations`: a wrong answer stated with the gold beside it in a lesser role
("B, often confused with A.", "A's successor, B.") and the same words with the two exchanged.

The suite's assertion and negation families mark the gold as denied ("not A"); an answer more often names the
gold as something its own answer relates to: "Joe Biden, Obama's vice president." for the 44th US president,
"K2 is the tallest, taller than Everest." Judge v14 accepts such answers because the gold is there and the
verifier reads mention (lab/results/judge.md, round 2026-11-27f). This builder writes the contrast from the
suite's own questions: for each `assertion` pair (gold A, a real wrong answer B), one pair, family
`relation`, both members in one template of `TEMPLATES`:

- right member: the template with the gold in the asserted place and B in the lesser one (label 1);
- wrong member: the same words with the two exchanged (label 0).

Splits are the suite's. Seeded by (seed, question).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

from qascore_lab.train.probes import Builder, assertion_pairs, composed_command

FAMILY = "relation"
# {A} is what the sentence asserts, {B} a thing it relates {A} to; about as many templates name {A} last as first,
# so that where the gold stands says nothing
TEMPLATES = ("{A}, often confused with {B}.", "{A}, which came right after {B}.", "{A}, just before {B}.",
             "{A}; {B} is a different one.", "{A}, second only to {B}.", "{A}, {B}'s rival.",
             "It was {A}; {B} came later.", "{A}, a contemporary of {B}.", "The answer is {A}, with {B} a close second.",
             "{A}, followed by {B}.", "{B}'s successor, {A}.", "{B} is something else; {A} is the answer.",
             "Often confused with {B}, the answer is {A}.", "Unlike {B}, {A} is the answer.",
             "{B} came first, but the answer is {A}.", "A rival of {B}: {A}.", "A contemporary of {B}, {A}.",
             "With {B} a close second, the answer is {A}.", "{B} is related, but the answer is {A}.",
             "Leaving {B} aside, it is {A}.", "Ahead of {B}, the answer is {A}.", "Next to {B}, it is {A} that fits.")


def exchanged(probes: Path, seed: int, family: str, templates: Sequence[str]) -> dict[str, list[dict[str, Any]]]:
    """For each suite assertion pair, one pair of `family` in one of `templates` (drawn by seed and question):
    the gold as {A} and the wrong answer as {B} (right member), then the two exchanged (wrong member)."""
    b = Builder(seed)
    for split, r, a, wrong in assertion_pairs(probes):
        template = b.rng(r["qid"], family).choice(templates)
        b.pair(split, r["qid"], r["question"], r["references"], family, template.format(A=a, B=wrong),
               template.format(A=wrong, B=a), r["origin"], r["wrong_from"])
    return b.rows


def build(probes: Path, seed: int) -> dict[str, list[dict[str, Any]]]:
    return exchanged(probes, seed, FAMILY, TEMPLATES)


add_arguments, run = composed_command("runs/probe-relations", build, FAMILY)
