"""The gold named in a role other than the answer's.

"Saturn is larger than Jupiter." and "Jupiter's moon Ganymede." both name the gold Jupiter, and token overlap
and containment read that as agreement; the answer asserts Saturn and Ganymede. `lesser_role` reads these roles:

- a comparison's standard: the mention follows "than" ("taller than Everest"), unless a "no" / "nothing" /
  "none" before it makes the gold the one nothing beats ("No planet is larger than Jupiter"), or "more than" /
  "less than" bounds a quantity ("more than 3 million" for "3 million");
- a relation's standard: the mention follows a relation between people in an apposition to a name the question
  lacks ("Niels Bohr, a contemporary of Einstein", "Buzz Aldrin, the colleague of Armstrong");
- a relation's possessor: the mention is followed by "'s" and, within two words past any number, a relation
  (`_RELATION_NOUNS`: "Obama's vice president" for the 44th president, "Jupiter's largest moon", "Sydney's
  neighbour") that the question does not ask about. Not a lesser role: what the possessor made, owns or said
  ("Adele's second album", "Toyota's luxury division", "Schumpeter's phrase"), which may be what the question
  asks for; a name ("Halley's Comet").

A pure function of a `Reading` of the record; its tests are tables.
"""

from __future__ import annotations

import re
from qascore.text.answer_match import POSSESSIVE, QUOTES, Reading, fold, mentions

_MARK = "zzpossessive"  # stands for "'s" in the folded tokens (fold drops possessives)
_NAMED = "zznamepossessive"  # ... before a capitalised word: part of a name ("Halley's Comet"), not a possessor
_IN_NAME = re.compile(r"(\w)'s(?=\s+[A-Z])")
_NOTHING = frozenset({"no", "nothing", "none", "nobody", "neither", "nowhere", "never"})
# "more than 3 million", "less than half": a bound on a quantity, which the reference may state itself
_BOUNDS = frozenset({"more", "less", "fewer", "over", "under"})
_STANDARD_REACH = 8  # words before "than" within which a "no" / "nothing" still governs the comparison
_PART = 4  # letters a word of a longer reference needs to count as a mention of it in the possessive
_NAME_WORDS = 3  # ... and words that reference may have: a name ("Leonardo da Vinci"), not a sentence


_RELATION = "zzrelationof"  # stands for "of" / "to" after a person's relation in an apposition (see `_appositions`)
# "Niels Bohr, a contemporary of Einstein": a name, a comma, a relation between people, then its standard
_RELATIONS = ("contemporary|colleague|rival|friend|student|pupil|teacher|mentor|disciple|follower|protege|assistant|"
              "collaborator|partner|wife|husband|widow|son|daughter|father|mother|brother|sister|cousin|nephew|niece|"
              "uncle|aunt|grandson|granddaughter|descendant|successor|predecessor|contemporaries|colleagues|rivals|"
              "friends|students|pupils|followers|sons|daughters|brothers|sisters")
# what a possessor stands in a relation to: a person's relations, a thing's counterpart ("Sydney's neighbour")
_RELATION_NOUNS = frozenset(_RELATIONS.split("|")) | {"neighbour", "neighbours", "neighbor", "neighbors", "counterpart",
                                                      "counterparts", "equivalent", "match", "twin", "moon", "moons",
                                                      "deputy", "vice", "spouse", "ally", "opponent", "namesake"}
_APPOSITION = re.compile(rf"\b(?P<name>[A-Z][\w'.-]*(?:\s+(?:[A-Z][\w'.-]*|da|de|di|van|von|der|la|le))*)\s*,\s+"
                         rf"(?:a|an|the|his|her|their|one of the)\s+(?:[a-z-]+\s+)?(?:{_RELATIONS})\s+(?P<prep>of|to)\b")


def _appositions(text: str, asked: set[str]) -> str:
    """`text` with the preposition of each apposition that gives a name other than the question's (`asked`: its
    folded words) a relation to someone ("Niels Bohr, a contemporary of Einstein") written as `_RELATION`: what
    follows is that relation's standard, not the answer."""

    def mark(m: re.Match[str]) -> str:
        if set(fold(m.group("name")).split()) & asked:
            return m.group(0)
        return m.group(0)[:m.start("prep") - m.start()] + _RELATION
    return _APPOSITION.sub(mark, text)


def _stem(word: str) -> str:
    return word[:5]


def _lesser_at(tokens: list[str], i: int, n: int, asked: set[str], possessor: bool) -> bool:
    """The mention tokens[i:i+n] is in a lesser role (a possessor only where `possessor`)."""
    if i > 0 and tokens[i - 1] == "than":
        return not (i > 1 and tokens[i - 2] in _BOUNDS or _NOTHING.intersection(tokens[max(0, i - 1 - _STANDARD_REACH):i - 1]))
    if i > 0 and tokens[i - 1] == _RELATION:
        return True
    if possessor and i + n + 1 < len(tokens) and tokens[i + n] == _MARK:
        # the possessed words, past a year or a count ("Madonna's 1990 rival"), one of them a relation
        possessed = [t for t in tokens[i + n + 1:] if not t.isdigit()][:2]
        return any(w in _RELATION_NOUNS for w in possessed) and _stem(possessed[0]) not in asked
    return False


def _marked(text: str) -> list[str]:
    """Folded tokens with "'s" kept as a token: `_NAMED` before a capitalised word, else `_MARK`."""
    return fold(POSSESSIVE.sub(rf"\1 {_MARK}", _IN_NAME.sub(rf"\1 {_NAMED}", text))).split()


def lesser_role(r: Reading) -> float:
    """1.0 if the candidate names a reference and every mention of every reference is in a lesser role (above);
    0.0 otherwise, and where no reference is named. A mention inside a longer one ("Peru" in "Lower Peru") is
    read as the longer one. A word of a name of two or three words in the possessive counts as a mention ("Obama's
    predecessor" for "Barack Obama", "Marie's husband" for "Marie Curie"), and then so does one said otherwise
    ("Keynes. Not Hayek, Keynes's rival."). A reference that itself holds "'s" ("McDonald's") is never read as a
    possessor."""
    tokens = _marked(_appositions(r.text, set(r.question_words)))
    plain = [_MARK if t == _NAMED else t for t in tokens]  # what a reference is matched against
    asked = {_stem(w) for w in r.question_words}
    spans: list[tuple[int, int, bool]] = []  # (start, words, may be a possessor)
    names: list[int] = []  # starts of a name's word in the possessive
    bare: list[int] = []  # ... and of one said otherwise: the name given its own role ("Keynes. ... Keynes's rival")
    for ref in r.references:
        own = ref.translate(QUOTES)
        words = [_MARK if t == _NAMED else t for t in _marked(own)]
        possessor = not POSSESSIVE.search(own)
        if words:
            spans += [(i, len(words), possessor) for i in mentions(plain, words)]
        if possessor and 1 < len(words) <= _NAME_WORDS:
            said = [i for w in words if len(w) >= _PART for i in mentions(tokens, [w])]
            names += [i for i in said if tokens[i + 1:i + 2] == [_MARK]]
            bare += [i for i in said if next((t for t in tokens[i + 1:] if t not in words), "") != _MARK]
    covered = {k for i, n, _ in spans for k in range(i, i + n)}
    if names:
        spans += [(i, 1, True) for i in names if i not in covered] + [(i, 1, False) for i in bare if i not in covered]
    outer = [(i, n, p) for i, n, p in spans
             if not any(j <= i and i + n <= j + m and m > n for j, m, _ in spans)]
    return float(bool(outer) and all(_lesser_at(tokens, i, n, asked, p) for i, n, p in outer))
