"""Whether two words name one thing spelled otherwise ("Caernarvon" / "Caernarfon", "sagbut" / "sackbut",
"Lobatschewsky" / "Lobachevsky"): a model learned from Wikipedia's redirects, for the names no table lists.

Two folded words are aligned letter by letter (Levenshtein); each edit (a letter for another, a letter more) has a
learned log-odds of occurring between spellings of one name rather than between two names that look alike
("v" for "f" and a dropped "h" are cheap, "t" for "l" is not); a logistic regression reads their sum, the costliest
edit, how many there are and where ("Austria" / "Australia", "Slovenia" / "Slovakia" are two names). Trained by
`qascore-lab train spellings` (weights: resources/judge/spellings.json); read once per process, on first use.
Words that differ only in an English ending ("palynology" / "palynologist") are other words, never spellings.
"""

from __future__ import annotations

import json
import math
import re
from functools import lru_cache
from typing import Any

from qascore.runtime import defaults

DEFAULT = defaults.RESOURCES / "judge" / "spellings.json"
MIN_LETTERS = 5  # shorter words are too alike by chance ("Iran" / "Iraq")
MAX_SHARE = 0.35  # at most this share of the longer word's letters edited: further apart is no spelling
VOWELS = "aeiouy"
# endings that make another word of a stem, not another spelling of it ("germany" / "germanic")
ENDINGS = frozenset("s es ed ing ist ists ism isms ian ians ean ic ics ical aic al er ers or ors ity ive ous ation ations "
                    "ology ologist ologists ological an ans ese ish ite ites ness ment ments ly y ies ia".split())


def edits(a: str, b: str) -> list[str]:
    """The letter edits of a cheapest alignment of `a` and `b`: "x>y" for a letter replaced (the pair sorted, so
    the order of the words does not matter) and "+x" for a letter one word has more."""
    rows = [list(range(len(b) + 1))]
    for i, x in enumerate(a, 1):
        row = [i]
        for j, y in enumerate(b, 1):
            row.append(min(rows[-1][j] + 1, row[j - 1] + 1, rows[-1][j - 1] + (x != y)))
        rows.append(row)
    out, i, j = [], len(a), len(b)
    while i or j:
        if i and j and rows[i][j] == rows[i - 1][j - 1] + (a[i - 1] != b[j - 1]):
            if a[i - 1] != b[j - 1]:
                out.append(">".join(sorted((a[i - 1], b[j - 1]))))
            i, j = i - 1, j - 1
        elif i and rows[i][j] == rows[i - 1][j] + 1:
            out.append("+" + a[i - 1])
            i -= 1
        else:
            out.append("+" + b[j - 1])
            j -= 1
    return out[::-1]


def comparable(a: str, b: str) -> bool:
    """Two folded words the model reads: letters only, both MIN_LETTERS long or longer, different, of lengths not
    too far apart, neither the other with letters put before it ("sublimation" / "desublimation": a prefix makes
    another word), not one stem with two English endings (`ENDINGS`), and at most MAX_SHARE of the longer word
    edited."""
    if a == b or not (a.isalpha() and b.isalpha()) or min(len(a), len(b)) < MIN_LETTERS or a.endswith(b) or b.endswith(a):
        return False
    if abs(len(a) - len(b)) > MAX_SHARE * max(len(a), len(b)):
        return False
    k = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    return not ({a[k:], b[k:]} <= ENDINGS | {""}) and len(edits(a, b)) <= MAX_SHARE * max(len(a), len(b))


def skeleton(word: str) -> str:
    """The word's consonants, a doubled one once ("tupaia" -> "tp", "chukka" -> "chk")."""
    return re.sub(r"(.)\1+", r"\1", re.sub(f"[{VOWELS}]", "", word))


def features(a: str, b: str, costs: dict[str, float], unseen: float) -> list[float]:
    """The model's inputs for two `comparable` words: summed and largest edit cost, the number of edits and their
    share of the longer word, whether the first and the last letters agree, the shorter word's length, whether
    every edit is of vowels only and whether the consonants agree (`skeleton`)."""
    ops = edits(a, b)
    cost = [costs.get(op, unseen) for op in ops]
    return [sum(cost), max(cost), float(len(ops)), len(ops) / max(len(a), len(b)), float(a[0] == b[0]),
            float(a[-1] == b[-1]), float(min(len(a), len(b))), float(all(set(op) - {">", "+"} <= set(VOWELS) for op in ops)),
            float(skeleton(a) == skeleton(b))]


@lru_cache(maxsize=2)
def _model(path: str) -> dict[str, Any]:
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def probability(a: str, b: str, path: str = str(DEFAULT)) -> float:
    """The model's probability that folded words `a` and `b` spell one name; 0.0 where they are not `comparable`."""
    if not comparable(a, b):
        return 0.0
    m = _model(path)
    f = features(a, b, m["costs"], m["unseen"])
    z = m["bias"] + sum(w * x for w, x in zip(m["weights"], f))
    return 1.0 / (1.0 + math.exp(-z))


def spelled(a: str, b: str, path: str = str(DEFAULT)) -> bool:
    """Folded words `a` and `b` spell one name, at the model's shipped threshold."""
    return probability(a, b, path) >= _model(path)["threshold"]
