"""Number-swap negatives: a correct answer to a "when / how many" question with its number changed.

The verifier reads "The Berlin Wall fell in 1991" against the gold "1989" as correct (P 0.98): nothing in
its training data differs from a correct answer only in a number. From each row labelled correct whose
question asks for a number or a date (`answer_match.wants_number`) and whose candidate states a digit
number that a reference states, one row labelled incorrect is made: that number changed everywhere in
the candidate (an integer from 1000 to 2100, read as a year, by 1-15; one below 20 by up to 5; another
by a factor of 0.4-1.8; a decimal in its last digit). Seeded; source `numswap`.
"""

from __future__ import annotations

import random
import re
from typing import Any, Sequence

from qascore.text.answer_match import wants_number

_NUMBER = re.compile(r"(?<![\d.,])\d+(?:,\d{3})*(?:\.\d+)?(?!\d)")


def perturb(number: str, rng: random.Random) -> str:
    """Another number of the same shape."""
    if "." in number:
        head, tail = number.split(".")
        return f"{head}.{tail[:-1]}{rng.choice([d for d in range(10) if d != int(tail[-1])])}"
    value = int(number.replace(",", ""))
    if 1000 <= value <= 2100:
        return str(value + rng.choice([d for d in range(-15, 16) if d]))
    if value < 20:
        return str(rng.choice([k for k in range(max(0, value - 5), value + 6) if k != value]))
    new = value
    while new == value:
        new = int(round(value * rng.uniform(0.4, 1.8)))
    return f"{new:,}" if "," in number else str(new)


def swap_pairs(rows: Sequence[dict[str, Any]], rng: random.Random) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(correct row, its number-swapped incorrect twin) for every row that qualifies, in row order."""
    out = []
    for r in rows:
        if r["label"] != 1 or not wants_number(r["question"]):
            continue
        stated = {m.group() for m in _NUMBER.finditer(r["candidate"])}
        shared = sorted({m.group() for ref in r["references"] for m in _NUMBER.finditer(ref)} & stated)
        if not shared:
            continue
        number = rng.choice(shared)
        text = re.sub(rf"(?<![\d.,]){re.escape(number)}(?!\d)", perturb(number, rng), r["candidate"])
        out.append((r, {**r, "candidate": text, "label": 0, "source": "numswap", "kind": "numswap",
                        "negatives": [], "id": f"{r['id']}-ns"}))
    return out
