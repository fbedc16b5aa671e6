"""Cheap answer-matching signals for the `judge` metric: alias-aware containment, token recall,
and the question-type / answer-type agreement that makes lexical judges work on long LLM answers.

The rules here and in `names` and `roles` read a record through one `Reading`, whose parts (each
text folded, split, counted) are computed when a rule first asks and kept for the next; the others are pure
functions of plain strings. Their tests are tables of inputs and outputs.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter
from dataclasses import dataclass
from functools import cached_property
from typing import Callable, Iterable, Sequence

from qascore.text.quantities import NUMBER_WORDS, clashes, decimal_fractions, in_digits, restated, rounding_zeros
from qascore.text.squad import normalize_answer

# typographic quotes, dashes and no-break spaces as ASCII, before any rule reads raw text
QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201b": "'", "\u2032": "'", "\u201c": '"', "\u201d": '"',
                         "\u2013": "-", "\u2014": "-", "\u2212": "-", "\u00a0": " "})
LETTERS = str.maketrans({**dict(zip("øØđĐłŁ", "oOdDlL")), "æ": "ae", "Æ": "Ae", "ß": "ss", "þ": "th", "Þ": "Th", "œ": "oe", "Œ": "Oe"})
POSSESSIVE = re.compile(r"(\w)'s\b")
_DIGITS = re.compile(r"\d+(?:[.,]\d+)*")
_DECIMAL = re.compile(r"(?<=\d)\.(?=\d)")
_SIGNED = re.compile(r"(?<![\w.-])-(?=\d)")


def fold(text: str) -> str:
    """SQuAD normalisation after folding accents, typographic quotes, possessives and number words (`in_digits`: "39").

    "Château d’If" and "Chateau d'If" both become "chateau dif", "Ørsted" "orsted"; "Turner's works" becomes "turner works",
    so that a gold "J.M.W. Turner" is found inside "J.M.W. Turner's works"; a decimal point and a minus sign are
    kept as marks the normalisation leaves ("3.6" is not "36", "-40" not "40").
    """
    text = _SIGNED.sub("\u2212", _DECIMAL.sub("\u066b", text.translate(QUOTES)))
    if not text.isascii():  # ASCII has no accents to take off; NFKD keeps "ø", "æ", "ß" whole (`LETTERS` spells them)
        text = "".join(ch for ch in unicodedata.normalize("NFKD", text.translate(LETTERS)) if not unicodedata.combining(ch))
    text = POSSESSIVE.sub(r"\1", text).lower()
    return normalize_answer(in_digits(text))


def numbers(text: str) -> set[str]:
    """The numbers written in digits in `text`, as plain strings: thousands commas dropped ("1,100" -> "1100"),
    leading zeros dropped, a decimal kept ("3.50" -> "3.5"); "1960s" and "19th" give "1960" and "19". Number
    words are not read: "one" is too often not a number. A vulgar fraction is a decimal ("9½" -> "9.5")."""
    out = set()
    for m in _DIGITS.findall(decimal_fractions(text)):
        m = m.replace(",", "") if re.fullmatch(r"\d{1,3}(,\d{3})+", m) else m.replace(",", ".")
        whole, _, frac = m.partition(".")
        frac = frac.rstrip("0").replace(".", "")
        out.add((whole.lstrip("0") or "0") + (f".{frac}" if frac else ""))
    return out


def mentions(tokens: Sequence[str], ref: Sequence[str]) -> list[int]:
    """Where the token sequence `ref` starts inside `tokens`."""
    n = len(ref)
    return [i for i in range(len(tokens) - n + 1) if tokens[i:i + n] == ref]


@dataclass(frozen=True, eq=False)
class Reading:
    """A record as the judge's rules read it: each part (the candidate's folded words, the references folded, the
    numbers, ...) is computed when a rule first asks and kept for the next, where each rule used to fold the
    record again. Build one per record and hand it to every rule: `Reading(question, candidate, references)`."""

    question: str
    candidate: str
    references: Sequence[str]

    @cached_property
    def text(self) -> str:
        """The candidate with typographic quotes and dashes as ASCII (`QUOTES`): what the rules' patterns read."""
        return self.candidate.translate(QUOTES)

    @cached_property
    def words(self) -> list[str]:
        """The candidate's folded words (`fold`)."""
        return fold(self.candidate).split()

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
    def yes_no(self) -> bool:
        """A reference is "Yes" or "No": the answer's polarity word is then its answer."""
        return bool({"yes", "no"} & set(self.refs))

    @cached_property
    def contains(self) -> float:
        """1.0 if some folded reference occurs as whole words inside the folded candidate."""
        return float(self.holds())

    def holds(self, part: str | None = None) -> bool:
        """Some non-empty folded reference occurs as whole words inside the folded candidate, or a `part` of it."""
        padded = f" {' '.join(self.words) if part is None else fold(part)} "
        return any(f" {r} " in padded for r in self.refs if r)


def contains(candidate: str, references: Sequence[str]) -> float:
    """1.0 if some folded reference occurs as whole words inside the folded candidate (`Reading.contains`)."""
    return Reading("", candidate, references).contains


# "no" as a determiner ("No doubt about it: ...", "No two are alike", "with no tombs"): a word follows it that an answer's
# "no" takes only after a comma (not a pronoun, "way", "sir", "not", an adverb, a conjunction, "the", "is")
_DETERMINER_NO = (r"\bno(?=[ \t]+(?!(?:it|its|it's|they|they're|he|he's|she|she's|that|that's|this|these|those|there|there's|i|"
                  r"i'm|we|you|way|sir|not|never|definitely|absolutely|actually|indeed|certainly|and|but|so|or|because|as|the|"
                  r"a|an|is|was|yes|no|thanks|sorry)\b)\w)")
