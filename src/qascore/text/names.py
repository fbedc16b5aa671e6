"""Names that share a word with the gold but name something else: "George Bush" for "George Washington".

Token overlap reads a shared word as agreement, so "Louis Armstrong" recalls half of "Neil Armstrong" and
"Federal Agency of Inquiry" half of "Federal Bureau of Investigation". What tells them apart is a
substitution inside the name: the candidate's name holds a word the gold lacks, and the gold a word the
candidate lacks. Leaving a word out ("Washington", "John Kennedy" for "John F. Kennedy") or adding one the
gold does not contradict ("Sir Alexander Fleming", "Berlin, Germany") is no clash. Pure functions (of plain
strings, and of a `Reading` of the record); their tests are tables.
"""

from __future__ import annotations

import re
from typing import Sequence

from qascore.text.answer_match import Reading, fold, near
from qascore.text.quantities import ORDINALS

# words that sit inside a name in lower case ("Leonardo da Vinci", "Bureau of Investigation")
_CONNECTORS = frozenset({"of", "de", "da", "di", "del", "della", "van", "von", "der", "den", "du", "la", "le", "y",
                         "bin", "ibn", "al", "el", "and", "&", "the"})
# a capitalised word that opens a sentence without being a name
_OPENERS = frozenset({"it", "its", "it's", "this", "that", "these", "those", "he", "she", "they", "his", "her", "their",
                      "in", "on", "at", "by", "for", "from", "with", "as", "after", "before", "during", "yes", "no",
                      "i", "my", "we", "our", "you", "your", "a", "an", "the", "there", "here", "so", "but", "and",
                      "or", "if", "while", "although", "though", "perhaps", "maybe", "probably", "possibly",
                      "certainly", "definitely", "actually", "answer", "correct", "sure", "well", "what", "which",
                      "who", "when", "where", "why", "how", "is", "was", "are", "were", "one", "some", "many",
                      "most", "both", "either", "neither", "not", "none"})
# titles a name may carry or drop ("President Obama" and "Barack Obama")
_TITLES = frozenset({"mr", "mrs", "ms", "miss", "dr", "doctor", "sir", "dame", "lord", "lady", "st", "saint", "mt",
                     "mount", "president", "pope", "prof", "professor", "general", "captain", "jr", "junior", "sr",
                     "senior", "rev", "reverend", "king", "queen", "prince", "princess", "emperor", "empress"})
# head nouns that two names of one thing may word differently ("Director General of MI5" / "Head of MI5"): never
# counted as the word that differs
_HEADS = frozenset({"head", "director", "chief", "leader", "team", "group", "party", "school", "schools", "college",
                    "colleges", "university", "test", "act", "law", "company", "society", "association", "club",
                    "city", "town", "county", "country", "province", "region", "district", "river", "lake",
                    "mountain", "mountains", "island", "islands", "park", "street", "road", "church", "cathedral",
                    "hospital", "museum", "station", "airport", "bridge", "building", "house", "hall", "castle",
                    "palace", "theatre", "theater", "ocean", "sea", "bay", "desert", "forest", "valley", "war",
                    "battle", "treaty", "award", "prize", "cup", "trophy", "song", "album", "film", "movie", "book",
                    "novel", "show", "series", "band", "game", "games", "day", "year", "age", "era", "period",
                    "family", "people", "language", "agency", "department", "ministry", "office", "service",
                    "council", "committee", "board"})
GENERIC = _CONNECTORS | _TITLES | _HEADS  # words that never tell two names apart on their own
# a rank written three ways in a name ("Henry VIII", "Henry 8", "Henry the Eighth"), to sixteen: its number
RANK = {**{w: k for ranks in ("i ii iii iv v vi vii viii ix x xi xii xiii xiv xv xvi", " ".join(map(str, range(1, 17))))
             for k, w in enumerate(ranks.split(), 1)}, **{w: k for w, k in ORDINALS.items() if k <= 16}}
_ABBREVIATION = re.compile(r"\b([A-Z]|Mt|St|Dr|Jr|Sr|Mr|Mrs|Ms|Prof|Rev|Gen|Capt|Ft)\.")
_WORD = re.compile(r"[^\W\d_][\w'\u2019&-]*|[^\w\s]|\d\w*")
_BREAKS = frozenset(".,;:!?()[]{}\"/|")


