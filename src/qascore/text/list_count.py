"""A list answer with fewer or more items than the question asks for ("Saturn and Jupiter." for the four ringed
planets: counted, not matched, so a right list in other names counts), or one that sets a gold item aside after the
list it states (`list_aside`: there items are matched)."""

from __future__ import annotations

import re
from collections import Counter
from itertools import takewhile
from typing import Sequence

from qascore.text.answer_match import LIST_ITEM_WORDS, fold, listed_items, near

_COUNTS = "two three four five six seven eight nine ten eleven twelve".split()
# "Which six countries", "Name the (other) four", "What are the two"; not "Which astronomer ... three laws", "three
# letters", a modifier ("Which four-field crop rotation" asks for one) nor a relative clause ("in which the two players")
ASKED = re.compile(rf"(?<!\bin )(?<!\bof )(?<!\bby )\b(?:which|what|name|list|give)\s+(?:are\s+|were\s+)?(?:the\s+|all\s+)?(?:other\s+)?"
                   rf"({'|'.join(_COUNTS)}|[2-9]|1[0-2])\s+(?!(?:letter|digit|character|word|syllable)s?\b)[a-z]", re.IGNORECASE)
# asks for several, or for letters ("Which two letters ...?": as many as the gold lists)
PLURAL = re.compile(r"(?i)(?:^|[.?!]\s+)(?:name|list|give|(?:what|which|who) (?:are|were))\b|\b(?:which|what) (?:\w+ )?letters\b")
# "and" in other languages too: an answer in another language is a list all the same ("Bleu, Blanc et Rouge", "Rosso e
# verde", "Qizil va yashil"); not the "e" of "e.g." nor the "&" of "R&B"
ITEMS = re.compile(r"(?i)\s*(?:(?<!\d)[,;](?!\d)|[/→\n、と・]|->|\b(?:and|plus|και|и|àti|(?-i:y|e|et|und|och|og|va))\b(?!\.)"
                   r"|(?<!\w)&|&(?!\w))\s*")
LIST_WORDS = 30  # a longer answer is prose, whose commas are not a list's
EXACT_ITEM_WORDS = 4  # `long_list`: a longer item is a clause ("After the Congress of Vienna, A and B emerged")
_ASIDE = re.compile(r"\([^()]*\)|\[[^\]]*\]|^[^\n]*:[ \t]*\n")  # parentheses, brackets, a heading line
_DASH = r"[ \t][—–-]\s"  # a spaced dash inside a line (a bullet's dash opens its line)
_AFTER = re.compile(rf"{_DASH}.*|(?<=,)\s*(?:with|each|both)\b[^,]*", re.DOTALL)  # "A and B — that is, ...", ", with 15 each"
_LINE_AFTER = re.compile(rf"{_DASH}[^\n]*")  # what a line says after a spaced dash ("Io – volcanic")
_CLAUSE = re.compile(r"(?i)(?:in|on|at|from|near|by|which|where|who|whose|that|(?:together |along )?with|like)\s+\w")  # "in Spain"
_CONTRAST = re.compile(r"(?i)\b(?:not|never|but|unlike|although|however|i\.e|e\.g)\b")
_NOT_FIRST = re.compile(r"(?i)^\s*not\b[^.\n]*\.\s+(?=\S)")  # "Not A or B — those are X. The two are C and D."
_SOME_OF = re.compile(rf"\b(?:{'|'.join(_COUNTS)}|\d+)\s+of\b", re.IGNORECASE)  # "Name two of the ..."


def items(text: str) -> list[str]:
    """The items of a list written with commas, semicolons, "and", "plus", slashes, arrows or lines."""
    return [part for part in ITEMS.split(text.strip().rstrip(".")) if part and part.strip(" .*-")]


def short_list(question: str, candidate: str, references: Sequence[str]) -> float:
    """1.0 where the question asks for N things (a number after "which", "name", ...; or, asking for several, the most
    items a reference lists, as `answer_match.listed_items` reads a list, none a number) and an answer of at most
    LIST_WORDS words lists fewer: what a line says after a spaced dash is no item, nor is a later one that opens a
    clause ("Toledo, in Spain.", "Phobos is the one I know — the bigger, inner moon"), nor a first sentence that sets
    others aside ("Not A or B — ... The two are C and D."). A reference "Seattle, Washington" alone asks for no list."""
    listed = [len(p) for p in map(listed_items, map(items, references)) if not any(c.isdigit() for c in fold(" ".join(p)))]
    wanted = asked_count(question) or (max(listed, default=0) if PLURAL.search(question) else 0)
    first, *rest = items(_LINE_AFTER.sub("", _NOT_FIRST.sub("", candidate))) or [""]
    said = [first, *(p for p in rest if not _CLAUSE.match(p))]
    return float(wanted > 1 and len(candidate.split()) <= LIST_WORDS and len(said) < wanted)