_POLARITY_ASIDE = re.compile(r"(?i)(?<=['\"])\s*(?:yes|no)\b|\b(?:yes|no)(?=['\"]|\s+(?:for|in|to|when|if|about|on)\b)|"
                             + _DETERMINER_NO)


def polarity_aside(r: Reading) -> float:
    """1.0 where a "Yes" or "No" reference occurs only quoted or said of something else, a polarity reported or
    qualified, or a "no" that is a determiner, not stated: "The textbook line is 'no, it's the men', but ...", "The
    answer is yes for Bulgaria, but", "No doubt about it: ..."."""
    return float(r.yes_no and bool(r.contains) and not r.holds(_POLARITY_ASIDE.sub(" ", r.text)))


def token_recall(r: Reading) -> float:
    """The largest share of a reference's folded tokens (with multiplicity) that the candidate holds."""
    return max([0.0, *_shares(r, Counter.__getitem__)])


def near_recall(r: Reading) -> float:
    """`token_recall` where a reference word also counts as held when the candidate holds a `near` spelling of
    it: an alias spelled differently from the gold ("Collarbones" for "Collar-bone", "Keven" for "Kevin")
    is otherwise only the verifier's to vouch for."""
    return max([0.0, *_shares(r, lambda have, word: sum(n for w, n in have.items() if near(w, word)))])


def _shares(r: Reading, held: Callable[[Counter[str], str], int]) -> list[float]:
    """Per reference, the share of its folded tokens (with multiplicity) that the candidate holds, a token held
    as often as `held(the candidate's token counts, token)` says, at most as often as the reference has it."""
    have, wants = r.counts
    return [sum(min(n, held(have, w)) for w, n in want.items()) / sum(want.values()) if want else 0.0 for want in wants]


NEAR_LETTERS = 5  # shorter words must match exactly: "Iran" and "Iraq" are one letter apart


def near(a: str, b: str) -> bool:
    """Two folded words that name the same thing in other spelling: equal, or letters only, both at least
    NEAR_LETTERS long, with the same first letter, one edit apart ("superintendant", "kevin" / "keven") or
    one the other's plural ("collarbones"). "austria" / "australia" (two edits) and numbers ("1968" /
    "1969") are not near."""
    if a == b:
        return True
    if a[:1] != b[:1] or not (a.isalpha() and b.isalpha()) or min(len(a), len(b)) < NEAR_LETTERS:
        return False
    short, long_ = sorted((a, b), key=len)
    i = next((k for k, (x, y) in enumerate(zip(short, long_)) if x != y), len(short))  # where they first differ
    return (long_ in (short + "s", short + "es") or len(long_) == len(short) and short[i + 1:] == long_[i + 1:]
            or len(long_) == len(short) + 1 and short[i:] == long_[i + 1:])


def best_references(candidate: str, references: Sequence[str], k: int) -> list[str]:
    """The `k` references with the largest token recall in the candidate, in their file order (ties: file
    order). For cross-encoders whose fixed input cannot hold a long list of aliases."""
    if len(references) <= k:
        return list(references)
    share = _shares(Reading("", candidate, references), Counter.__getitem__)
    ranked = sorted(range(len(references)), key=lambda i: -share[i])
    return [references[i] for i in sorted(ranked[:k])]


def as_question(question: str) -> str:
    """A search-query-style question (no upper-case letter, no closing punctuation, as in NQ, WikiQA and
    MS MARCO) with a question mark added: "who wrote hamlet" -> "who wrote hamlet?". The `ava` verifier was
    trained mostly on questions that end in one and reads queries without it measurably worse; the judge
    hands its tagger the same form (its dev rule kept it). Any other question is returned stripped, as it is."""
    q = question.strip()
    if q and (q[-1].isalnum() or q[-1] == ")") and q == q.lower():
        return q + "?"
    return q


_MARKS = re.compile(r"\*\*|__|`")
_LINE_MARK = re.compile(r"^[ \t]*(#{1,6}|[-*+])[ \t]+", re.MULTILINE)
_NUMBERED = re.compile(r"^[ \t]*\d{1,2}\.[ \t]+", re.MULTILINE)  # a list's mark where two lines have one, else an answer
_LABEL = re.compile(r"^\s*((final|short) )?answer\s*:\s*", re.IGNORECASE)


def undressed(candidate: str) -> str:
    """The candidate without markdown dress: emphasis and code marks ("**", "__", "`"), the heading, bullet
    and list marks that open a line, and one leading "Answer:" label ("Final answer:", "Short answer:").
    LLM answers often come so; the judge's verifier and tagger were trained on plain text and read
    "**Answer:** Paris" worse than "Paris" (lab/results/judge.md). A number that opens a line is a numbered
    list's mark only where another line opens with one too: "39. Catholic Bibles count 46, ..." answers 39."""
    text = _LINE_MARK.sub("", _MARKS.sub("", candidate))
    return _LABEL.sub("", _NUMBERED.sub("", text) if len(_NUMBERED.findall(text)) > 1 else text, count=1)


def settled(candidate: str, references: Sequence[str], reopens_at: int | None = None,
            revised_at: int | None = None) -> str:
    """What the judge's models and overlap features read of an `undressed` candidate: the item a verdict
    list marks right (`committed`) or a labelled list picks (`picked`); else, where the answer corrects
    itself or chooses among alternatives, what it settles on (`self_correction`), unless a reference is named
    before it other than in the clause taken back ("It's A. Some say B, but that's wrong. Hope this
    helps."): then the whole candidate. `reopens_at`: where the answer reopens what it said (the judge's
    learned reading, `metrics.reopens`); where a reference is named on one side of it only, the answer
    moved to or away from it, and settles on what follows. `revised_at`: where the asserted readers find the answer
    settles (`metrics.asserted.revised_at`); read after a verdict list, a labelled list and a self-correction,
    before `reopens_at`."""
    item, r = committed(candidate) or picked(candidate), Reading("", candidate, references)
    # a "no" that answers a yes/no question is the answer, not a take-back ("..., but no: it is native to Mexico")
    if item is None and not r.yes_no and (parts := self_correction(candidate)) is not None:
        head, taken, rest = parts  # a reference before the clause taken back, or across its edge, stands
        if not r.holds(head) and (r.holds(taken) or not r.holds(head + taken)):
            item = rest
    if item is None and revised_at is not None:
        item = candidate[revised_at:]
    if item is None and reopens_at is not None:
        if r.holds(candidate[:reopens_at]) != r.holds(candidate[reopens_at:]):
            item = candidate[reopens_at:]
    return item or candidate