def _runs(text: str) -> list[list[str]]:
    """The capitalised runs of `text` ("... was George Bush, who ..." -> [["george", "bush"]]), each as its folded
    words, connectors dropped; a run breaks at punctuation and at any lower-case word that is not a connector.
    A sentence's first word opens a run only when it is not a common opener ("It", "The", "Yes")."""
    toks = _WORD.findall(_ABBREVIATION.sub(r"\1", text))
    runs: list[list[str]] = []
    run: list[str] = []
    start = True
    for i, tok in enumerate(toks):
        if tok in _BREAKS or tok[0].isdigit():
            runs.append(run)  # empty runs are dropped at the end
            run = []
            start = start or tok in ".!?:"
            continue
        word = fold(tok)
        if tok[0].isupper() and word and not (start and (word in _OPENERS or not _capital_next(toks, i))):
            run.extend(word.split())
        elif not (run and tok.lower() in _CONNECTORS):
            runs.append(run)
            run = []
        start = False
    runs.append(run)
    return [[w for w in r if w not in _CONNECTORS] for r in runs if r]


def _capital_next(toks: Sequence[str], i: int) -> bool:
    """A sentence's capitalised first word is taken for a name only when a capitalised word follows it
    ("George Bush was ...", not "Stolen the Crown Jewels")."""
    return i + 1 < len(toks) and toks[i + 1][0].isupper()


def same_word(a: str, b: str) -> bool:
    """Two folded words that may name the same part of a name: equal or a `near` spelling, an initial and the
    word ("f" / "fitzgerald"), a short form and the word ("vince" / "vincent"), or the same rank written two ways
    ("viii" / "eighth"; "ii" / "2": `fold` writes "Two" as "2")."""
    if a == b or near(a, b):
        return True
    if a in RANK and b in RANK:
        return RANK[a] == RANK[b]
    short, long_ = sorted((a, b), key=len)
    if len(short) >= 3 and short.isalpha() and long_.startswith(short):  # "Vince" / "Vincent", "Sam" / "Samuel"
        return True
    return len(short) == 1 and long_.isalpha() and long_[0] == short


def _name_words(reference: str) -> list[str]:
    """The words of a reference that a candidate's name must not lack: its capitalised words where it mixes
    cases ("South African rugby union team" -> south, african), else all its words."""
    toks = [t for t in _WORD.findall(_ABBREVIATION.sub(r"\1", reference)) if t[0].isalpha()]
    mixed = any(t[0].isupper() for t in toks) and any(t[0].islower() and t.lower() not in _CONNECTORS for t in toks)
    words = []
    for i, t in enumerate(toks):  # where cases mix, a capitalised first word counts only before another ("Trying to")
        if t.lower() in _CONNECTORS or (mixed and not (t[0].isupper() and (i > 0 or _capital_next(toks, i)))):
            continue
        words.extend(fold(t).split())
    return [w for w in words if w not in _CONNECTORS]


def name_clash(r: Reading) -> float:
    """1.0 if the candidate names something that shares a word with a reference but puts another word where that
    reference has its own, for every reference it shares a name word with, and holds no reference whole ("Red
    Ensign" for "Red Duster", "Henry VII" for "Henry VIII"). Words of the question are context, not substitutes
    ("The Merchant Navy's flag is ..."); titles may come and go ("President Obama" / "Barack Obama")."""
    if not r.references or r.contains:
        return 0.0
    asked = set(r.question_words)
    runs = _runs(r.candidate)
    named = set().union(*runs)
    said = set(r.words)
    refs = [_name_words(ref) for ref in r.references]
    every = {w for ws in refs for w in ws}
    clashed = False
    for run in runs:
        for want in refs:
            if not any(same_word(w, g) for w in run for g in want):
                continue
            # initials of two or more of its words in a row ("HCG" for "Human Chorionic Gonadotropin Test")
            initials = {"".join(g[0] for g in want[i:j]) for i in range(len(want)) for j in range(i + 2, len(want) + 1)}
            extra = [w for w in run if len(w) > 1 and w not in asked and w not in _TITLES and w not in _HEADS
                     and not any(same_word(w, g) for g in every) and w not in initials]
            lacking = [g for g in want if g not in _TITLES and g not in _HEADS and g not in said
                       and not any(same_word(w, g) for w in named)]
            if not (extra and lacking):
                return 0.0
            clashed = True
    return float(clashed)
