"""`qascore-lab train probe-descriptions`: `probe-described`'s pairs in words the verifier never read, and
for "who" questions a role that fits the question.

`described` pairs teach the verifier (their train split is in `ava`'s training), which now refuses their
adjectives and places, and refuses a role that does not fit ("An English politician." for "Who wrote
Hamlet?"), but still accepts one that does ("An English playwright."). These pairs are kept out of the
verifier's training (the judge's calibration reads their train split, its test report the test split; no rule
reads the form); their adjectives and places are none of `probe-described`'s, and their role for a "who"
question is the one it names ("Who was the 44th president?" -> "a Dutch president") or its verb's ("Who
painted ...?" -> "a Roman painter"; `fitting_role`), else one of ROLES. Built as `described` is
(`probe_generic.kind_pairs`), from the suite's questions and splits, seeded by (seed, question); family
`description`.
"""

from __future__ import annotations

import random
import re
from functools import partial
from pathlib import Path
from typing import Any

from qascore_lab.train.probe_described import described
from qascore_lab.train.probe_generic import kind_pairs
from qascore_lab.train.probes import composed_command

FAMILY = "description"
ADJECTIVES = ("Spanish", "Dutch", "Greek", "Roman", "Scottish", "Irish", "Canadian", "Australian", "Victorian",
              "medieval", "ancient", "renowned", "celebrated", "prominent", "notable", "leading", "influential")
REGIONS = ("Scandinavia", "the Balkans", "Latin America", "Central Europe", "Oceania", "the Mediterranean", "Canada",
           "Australia", "Scotland", "the Caribbean", "the Alps")
ROLES = ("author", "statesman", "physicist", "artist", "sculptor", "entertainer", "athlete", "inventor",
         "philosopher", "diplomat", "journalist", "director", "engineer", "architect")


# a role a "who" question names, and the roles its verb implies
ROLE_NOUNS = ("president", "king", "queen", "prime minister", "emperor", "pope", "actor", "actress", "singer",
              "author", "writer", "poet", "painter", "artist", "composer", "scientist", "explorer", "general",
              "player", "footballer", "cricketer", "golfer", "boxer", "astronaut", "inventor", "architect", "director",
              "philosopher", "novelist", "playwright", "musician", "leader", "minister", "chancellor", "governor",
              "senator", "captain", "commander", "admiral", "manager", "coach", "designer", "engineer", "physicist",
              "chemist", "mathematician", "economist", "journalist", "comedian", "dancer", "guitarist", "rapper")
VERB_ROLES = {"wrote": ("author", "writer", "novelist", "poet", "playwright"), "painted": ("painter", "artist"),
              "composed": ("composer",), "directed": ("director", "filmmaker"), "discovered": ("scientist", "explorer"),
              "invented": ("inventor", "engineer"), "founded": ("businessman", "founder"), "led": ("leader", "general"),
              "won": ("athlete", "player"), "played": ("actor", "player"), "sang": ("singer",),
              "designed": ("architect", "designer"), "starred": ("actor",), "created": ("artist", "creator"),
              "built": ("engineer", "architect"), "established": ("founder",), "invaded": ("general", "commander")}
_NOUN = re.compile(rf"\b({'|'.join(ROLE_NOUNS)})\b", re.IGNORECASE)


def fitting_role(question: str, rng: random.Random) -> str:
    """"a/an <role>": the role the "who" question names, else one its verb implies, else one of ROLES."""
    m = _NOUN.search(question)
    words = question.lower().split()
    implied = VERB_ROLES.get(words[1], ()) if len(words) > 1 else ()
    role = m.group(1).lower() if m else rng.choice(implied) if implied else rng.choice(ROLES)
    return f"{'an' if role[0] in 'aeiou' else 'a'} {role}"


def build(probes: Path, seed: int) -> dict[str, list[dict[str, Any]]]:
    return kind_pairs(probes, seed, FAMILY, fitting_role, partial(described, adjectives=ADJECTIVES, regions=REGIONS),
                      "a description of the question's kind in words kept out of the verifier's training")


add_arguments, run = composed_command("runs/probe-descriptions", build, FAMILY)
