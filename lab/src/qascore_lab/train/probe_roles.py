"""`qascore-lab train probe-roles`: a wrong answer given the question's role in a clause of its own, the gold
named beside it in another ("B is the one who wrote Hamlet; A is another one."), and the two exchanged.

Both members name both answers, so containment and overlap cannot tell them apart; only which clause restates
the question does. Kept out of the verifier's training, they test whether the judge reads that; its
`misattributed` rule was fitted on them until the rule retired (`train judge-retire`, lab/results/judge.md round
2026-12-01f). For each suite `assertion` pair (gold A, a real wrong
answer B) whose question reads as "Who <verb> ...?" or "Which/What <kind> <verb> ...?", one pair, family
`role`, both members in one template of `TEMPLATES`, {rest} the question after its question words ("wrote
Hamlet", "is known as Auld Reekie"):

- right member: the gold in the restating clause, the wrong answer in the other (label 1);
- wrong member: the two exchanged (label 0).

A question asked with "did" / "does" / "do", or with "when" / "where" / "how", has no such restating clause
here and gives no pair. Splits are the suite's. Seeded by (seed, question).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from qascore_lab.train.probes import Builder, assertion_pairs, composed_command

FAMILY = "role"
# {A} is the answer the sentence gives the question's role ({rest}); {B} the one it sets aside
TEMPLATES = ("{A} is the one {that} {rest}; {B} is another one.", "{B} is a different one; {A} is the one {that} {rest}.",
             "{A} is the one {that} {rest}. {B} is something else.",
             "{B} is something else, but {A} is the one {that} {rest}.")
_ASKED = re.compile(r"^(?P<wh>who|(?:which|what)(?:\s+[a-z]+){1,2}?)\s+(?P<rest>(?:is|was|are|were|has|had|became|won|"
                    r"wrote|made|invented|discovered|painted|played|founded|created|built|led|sang|directed)\b.*?)\s*\??$",
                    re.IGNORECASE)


def restated(question: str) -> tuple[str, str] | None:
    """("who" or "that", the question after its question words) for "Who wrote Hamlet?" -> ("who", "wrote
    Hamlet"), "Which city is known as Auld Reekie?" -> ("that", "is known as Auld Reekie"); None where the
    question has no such form."""
    m = _ASKED.match(question.strip().strip('"').strip())
    if not m:
        return None
    return ("who" if m.group("wh").lower() == "who" else "that"), m.group("rest")


def build(probes: Path, seed: int) -> dict[str, list[dict[str, Any]]]:
    b = Builder(seed)
    for split, r, a, wrong in assertion_pairs(probes):
        asked = restated(r["question"])
        if asked is None:
            continue
        template = b.rng(r["qid"], FAMILY).choice(TEMPLATES)
        that, rest = asked
        b.pair(split, r["qid"], r["question"], r["references"], FAMILY,
               template.format(A=a, B=wrong, that=that, rest=rest), template.format(A=wrong, B=a, that=that, rest=rest),
               r["origin"], r["wrong_from"])
    return b.rows


add_arguments, run = composed_command("runs/probe-roles", build, FAMILY)
