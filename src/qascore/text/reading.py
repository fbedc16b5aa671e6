"""One record as the judge's rules read it: each text folded, split and counted once.

The rules of `answer_match`, `names`, `roles` and `descriptions` compare a candidate with its references and
question. They read them through one `Reading`, whose parts are computed when a rule first asks and kept for
the next, so that a record's references are folded once, not once per rule.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from dataclasses import dataclass
from functools import cached_property
from typing import Iterable, Sequence

from qascore.text.squad import normalize_answer

# typographic quotes, dashes and no-break spaces as ASCII, before any rule reads raw text
QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201b": "'", "\u2032": "'", "\u201c": '"', "\u201d": '"',
                         "\u2013": "-", "\u2014": "-", "\u2212": "-", "\u00a0": " "})
POSSESSIVE = re.compile(r"(\w)'s\b")
_DIGITS = re.compile(r"\d+(?:[.,]\d+)*")


def fold(text: str) -> str:
    """SQuAD normalisation after folding accents, typographic quotes and possessives.

    "Château d’If" and "Chateau d'If" both become "chateau dif"; "Turner's works" becomes "turner works",
    so that a gold "J.M.W. Turner" is found inside "J.M.W. Turner's works".
    """
    text = text.translate(QUOTES)
    if not text.isascii():  # ASCII has no accents to take off (NFKD leaves it as it is)
        text = "".join(ch for ch in unicodedata.normalize("NFKD", text) if not unicodedata.combining(ch))
    return normalize_answer(POSSESSIVE.sub(r"\1", text))


def numbers(text: str) -> set[str]:
    """The numbers written in digits in `text`, as plain strings: thousands commas dropped ("1,100" -> "1100"),
    leading zeros dropped, a decimal kept ("3.50" -> "3.5"); "1960s" and "19th" give "1960" and "19". Number
    words are not read: "one" is too often not a number."""
    out = set()
    for m in _DIGITS.findall(text):
        m = m.replace(",", "") if re.fullmatch(r"\d{1,3}(,\d{3})+", m) else m.replace(",", ".")
        whole, _, frac = m.partition(".")
        frac = frac.rstrip("0").replace(".", "")
        out.add((whole.lstrip("0") or "0") + (f".{frac}" if frac else ""))
    return out


def mentions(tokens: Sequence[str], ref: Sequence[str]) -> list[int]:
    """Where the token sequence `ref` starts inside `tokens`."""
    n = len(ref)
    return [i for i in range(len(tokens) - n + 1) if tokens[i:i + n] == ref]


def within(folded: str, refs: Iterable[str]) -> bool:
    """Some non-empty folded reference occurs as whole words inside the folded text."""
    padded = f" {folded} "
    return any(f" {r} " in padded for r in refs if r)


@dataclass(frozen=True, eq=False)
class Reading:
    """A question, a candidate and its references, with what the rules read of them (each part on first use).

    Build one per record and hand it to every rule: `Reading(question, candidate, references)`."""

    question: str
    candidate: str
    references: Sequence[str]

    @cached_property
    def text(self) -> str:
        """The candidate with typographic quotes and dashes as ASCII (`QUOTES`): what the rules' patterns read."""
        return self.candidate.translate(QUOTES)

    @cached_property
    def folded(self) -> str:
        return fold(self.candidate)

    @cached_property
    def words(self) -> list[str]:
        return self.folded.split()

    @cached_property
    def refs(self) -> list[str]:
        """Each reference folded, in order ("" for one that folds to nothing)."""
        return [fold(r) for r in self.references]

    @cached_property
    def ref_words(self) -> list[list[str]]:
        return [r.split() for r in self.refs]

    @cached_property
    def question_words(self) -> list[str]:
        return fold(self.question).split()

    @cached_property
    def counts(self) -> tuple[Counter[str], list[Counter[str]]]:
        """The candidate's folded words and each reference's, with multiplicity: what token recall compares."""
        return Counter(self.words), [Counter(w) for w in self.ref_words]

    @cached_property
    def numbers(self) -> tuple[set[str], set[str], list[set[str]]]:
        """The numbers (`numbers`) of the candidate, the question and each reference."""
        return numbers(self.candidate), numbers(self.question), [numbers(r) for r in self.references]

    @cached_property
    def contains(self) -> float:
        """1.0 if some folded reference occurs as whole words inside the folded candidate."""
        return float(within(self.folded, self.refs))

    def holds(self, text: str) -> bool:
        """Some folded reference occurs as whole words inside `text` folded (a part of the candidate)."""
        return within(fold(text), self.refs)