# the words and marks that call an answer wrong, read by verdict lists (`committed`) and by `disowned`
_WRONG_WORDS = r"incorrect|wrong|false|not correct"
# marks that say right or wrong: check marks, crosses, thumbs
RIGHT_MARKS, WRONG_MARKS = "\u2713\u2714\u2705\u2611\U0001F44D", "\u2717\u2718\u2716\u274c\U0001F44E"
_VERDICT_WORDS = re.compile(rf"^(?:(?P<right>correct|right|true|yes)|(?P<wrong>{_WRONG_WORDS}|no))(?: answer)?$",
                            re.IGNORECASE)
_JUDGED = [re.compile(p) for p in (
    r"^(?P<verdict>[^\W\d]+(?: [^\W\d]+)?)\s*:\s*(?P<item>.+)$",             # "Correct: A", "False answer: B"
    r"^(?P<item>.+?)\s*[(\[]\s*(?P<verdict>[^)\]]+?)\s*[)\]]$",                   # "A (correct)"
    r"^(?P<item>.+?)(?:\s*:|\s+-)\s*(?P<verdict>[^:]+)$",                        # "A: wrong", "A - incorrect", "| A | No |"
    rf"^(?P<verdict>[{RIGHT_MARKS}{WRONG_MARKS}])\s*(?P<item>.+)$",             # "\u2705 A"
    rf"^(?P<item>.+?)\s*(?P<verdict>[{RIGHT_MARKS}{WRONG_MARKS}])$")]           # "A \u2717"
_TABLE_RULE = re.compile(r"^\|?[\s:|-]*-{2,}[\s:|-]*$")
ANSWER_MAX_WORDS = 12  # a verdict list's item or a retracted clause longer than this is prose, not an answer


def _judged(segment: str) -> tuple[str, bool] | None:
    """(item, marked right?) for a segment that is an item with a verdict before or after it, else None."""
    seg = segment.strip().rstrip(".!")
    for pattern in _JUDGED:
        m = pattern.match(seg)
        if not m:
            continue
        verdict, item = m["verdict"].strip(), m["item"].strip()
        if verdict in RIGHT_MARKS + WRONG_MARKS:
            right = verdict in RIGHT_MARKS
        elif (v := _VERDICT_WORDS.match(verdict)):
            right = v["right"] is not None
        else:
            continue
        if item and len(item.split()) <= ANSWER_MAX_WORDS and not _VERDICT_WORDS.match(item):
            return item, right
    return None


def committed(candidate: str) -> str | None:
    """The item a verdict-labelled list marks right, where every item has a verdict and exactly one is right:
    "A (correct)\nB (incorrect)", "- B: wrong\n- A: right", "\u2705 A\n\u274c B", a two-column markdown
    table of items and verdicts, "B (wrong), A (right)" on one line. Else None. Such a list mentions a wrong
    answer beside the right one, and the judge's verifier reads mention; given the committed item alone it
    judges what the answer asserts. A heading line ending in ":" and a table's header row are skipped."""
    lines = [line.strip() for line in candidate.translate(QUOTES).replace("\ufe0f", "").splitlines() if line.strip()]
    segments = []
    for i, line in enumerate(lines):
        if line.startswith("|"):
            if _TABLE_RULE.match(line) or i + 1 < len(lines) and _TABLE_RULE.match(lines[i + 1]):
                continue  # a table's rule, or the header row above it
            cells = [c.strip() for c in line.strip("|").split("|")]
            if len(cells) != 2:
                return None
            segments.append(f"{cells[0]}: {cells[1]}")
        elif not line.endswith(":"):  # "Candidate answers:" heads the list
            segments.append(line)
    if len(segments) == 1:  # one line: "B (wrong), A (right)", "A \u2713 / B \u2717", "True answer: A. False answer: B."
        segments = [s for s in re.split(r"\s*[;,]\s*|\s+/\s+", segments[0]) if s.strip(" .")]
        if len(segments) == 1:  # sentences ("P. Terentius" keeps its initial: a split needs two segments)
            segments = [s for s in re.split(r"(?<=[.!])\s+", segments[0]) if s.strip(" .")]
    judged = [j for j in map(_judged, segments) if j is not None]
    if len(segments) < 2 or len(judged) < len(segments):
        return None
    right = [item for item, ok in judged if ok]
    return right[0] if len(right) == 1 else None


# an item offered under a label: "Option 2: A", "(b) A", "b) A" (a letter a-d or a digit)
_LABEL_WORDS = {w: NUMBER_WORDS[w] for w in ("one", "two", "three", "four")}
_LABEL_NOUN = r"(?:option|choice|candidate|answer)"
_LABEL_ID = rf"(?:[1-9a-d]|{'|'.join(_LABEL_WORDS)})"
_LABELLED = re.compile(rf"(?:\b{_LABEL_NOUN}\s+(?P<word>{_LABEL_ID})\s*[:.)-]|(?:^|(?<=[\s,;:]))\(?(?P<mark>[1-9a-d])\))"
                       rf"\s*(?P<item>[^.;,\n()?!/]+?)(?=\s*(?:[.;,\n()?!/]|$)|\s+{_LABEL_NOUN}\s)", re.IGNORECASE)