def asked_count(question: str) -> int:
    """N where the question asks for N things with the number written ("Which three countries ..."), else 0."""
    m = ASKED.search(question)
    return (int(m[1]) if m[1].isdigit() else _COUNTS.index(m[1].lower()) + 2) if m else 0


def long_list(question: str, candidate: str) -> float:
    """1.0 where the question asks for N things with the number written (not "N of ...") and the answer (at most
    LIST_WORDS words; asides, what follows a dash, an item "with ..." and the items from one that opens a clause on left
    out) lists over N items, none longer than EXACT_ITEM_WORDS words nor negating or contrasting ("Red, green, blue and
    yellow" for three)."""
    parts = list(takewhile(lambda p: not _CLAUSE.match(p), items(_AFTER.sub("", _ASIDE.sub(" ", candidate)))))
    return float(0 < asked_count(question) < len(parts) and len(candidate.split()) <= LIST_WORDS and not _SOME_OF.search(question)
                 and not any(len(p.split()) > EXACT_ITEM_WORDS or _CONTRAST.search(p) for p in parts))


_END = re.compile(r"(?<!\d)(?<!\.[a-zA-Z])(?<!\b[A-Z])\.(?=\s)")  # a sentence's end; not "3.5", "i.e. X", "J. Watt"
_HEADING = re.compile(r"^[^\n]*:[ \t]*\n")  # "The four humours:" over the list
_MARK = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")  # a bullet or a number opening a line
_ITEM_END = re.compile(r"\s+[–—-]\s+|:\s|\s\(")  # where a line's item ends and what it says of it begins
_LEAD = re.compile(r"^[^:]*:\s+|^[^,]*?\b(?:are|were|include)\s+(?=[^,]*,)")  # "Butterflies go through three stages: "


def stated_list(candidate: str) -> tuple[list[str], str]:
    """The list an answer states first, and the text after it: its first paragraph's line heads (after a heading), else
    its first sentence's items after their lead ("The four are "); none where one is a clause (LIST_ITEM_WORDS)."""
    text = _HEADING.sub("", candidate.strip(), count=1).strip()
    first, _, after = (re.split(r"(\n\s*\n)", text, maxsplit=1) + ["", ""])[:3]
    lines, end = [line for line in first.split("\n") if line.strip()], _END.search(text)
    said, rest = (([_ITEM_END.split(_MARK.sub("", line), maxsplit=1)[0] for line in lines], after) if len(lines) >= 2
                  else (items(_LEAD.sub("", _ASIDE.sub(" ", text[:end.start()] if end else text))), text[end.end():] if end else ""))
    return ([] if any(len(fold(p).split()) > LIST_ITEM_WORDS for p in said) else said), rest


def _names(item: str) -> list[str]:
    """A gold item's folded names: itself without asides, and its parentheses' alternatives ("cornet (or trumpet)")."""
    alternatives = [p for aside in re.findall(r"\(([^()]*)\)", item) for p in re.split(r"\bor\b|,", aside)]
    return [n for n in map(fold, [_ASIDE.sub(" ", item), *alternatives]) if n]


def _is_item(said: str, names: Sequence[str]) -> bool:
    """`said` names the gold item: each word of one of its names is a word of `said` (`near`, or a plural however
    short: "gyres"), or the other way round ("silica sand" for silica, "Battle of Junín" for Junín)."""
    def inside(a: list[str], b: list[str]) -> bool:
        return all(any(near(w, x) or w + "s" == x or x + "s" == w for x in b) for w in a)
    words = fold(said).split()
    return bool(words) and any(inside(name.split(), words) or inside(words, name.split()) for name in names)


def list_aside(question: str, candidate: str, references: Sequence[str]) -> float:
    """1.0 where the question asks for several things and the list the answer states (`stated_list`) names some
    gold items and a thing that is none, while a gold item it leaves out is named after it (whole, or by a word no
    other gold item has: "Beckett" for Samuel Beckett): the gold in a side role
    ("Rice, wheat and barley. Maize is the biggest by tonnage, but ..." for maize, rice and wheat)."""
    if not (asked_count(question) >= 2 or PLURAL.search(question)):
        return 0.0
    gold = max(([_names(p) for p in items(ref)] for ref in references), key=len, default=[])
    said, rest = stated_list(candidate)
    hit = [[_is_item(p, g) for g in gold] for p in said]  # each said item against each gold item
    left = [n for j, g in enumerate(gold) if not any(row[j] for row in hit) for n in g]  # the names of the items left out
    once = Counter(w for g in gold for w in set(" ".join(g).split()))  # a word of one gold item alone: "beckett"
    later = f" {fold(rest)} {fold(rest.replace('-', ' '))} "  # "the clarinet-and-trombone pairing"
    return float(len(gold) >= 2 and len(said) >= 2 and any(map(any, hit)) and not all(map(any, hit)) and any(
        f" {w} " in later for n in left for w in [n, *(w for w in n.split() if once[w] == 1 and len(w) > 3)]))
