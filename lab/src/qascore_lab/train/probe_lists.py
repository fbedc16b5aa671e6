"""`qascore-lab train probe-lists`: bare lists that name the gold answer beside another ("A or B.", "A / B").

EVOUNA's and PEDANTS' guidelines judge an answer that does not commit to one candidate as incorrect. The
suite's `hedge` family writes hedges with a modal ("It might be A or possibly B"); the shortest hedge of
all, a bare list with no modal, was accepted by the judge on 40-97% of the gate's dev questions
(lab/results/judge.md, round 2026-11-26g). This builder writes it from the suite's own questions: for each
`assertion` pair (gold A, a real wrong answer B), one pair, family `bare-list`:

- right member: A committed ("It is A.", "The answer is A.", "A."; label 1);
- wrong member: A and B as a bare list, in either order (label 0).

Splits are the suite's. Seeded by (seed, question).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from qascore_lab.train.probes import COMMITTED, Builder, assertion_pairs, composed_command

FAMILY = "bare-list"
LISTS = ("{A} or {B}.", "{B} or {A}.", "{A} / {B}", "{A} (or {B})")


def build(probes: Path, seed: int) -> dict[str, list[dict[str, Any]]]:
    b = Builder(seed)
    for split, r, a, wrong in assertion_pairs(probes):
        rng = b.rng(r["qid"], FAMILY)
        right = rng.choice(COMMITTED).format(A=a)
        b.pair(split, r["qid"], r["question"], r["references"], FAMILY, right,
               rng.choice(LISTS).format(A=a, B=wrong), r["origin"], r["wrong_from"])
    return b.rows


add_arguments, run = composed_command("runs/probe-lists", build, "list")