# the pick: "I'd go with option 2", "My pick is (a)", "Option 2 is correct"
_LABEL_REF = rf"(?:{_LABEL_NOUN}\s+)?\(?(?P<label>{_LABEL_ID})\)?(?![\w(])"
_CHOOSE = (r"(?:i(?:'d| would|'ll| will)?\s+(?:go with|pick|choose|select|opt for|say)|my (?:final )?(?:pick|choice|answer|vote) is|"
           r"(?:final )?answer\s*:)")
_PICKS = (re.compile(rf"\b{_CHOOSE}\s+{_LABEL_REF}", re.IGNORECASE),                          # "I'd go with option 2"
          re.compile(rf"(?:^|(?<=[\s.;,:])){_LABEL_NOUN}\s+(?P<label>{_LABEL_ID})\s+is\s+(?:the\s+)?(?:correct|right|answer)\b",
                     re.IGNORECASE))                                                                # "Option 2 is correct"


def picked(candidate: str) -> str | None:
    """The item an answer picks by label from a list it offers: "Option 1: B. Option 2: A. I'd go with option 2." ->
    "A"; "(a) A, (b) B. My pick is (a)." -> "A". None where no pick names an item offered. Like a verdict list
    (`committed`), such an answer names a wrong answer beside the one it gives."""
    text = candidate.translate(QUOTES)
    for pattern in _PICKS:
        if found := list(pattern.finditer(text)):
            offered = {_label_key(i["word"] or i["mark"]): i["item"].strip() for i in _LABELLED.finditer(text[:found[-1].start()])}
            return offered.get(_label_key(found[-1]["label"]))
    return None


def _label_key(label: str) -> str:
    """"Two", "2" -> "2"; "B", "b" -> "b"."""
    return _LABEL_WORDS.get(label.lower(), label.lower())


def self_correction(candidate: str) -> tuple[str, str, str] | None:
    """(what comes before, the clause that takes back a short one before it or chooses, what it settles on) of a
    self-correcting answer: "Six. Wait, no: eight." settles on "eight."; "B? Actually, no. A." on "A."; "I said B. No,
    that's wrong. It is A." on "It is A."; "B, or rather A." on "A."; "B. Correction: A." on "A."; "Possibly B, but more
    likely A." on "A.". None where nothing is taken back or nothing follows. What is taken back is an answer, so a
    clause of more than ANSWER_MAX_WORDS words ("According to the legend, ... However, this is not true.") is not."""
    text = candidate.translate(QUOTES)
    low = text.lower()
    spans = _clause_spans(low)
    clauses = [low[a:b] for a, b in spans]
    found = None
    last = None  # what a take-back takes back: the last clause so far that is neither filler nor a take-back
    for k, clause in enumerate(clauses):
        chooses = last is not None and bool(_CHOICE_LEAD.match(clause) and _OFFERS.search(clauses[last]))
        if not (chooses or _takes_back(clause)):
            last = last if _FILLER.match(clause) else k
        elif last is not None and len(clauses[last].split()) <= ANSWER_MAX_WORDS and not _stresses(clauses, k):
            lead = _RETRACT_LEAD.match(clause) or _CHOICE_LEAD.match(clause)  # "A, or rather B": B is the answer
            found = spans[last][0], spans[k][0] + lead.end() if lead else spans[k][1]
    if found is None:
        return None
    start, cut = found
    rest = _LEADING_FILLER.sub("", text[cut:].lstrip(" .,;:!?-)]"))  # "B... no, sorry, A." settles on "A."
    return (text[:start], text[start:cut], rest) if re.search(r"\w", rest) else None


_WANTS_NUMBER = re.compile(r"^\s*(how (many|much|old|long|far|tall|high|big|often|fast|deep|large)|"
                           r"what (number|percentage|year|age|date|decade|century)|in what year|which year|when)\b")
_NUMBER = re.compile(r"\d|\b(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|"
                     r"fifty|hundred|thousand|million|billion|first|second|third|century|decade)\b")


def wants_number(question: str) -> float:
    """1.0 for questions whose answer is a number or a date (how many, what year, when, ...)."""
    return float(bool(_WANTS_NUMBER.search(question.lower())))


def has_number(candidate: str) -> float:
    """1.0 if the candidate states a number or a date (digits or number words)."""
    return float(bool(_NUMBER.search(candidate.lower())))


_RANGE = re.compile(r"(\d[\d.,]*)\s*(?:-|to|and)\s*(\d[\d.,]*)")


def _ranges(text: str) -> list[tuple[float, float]]:
    """The ranges written in `text` ("13 to 17", "12-18", "between 36.5 and 37.5"), as (low, high)."""
    ends = [[float(next(iter(numbers(x)))) for x in pair] for pair in _RANGE.findall(text.translate(QUOTES))]
    return [(lo, hi) for lo, hi in ends if lo < hi]


def _rounds(a: str, b: str) -> bool:
    """`a` is `b` rounded as `a` is written: to its decimals ("3.14" for 3.14159), or to the trailing zeros that
    round it (`quantities.rounding_zeros`: "300000" for 299792; "1970" is not 1969, nor "100" 90)."""
    places = len(a.split(".")[1]) if "." in a else -rounding_zeros(a)
    return ("." in a or places < 0) and round(float(b), places) == float(a)


def _close(said: str, gold: str) -> bool:
    """The same number, or one of the two a rounding of the other ("24,900 miles" for 24,901), or a whole number
    said for a decimal gold that it rounds, 1% off at most ("760 torr" for 759.9625; not "12" for 11.99)."""
    return (said == gold or _rounds(said, gold) or _rounds(gold, said)
            or "." in gold and "." not in said and abs(float(said) - float(gold)) <= min(0.5, 0.01 * float(gold)))


ANSWER_WORDS = 10  # a longer reference is a sentence that holds the answer, its other numbers not the gold's


