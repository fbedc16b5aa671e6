"""The gold named only in a lesser role: what the answer compares with, or whose something it is.

"Saturn is larger than Jupiter." and "Jupiter's moon Ganymede." both name the gold Jupiter, and token overlap
and containment read that as agreement; the answer asserts Saturn and Ganymede. Two forms are read here:

- a comparison's standard: the mention follows "than" ("taller than Everest"), unless a "no" / "nothing" /
  "none" before it makes the gold the one nothing beats ("No planet is larger than Jupiter"), or "more than" /
  "less than" bounds a quantity ("more than 3 million" for "3 million");
- a possessor: the mention is followed by "'s" and a lower-case word the question lacks, past any number
  ("Obama's vice president" for the 44th president). Not a lesser role: what the question asks about
  ("Fleming's discovery" for "Who discovered penicillin?"), a work ("Shakespeare's play"), a name ("Halley's
  Comet"); "'s" before "the", "a", "been", ... is "is" or "has".

Pure functions on plain strings; their tests are tables.
"""

from __future__ import annotations

import re
from typing import Sequence

from qascore.text.answer_match import POSSESSIVE, QUOTES, fold, mentions

_MARK = "zzpossessive"  # stands for "'s" in the folded tokens (fold drops possessives)
_NAMED = "zznamepossessive"  # ... before a capitalised word: part of a name ("Halley's Comet"), not a possessor
_IN_NAME = re.compile(r"(\w)'s(?=\s+[A-Z])")
# words after "X's" that make it "X is" / "X has" ("Canberra's the capital", "Fleming's been credited"), or
# name what X made
_NOT_POSSESSED = frozenset({"the", "a", "an", "been", "not", "also", "still", "now", "actually", "definitely", "clearly",
                            "certainly", "probably", "located", "in", "at", "on", "known", "called", "considered",
                            "correct", "right", "it", "my", "your", "our", "its", "their", "his", "her", "one", "what",
                            "who", "where", "when", "usually", "generally", "widely", "often", "always", "got", "had",
                            # a work names its maker: "Shakespeare's play" says who wrote it
                            "work", "works", "play", "novel", "book", "poem", "song", "painting", "film", "opera",
                            "symphony", "masterpiece", "composition", "creation", "invention", "design", "theory",
                            "idea", "own"})
_NOTHING = frozenset({"no", "nothing", "none", "nobody", "neither", "nowhere", "never"})
# "more than 3 million", "less than half": a bound on a quantity, which the reference may state itself
_BOUNDS = frozenset({"more", "less", "fewer", "over", "under"})
_STANDARD_REACH = 8  # words before "than" within which a "no" / "nothing" still governs the comparison
_PART = 4  # letters a word of a longer reference needs to count as a mention of it in the possessive
_NAME_WORDS = 3  # ... and words that reference may have: a name ("Leonardo da Vinci"), not a sentence


def _stem(word: str) -> str:
    return word[:5]


def _lesser_at(tokens: list[str], i: int, n: int, asked: set[str], possessor: bool) -> bool:
    """The mention tokens[i:i+n] is a comparison's standard or (where `possessor`) the possessor of something
    not asked about."""
    if i > 0 and tokens[i - 1] == "than":
        return not (i > 1 and tokens[i - 2] in _BOUNDS or _NOTHING.intersection(tokens[max(0, i - 1 - _STANDARD_REACH):i - 1]))
    if possessor and i + n + 1 < len(tokens) and tokens[i + n] == _MARK:
        # the possessed word, past a year or a count ("Madonna's 1990 single")
        following = next((t for t in tokens[i + n + 1:] if not t.isdigit()), "")
        return bool(following) and following not in _NOT_POSSESSED and _stem(following) not in asked
    return False


def _marked(text: str) -> list[str]:
    """Folded tokens with "'s" kept as a token: `_NAMED` before a capitalised word, else `_MARK`."""
    return fold(POSSESSIVE.sub(rf"\1 {_MARK}", _IN_NAME.sub(rf"\1 {_NAMED}", text))).split()


def lesser_role(question: str, candidate: str, references: Sequence[str]) -> float:
    """1.0 if the candidate names a reference and every mention of every reference is in a lesser role (a
    comparison's standard, or the possessor of something the question does not ask about); 0.0 otherwise,
    and where no reference is named. A mention inside a longer one ("Peru" in "Lower Peru") is read as the
    longer one. A word of a name of two or three words in the possessive counts as a mention ("Obama's
    predecessor" for "Barack Obama", "Marie's husband" for "Marie Curie"). A reference that itself holds "'s"
    ("McDonald's") is never read as a possessor."""
    tokens = _marked(candidate.translate(QUOTES))
    plain = [_MARK if t == _NAMED else t for t in tokens]  # what a reference is matched against
    asked = {_stem(w) for w in fold(question).split()}
    spans: list[tuple[int, int, bool]] = []  # (start, words, may be a possessor)
    names: list[int] = []  # starts of a name's word in the possessive
    for ref in references:
        own = ref.translate(QUOTES)
        words = [_MARK if t == _NAMED else t for t in _marked(own)]
        possessor = not POSSESSIVE.search(own)
        if words:
            spans += [(i, len(words), possessor) for i in mentions(plain, words)]
        if possessor and 1 < len(words) <= _NAME_WORDS:
            names += [i for w in words if len(w) >= _PART for i in mentions(tokens, [w, _MARK])]
    covered = {k for i, n, _ in spans for k in range(i, i + n)}
    spans += [(i, 1, True) for i in names if i not in covered]
    outer = [(i, n, p) for i, n, p in spans
             if not any(j <= i and i + n <= j + m and m > n for j, m, _ in spans)]
    return float(bool(outer) and all(_lesser_at(tokens, i, n, asked, p) for i, n, p in outer))
