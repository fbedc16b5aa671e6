"""`qascore-lab train probe-described`: an answer that describes the kind of thing asked for in words of its
own ("An English playwright.", "A city in Europe.") beside the gold in the same words.

`probe-generic` writes the kind in the question's own words ("It is a city."); a
description that adds a word ("A Russian novelist." for Tolstoy, "A mountain in the Himalayas." for Everest)
still names nothing, and judge v14 accepts it because the verifier reads it as fitting (lab/results/judge.md,
round 2026-11-27f). This builder writes the contrast from the suite's own questions: for each question of an
`assertion` pair that asks "who ..." or "which / what X ...", one pair, family `described`, both members in
one template of `probe-plain`:

- right member: "It is A.", "The answer is A.", "A." or "That would be A." (label 1);
- wrong member: the same words with "a/an <adjective> <kind>" or "a/an <kind> in <region>", the kind being
  the question's (`probe_generic.kind_of`) or, for "who", a role ("an English writer") (label 0).

Splits are the suite's. Seeded by (seed, question).
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any, Sequence

from qascore_lab.train.probe_generic import kind_pairs
from qascore_lab.train.probes import composed_command

FAMILY = "described"
ADJECTIVES = ("famous", "well-known", "English", "American", "French", "German", "Italian", "Russian", "European",
              "Asian", "African", "small", "large", "major", "northern", "southern", "historic", "popular", "modern")
REGIONS = ("Europe", "Asia", "Africa", "North America", "South America", "the United States", "England", "France",
           "the north", "the south", "the Middle East")
ROLES = ("writer", "politician", "scientist", "actor", "singer", "musician", "painter", "playwright", "novelist",
         "leader", "poet", "composer", "player", "businessman", "explorer")


def described(kind: str, rng: random.Random, adjectives: Sequence[str] = ADJECTIVES,
              regions: Sequence[str] = REGIONS) -> str:
    """"a/an <adjective> <noun>" or "a/an <noun> in <region>", the noun the kind's ("a city" -> "city")."""
    noun = kind.split(" ", 1)[1]
    if rng.random() < 0.5:
        adjective = rng.choice(adjectives)
        return f"{'an' if adjective[0].lower() in 'aeiou' else 'a'} {adjective} {noun}"
    return f"{kind} in {rng.choice(regions)}"


def build(probes: Path, seed: int) -> dict[str, list[dict[str, Any]]]:
    return kind_pairs(probes, seed, FAMILY, lambda question, rng: f"a {rng.choice(ROLES)}", described,
                      "a description of the question's kind")


add_arguments, run = composed_command("runs/probe-described", build, FAMILY)