def number_miss(r: Reading) -> float:
    """How far the candidate's numbers miss the gold ones: 0.0 when the candidate holds a reference, or states
    no number (digits) that the question, the references' numbers (as written or rounded, `_close`) and their
    ranges do not account for, or a reference's number in another form (`quantities.restated`: "238,900 miles"
    for "384,400 km"); else the share of the best reference's numbers it lacks (a reference's range
    that holds a stated number, or a stated range that holds a reference's number, lacks none; references
    without digits or longer than ANSWER_WORDS are not read, 0.0 if none is left); a year for the date asked
    (`_lacks_day`) is read for the day it lacks. "Apollo 11 landed in 1968" against ["1969", "July 20, 1969"] gives 1.0,
    "12-15 degrees" against ["12-18 degrees"] 0.5, "about 300,000 km/s" against ["299,792 km/s"] and "15 years"
    against ["13 to 17 years"] 0.0."""
    stated, asked, refs = r.numbers
    said = stated - asked
    kept = [(n, ref) for n, ref in zip(refs, r.references) if n and len(ref.split()) <= ANSWER_WORDS]
    read = [ref for _, ref in kept]
    if not said or not kept or r.contains or restated(r.question, r.text, " ".join(r.words), read):
        return 0.0
    if clashes(r.text, read):
        return 1.0
    gold = [(n, _ranges(ref)) for n, ref in kept]
    spans = _ranges(r.text)
    ends = {x for span in spans for x in span}  # a stated range is matched end by end, not held in a gold range

    def known(c: str) -> bool:
        return any(_close(c, g) or float(c) not in ends and any(lo <= float(c) <= hi for lo, hi in rr)
                   for n, rr in gold for g in n)

    if all(known(c) for c in said) and not _lacks_day(r):
        return 0.0
    misses = []
    for n, rr in gold:
        if any(float(c) not in ends and lo <= float(c) <= hi for lo, hi in rr for c in said):
            return 0.0
        misses.append(sum(not any(_close(c, g) for c in said) and not any(lo <= float(g) <= hi for lo, hi in spans)
                          for g in n) / len(n))
    return min(misses)


# -- dates: a reference that is a date, and the day a question asks for ---------------------------

MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December")
MONTH_FORM = rf"(?P<m>(?:{'|'.join(MONTHS)}|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept|Sep|Oct|Nov|Dec)\b\.?)"
DAY_FORM = r"(?P<d>[0-3]?\d)(?:st|nd|rd|th)?"
_YEAR = r"(?P<y>[12]\d{3})"
_NUMERIC_DATE_FORM = rf"(?P<n1>[0-3]?\d)([/.])(?P<n2>[0-3]?\d)\2{_YEAR}"  # "07/12/1941", "09.11.1989"
# the forms of a reference that is a date, longest first (`as_date`)
_DATE_FORMS = (rf"{MONTH_FORM}\s+{DAY_FORM},?\s+{_YEAR}", rf"{DAY_FORM}\s+(?:of\s+)?{MONTH_FORM},?\s+{_YEAR}",
               rf"{_YEAR}-(?P<mm>[01]?\d)-(?P<d>[0-3]?\d)", _NUMERIC_DATE_FORM,
               rf"{MONTH_FORM},?\s+(?:of\s+)?{_YEAR}",
               rf"{MONTH_FORM}\s+{DAY_FORM}(?![\d,])", rf"{DAY_FORM}\s+(?:of\s+)?{MONTH_FORM}", _YEAR, MONTH_FORM)
_DATES_ANY_CASE = tuple(re.compile(f, re.IGNORECASE) for f in _DATE_FORMS)


def _parts(m: re.Match[str]) -> dict[str, int]:
    """The year, month and day a date match states (month 1-12)."""
    g = {k: v for k, v in m.groupdict().items() if v}
    out: dict[str, int] = {k: int(g[k]) for k in ("y", "d") if k in g}
    if "m" in g:
        said = g["m"].rstrip(".").lower()
        out["m"] = next(i for i, name in enumerate(MONTHS, 1) if name.lower().startswith(said))
    if "mm" in g:  # "1941-12-07"
        out["m"] = int(g["mm"])
    if "n1" in g:  # "07/12/1941", "12/7/1941": day and month where one of them is over 12, else the year alone
        n1, n2 = int(g["n1"]), int(g["n2"])
        out.update({"d": n1, "m": n2} if n1 > 12 else {"m": n1, "d": n2} if n2 > 12 else {})
    return out


def as_date(reference: str) -> dict[str, int] | None:
    """The parts of a reference that is a date and nothing else ("1941", "December", "December 1941",
    "in 1941"), in any case; None for any other reference."""
    ref = re.sub(r"^(?:in|on)\s+", "", reference.translate(QUOTES).strip().rstrip("."), flags=re.IGNORECASE)
    return next((_parts(m) for pattern in _DATES_ANY_CASE if (m := pattern.fullmatch(ref))), None)


_DATE_ASKED = re.compile(r"\b(?:what|which)\s+(?:exact\s+|precise\s+|full\s+)?date\b", re.IGNORECASE)
_NUMERIC_DATE = re.compile(rf"(?<![\w-]){_NUMERIC_DATE_FORM}(?![\w-])")  # a day, whichever order it is in


def _lacks_day(r: Reading) -> bool:
    """The question asks for a date, a reference states its day and the candidate does not name that day's number:
    "1914" or "August 1914" for "On what date did the Panama Canal open?" and "15 August 1914" ("July 14th" and
    "le 14 juillet" name it; a "When ...?" question takes a year)."""
    if not _DATE_ASKED.search(r.question) or _NUMERIC_DATE.search(r.text):  # the cheap tests first
        return False
    days = {str(d["d"]) for d in map(as_date, r.references) if d and "d" in d}
    return bool(days) and not days & r.numbers[0]


