"""`qascore-lab train probe-plain`: a wrong answer stated plainly ("It is B.") beside the gold one ("It is A.").

The suite's families write the committed gold answer ("It is A.", "The answer is A.", "A.") as a right member
and never a wrong answer in the same words, so a verifier trained on them can learn the words instead of the
answer: `ava` v6 accepts "The answer is Budweiser." for Homer Simpson's beer at 0.96 (lab/results/judge.md,
round 2026-11-27d). This builder writes the missing contrast from the suite's own questions: for each
`assertion` pair (gold A, a real wrong answer B), one pair, family `plain`, both members in one template:

- right member: "It is A.", "The answer is A.", "A." or "That would be A." (label 1);
- wrong member: the same words with B (label 0).

Splits are the suite's. Seeded by (seed, question).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from qascore_lab.train.probes import COMMITTED, Builder, assertion_pairs, composed_command

FAMILY = "plain"
TEMPLATES = COMMITTED + ("That would be {A}.",)


def build(probes: Path, seed: int) -> dict[str, list[dict[str, Any]]]:
    b = Builder(seed)
    for split, r, a, wrong in assertion_pairs(probes):
        template = b.rng(r["qid"], FAMILY).choice(TEMPLATES)
        b.pair(split, r["qid"], r["question"], r["references"], FAMILY, template.format(A=a),
               template.format(A=wrong), r["origin"], r["wrong_from"])
    return b.rows


add_arguments, run = composed_command("runs/probe-plain", build, "plain")