_BOUND = re.compile(r"\b(?:(?P<low>more than|over|above|at least|upwards of|in excess of)|(?P<high>under|less than|"
                    r"fewer than|below|at most))\s+(?:about\s+)?(?P<n>\d[\d,.]*)", re.IGNORECASE)
BRACKET = 0.05  # a range narrower than this share of the gold states it ("between 36.5 and 37.5" for 37)


def imprecise(r: Reading) -> float:
    """1.0 where the candidate is less precise than the gold and states no gold number: only the year or month of
    the date the question asks for (`_lacks_day`: "1914" for "On what date ...?"), or, for a gold that is one
    number, a range or a bound that only brackets it ("Somewhere between 80 and 110 metres" for 100.8 m, "Over 250
    metres" for 269 m), or the decade of a gold year without the year ("In the early 1960s" for 1960); 0.0 otherwise,
    and where a reference occurs whole."""
    if r.contains:
        return 0.0
    if _lacks_day(r):
        return 1.0
    stated, asked, refs = r.numbers
    golds = [next(iter(n)) for n, ref in zip(refs, r.references)
             if len(n) == 1 and len(ref.split()) <= ANSWER_WORDS and not _ranges(ref)]
    decade = [(g, rf"\b{g[:3]}0s\b") for g in golds if re.fullmatch(r"1\d{3}|20\d\d", g)]  # a gold year's decade
    if any(re.search(d, r.text) and not re.search(rf"\b{g}\b(?!s)", r.text) and not any(re.search(d, ref) for ref in r.references)
           for g, d in decade):
        return 1.0
    if not golds or any(_close(c, g) for c in stated - asked for g in golds):
        return 0.0
    bounds = [(float(next(iter(numbers(m["n"])))), bool(m["low"])) for m in _BOUND.finditer(r.text)]
    spans = _ranges(r.text) + [(v, math.inf) if low else (-math.inf, v) for v, low in bounds]
    return float(any(lo < float(g) < hi and hi - lo > BRACKET * abs(float(g)) for lo, hi in spans for g in golds))


# -- what an answer asserts, not only what it mentions ------------------------------------------------

# brackets, a table's cell walls and a spaced dash close a clause ("A (some say B)", "| A | wrong |",
# "A - incorrect"), except inside a reference that holds them ("Bok (crater)")
_INNER = re.compile(r"[()\[\]|]|\s+-\s+")  # read after QUOTES, which makes dashes "-"
# a comma closes a clause, except inside a number ("7,000")
_CLAUSE = re.compile(rf"[.;:!?]+(?=\s|$)|(?<!\d),|,(?!\d)|{_INNER.pattern}|\n|\s+\b(?:but|however|whereas|yet)\b")
_NEGATORS = frozenset({"not", "never", "nor", "neither", "isnt", "wasnt", "arent", "werent", "dont", "doesnt",
                       "didnt", "cannot", "cant", "unlike", "except", "excluding"})
COPULAS = frozenset({"is", "was", "are", "were"})
_ONLY = re.compile(rf"^(?:(?:{'|'.join(sorted(COPULAS))}) not|isnt|wasnt|arent|werent) (?:the )?(?:only|just|merely|alone)\b")
_WRONG_AFTER = frozenset({"not", "never", "incorrect", "wrong", "false", "mistaken"})
_ATTRIBUTED = re.compile(
    r"\b(misconception|mistaken(ly)?|wrongly|erroneous(ly)?|incorrectly|myth|confuse[ds]?|"
    r"(common|frequent|wrong|incorrect)( wrong)? (mistake|error|guess|answer|belief)|"
    r"(you|one)('d| would| might| may| could) (\w+ )?(think|expect|assume|guess|suppose|imagine|say)|"  # "you'd think"
    r"you('ll| will| may| might) (often|sometimes|also|occasionally|still) (see|read|hear|find)|"  # "you'll sometimes see"
    r"(many|some|most|often|commonly|popularly|widely|sometimes|usually|typically|frequently|people|others|sources)"
    r"\b[\w ]{0,30}?\b(think|thinks|thought|believe[sd]?|assume[sd]?|say|says|said|claim(s|ed)?|suggest(s|ed)?|"
    r"guess(es|ed)?|mention(s|ed)?|give|gives|given|cited|reported|credited|attributed|named|listed|described as))\b")
# a label that marks what follows as wrong ("Incorrect: A", "\u274c A": lists LLMs write), read as "not A"
_WRONG_LABEL = re.compile(rf"(?:\b(?:{_WRONG_WORDS})(?: answers?)?\s*:|[{WRONG_MARKS}])[ \t]*")  # the line break stays
# a clause that rejects what the one before it named ("A? No, ...", "..., but ruled it out", "though that is wrong",
# "A. Correction: B", "A - just kidding, B")
_REJECTS = re.compile(
    r"^\s*((actually|wait|well|hmm)\W+)?(no( wait)?|scratch that|strike that|not quite|never ?mind|(just )?kidding|"
    r"(correction|update|edit|(corrected|revised|updated) answer):|on second thought|i take (that|it) back|"
    r"let me correct (myself|that)|my (mistake|bad|error)|i( was| am|'m) (wrong|mistaken)|"
    r"(though |and )?(that|this|it|which)('s| is| was| seems to be| would be)? (not (correct|right|true)|wrong|"
    r"incorrect|mistaken|outdated|a (common |popular |widespread |frequent )?(mix-?up|mistake|myth|misconception))|"
    r"ruled it out)\s*\W*$")
# a clause that takes back the one before it and gives the answer itself ("A, or rather B", "A... I mean B")
_RETRACT_LEAD = re.compile(r"^\s*(or rather|i mean(t)?( to say)?)\b(?=\W*\w)")
# a clause that chooses among what the clause before it offers ("Possibly B, but more likely A", "I was torn
# between B and A, and I'm going with A"): the answer settles on what it chooses
_CHOICE_LEAD = re.compile(r"^\s*(?:and |but |though |so )?(?:(?:i think |i'd say |i believe )?(?:it'?s |it is )?(?:more |most )?"
                          r"(?:likely|probably)|i(?:'m| am) going with|i(?:'d| would|'ll| will)? (?:go with|pick|choose|opt for)|"
                          r"my (?:final )?(?:answer|pick|choice|bet) is)\b(?=\W*\w)")
_OFFERS = re.compile(r"\b(?:possibl[ey]|maybe|perhaps|might|may|could|plausible|between|or)\b")
# a clause that is only a verdict on the one before it ("A (incorrect)", "| A | No |", "A - wrong")
_VERDICT = re.compile(rf"^\s*({_WRONG_WORDS}|nope|not (right|true|it))\s*\W*$")
# a clause that agrees with the attribution before it ("Most people would say A, and they'd be right")
_AGREES = re.compile(r"^\s*(and )?(they|that|which|this|it)('re|'d be| are| were| would be| is|'s| was) "
                     r"(right|correct|the (right |correct )?answer)\s*\W*$")
# a clause that only leads into the next one ("A? Actually, no.", "A... wait, no")
_FILLER_WORDS = r"actually|wait|well|hmm|oh|um|err?|erm|uh|oops|sorry|hold on|hang on"
_FILLER = re.compile(rf"^\s*({_FILLER_WORDS})\s*\W*$")
_LEADING_FILLER = re.compile(rf"^(?:(?:{_FILLER_WORDS})\s*[,.;:!-]+\s*)+", re.IGNORECASE)


def _disowned_at(tokens: list[str], i: int, n: int) -> bool:
    """The mention tokens[i:i+n] is negated ("not A", "isn't A", "A is not ...")."""
    before = tokens[max(0, i - 2):i]
    if before and before[-1] in _NEGATORS:
        return True
    after = tokens[i + n:i + n + 2]
    if _ONLY.match(" ".join(tokens[i + n:i + n + 4])):  # "A is not the only name given": not a denial
        return False
    return bool(after) and (after[0] in ("isnt", "wasnt", "arent", "werent") or after == ["not"] or  # "A \u2717"
                            (len(after) == 2 and after[0] in COPULAS and after[1] in _WRONG_AFTER))


def _clause_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each clause of `text` that holds a word (`_CLAUSE` closes them)."""
    spans, start = [], 0
    for m in _CLAUSE.finditer(text):
        spans.append((start, m.start() + (text[m.start()] in ":?")))  # a label keeps its colon, a question its mark
        start = m.end()
    return [(a, b) for a, b in spans + [(start, len(text))] if re.search(r"\w", text[a:b])]


def _takes_back(clause: str) -> bool:
    """The clause takes back the one before it: a rejection ("no", "that's wrong", "Correction:", "just
    kidding"), a wrong verdict ("incorrect"), or "or rather ..." / "I meant ..."."""
    return bool(_REJECTS.match(clause) or _VERDICT.match(clause) or _RETRACT_LEAD.match(clause))


def _past_filler(clauses: list[str], k: int, step: int) -> int:
    """The first clause from clauses[k + step] on, in that direction, that is not filler ("actually", "wait")."""
    k += step
    while 0 <= k < len(clauses) and _FILLER.match(clauses[k]):
        k += step
    return k


# a clause that negates something named ("not B", "it's not B", "it isn't B")
_NEGATES = re.compile(r"^\s*(?:(?:it|that|this|the answer)(?:'s|\s+is|\s+was)?\s+)?(?:not|isn't|wasn't|never)\s+\w")


def _stresses(clauses: list[str], k: int) -> bool:
    """The take-back at clauses[k] ("no") stresses the statement before, not after a question, rather than taking
    it back: what follows negates something named ("Canberra. No, not Sydney."; not "Canberra? No, not ...")."""
    if _RETRACT_LEAD.match(clauses[k]):  # "A, or rather not B" holds the new answer itself
        return False
    j, n = _past_filler(clauses, k, -1), _past_filler(clauses, k, 1)
    if j >= 0 and clauses[j].rstrip().endswith("?"):
        return False
    return n < len(clauses) and bool(_NEGATES.match(clauses[n])) and not _takes_back(clauses[n])


def disowned(r: Reading) -> float:
    """1.0 if the candidate names a reference but never asserts it: every mention is negated ("It is B, not A",
    "A is not the answer", "Incorrect: A"), sits in a clause that attributes it to others or calls it a mistake
    ("Many people think it is A, but ...", "A is a frequent wrong guess"; not where the next clause agrees: "...,
    and they'd be right"), or is taken back by the clause after it ("A? No, ...", "A? Actually, no.", "I
    considered A, but ruled it out", "A. Correction: B", "A. Sorry, I meant B") or by a verdict written after it
    ("A (incorrect)", "| A | No |", "A - wrong", "A \u2717"). 0.0 where some mention is asserted, or where none
    is found clause by clause (a line is a clause). Rules over folded words, written for the probe families
    (docs/probes.md) and LLM-style phrasings; English only."""
    text = _WRONG_LABEL.sub(" not ", r.text.lower())
    for low in (ref.translate(QUOTES).lower() for ref in r.references):
        if _INNER.search(low):
            text = text.replace(low, _INNER.sub(" ", low))
    clauses = [text[a:b] for a, b in _clause_spans(text)]
    refs = [words for words in r.ref_words if words]
    found = False
    for k, clause in enumerate(clauses):
        tokens = fold(clause).split()
        agreed = k + 1 < len(clauses) and bool(_AGREES.match(clauses[k + 1]))
        after = _past_filler(clauses, k, 1)  # ... or taken back by the clause after it, past any filler
        attributed = (bool(_ATTRIBUTED.search(clause)) and not agreed
                      or after < len(clauses) and _takes_back(clauses[after]) and not _stresses(clauses, after))
        for ref in refs:
            for i in mentions(tokens, ref):
                found = True
                if not attributed and not _disowned_at(tokens, i, len(ref)):
                    return 0.0
    return float(found)


# a bare list of answers: "A or B", "A / B", "A (or B)", after an optional lead ("It's", "The answer is")
_ANSWER_LEAD = r"it is|it's|it was|the answer is|answer is"
_LIST_LEAD = re.compile(rf"^\s*(?:{_ANSWER_LEAD})\s+", re.IGNORECASE)
# ... or after estimate and hedge words ("Around 1912 or 1913", "Probably A or B"), with a note after it that names
# none of its items ("A or B, I always mix them up", "A or B; not sure")
_HEDGED_LEAD = re.compile(rf"^\s*(?:(?:{_ANSWER_LEAD}|probably|maybe|perhaps|possibly|likely|around|about|roughly|"
                          r"approximately|circa|sometime in|some time in|either)\s+)+", re.IGNORECASE)
# "A, or maybe B": a hedge word before the second item too, read as "A or B"
_HEDGED_OR = re.compile(r",?\s+or\s+(?:maybe|possibly|perhaps|probably)\s+", re.IGNORECASE)
_LIST_NOTE = re.compile(r"\s*(?:(?<!\d),|,(?!\d)|;|\s-\s)\s*")
LIST_NOTE_WORDS = 8  # a longer note is a sentence of its own
# "or" between answers; not before a bound ("40°F or below", "a week or so")
_LIST_SEP = re.compile(r"(?i)\s*\(\s*or\s+|\s+or\s+(?!(?:below|above|under|over|earlier|later|so)\b(?!-))"
                       r"|(?<=[^\W\d])\s*/\s*(?=[^\W\d])|\s+/\s+")
LIST_ITEM_WORDS = 5  # a longer item is a clause, not an answer offered beside another
NAME_PART_WORDS = 4  # a gold name has at most this many words
# lower-case words inside a person's name ("Leonardo da Vinci"); not `names`' connectors, which also join the
# words of an organisation's name ("Bureau of Alcohol and Tobacco") and would read a list of places as a name
_PARTICLES = frozenset({"da", "de", "di", "del", "della", "van", "von", "der", "le", "la", "du", "of", "the", "bin", "al"})


def _is_name(reference: str) -> bool:
    """A reference of two to NAME_PART_WORDS words, each capitalised but for particles ("Leonardo da Vinci")."""
    words = reference.split()
    return 2 <= len(words) <= NAME_PART_WORDS and all(w[:1].isupper() or w in _PARTICLES for w in words)


def listed_items(parts: Iterable[str]) -> list[str]:
    """The non-empty parts, where there are at least two and none is longer than LIST_ITEM_WORDS words; else []."""
    items = [p for p in parts if p]
    return items if len(items) >= 2 and all(len(p.split()) <= LIST_ITEM_WORDS for p in items) else []


def listed(candidate: str, hedged: bool = False) -> list[str]:
    """The items of a candidate that is only a short list of answers ("A or B.", "It's A / B", "A (or B)"),
    else []. `hedged`: the list after estimate or hedge words ("Around 1912 or 1913"), where a short note after
    it that names no item stays out ("A or B, I always mix them up"), and a hedge word may lead each item
    ("Probably A, or maybe B"). A line break or an item longer than LIST_ITEM_WORDS words means prose, not a
    list."""
    text = candidate.translate(QUOTES).strip()
    if "\n" in text:
        return []
    if not hedged:
        return listed_items(p.strip(" .()") for p in _LIST_SEP.split(_LIST_LEAD.sub("", text).rstrip(" .!?)")))
    text = _HEDGED_OR.sub(" or ", _HEDGED_LEAD.sub("", text))
    head, *notes = _LIST_NOTE.split(text.rstrip(" .!?)"), maxsplit=1)
    if notes and _LIST_SEP.search(head) and not _LIST_SEP.search(notes[0]):
        note = f" {fold(notes[0])} "
        if len(note.split()) > LIST_NOTE_WORDS or any(f" {fold(p)} " in note for p in _LIST_SEP.split(head)):
            return []
    return listed_items(p.strip(" .()") for p in _LIST_SEP.split(head))


def bare_list(r: Reading) -> float:
    """1.0 if the candidate is only a short list ("A or B", "A / B", "A (or B)"; `listed`, plain or hedged) where
    one item is a reference (or part of a gold name: "Vivaldi or Corelli." for "Antonio Vivaldi") and another
    names none: a hedge between the gold answer and another.
    A list whose every item names a reference is a list of aliases ("Myanmar (or Burma)" where both are
    gold), not a hedge; an alias the references lack reads as a hedge."""
    said_whole = [ref for ref in r.references if _LIST_SEP.search(ref)]
    if said_whole and contains(r.candidate, said_whole):
        return 0.0  # a reference that is itself "A or B" / "A/B" is named whole
    gold = r.ref_words
    names = [words for ref, words in zip(r.references, gold) if _is_name(ref)]

    def is_gold(item: str) -> bool:
        """The item is a gold answer itself (not a phrase around one: "A hygrometer measures humidity") or, in
        capitals, part of a gold name ("Vivaldi", "Da Vinci" for "Leonardo da Vinci")."""
        said = fold(item).split()
        return bool(said) and (said in gold or item[:1].isupper() and len("".join(said)) >= 4
                               and any(mentions(g, said) for g in names))

    # one item is a gold answer, another names none; read plainly, or after hedge words with a note
    return float(any(any(is_gold(p) for p in items) and not all(r.holds(p) for p in items)
                     for items in (listed(r.candidate), listed(r.candidate, hedged=True))))
