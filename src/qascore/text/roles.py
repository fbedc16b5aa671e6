"""The gold named in a role other than the answer's.

"Saturn is larger than Jupiter." and "Jupiter's moon Ganymede." both name the gold Jupiter, and token overlap
and containment read that as agreement; the answer asserts Saturn and Ganymede. `lesser_role` reads these roles:

- a comparison's standard: the mention follows "than" ("taller than Everest"), unless a "no" / "nothing" /
  "none" before it makes the gold the one nothing beats ("No planet is larger than Jupiter"), or "more than" /
  "less than" bounds a quantity ("more than 3 million" for "3 million");
- a relation's standard: the mention follows a relation between people in an apposition to a name the question
  lacks ("Niels Bohr, a contemporary of Einstein", "Buzz Aldrin, the colleague of Armstrong");
- a possessor: the mention is followed by "'s" and a lower-case word the question lacks, past any number
  ("Obama's vice president" for the 44th president). Not a lesser role: what the question asks about
  ("Fleming's discovery" for "Who discovered penicillin?"), a work ("Shakespeare's play"), a name ("Halley's
  Comet"); "'s" before "the", "a", "been", ... is "is" or "has".

`misattributed` reads another: the clause that restates the question gives its role to another name, the gold
in a clause that says something else. Pure functions of a `Reading` of the record; their tests are tables.
"""

from __future__ import annotations

import re
from qascore.text.answer_match import COPULAS, POSSESSIVE, QUOTES, Reading, fold, mentions

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


_RELATION = "zzrelationof"  # stands for "of" / "to" after a person's relation in an apposition (see `_appositions`)
# "Niels Bohr, a contemporary of Einstein": a name, a comma, a relation between people, then its standard
_RELATIONS = ("contemporary|colleague|rival|friend|student|pupil|teacher|mentor|disciple|follower|protege|assistant|"
              "collaborator|partner|wife|husband|widow|son|daughter|father|mother|brother|sister|cousin|nephew|niece|"
              "uncle|aunt|grandson|granddaughter|descendant|successor|predecessor|contemporaries|colleagues|rivals|"
              "friends|students|pupils|followers|sons|daughters|brothers|sisters")
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
        # the possessed word, past a year or a count ("Madonna's 1990 single")
        following = next((t for t in tokens[i + n + 1:] if not t.isdigit()), "")
        return bool(following) and following not in _NOT_POSSESSED and _stem(following) not in asked
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


# where a clause ends for `misattributed`: a sentence mark (not after an initial, "George W. Bush", or a short
# abbreviation, "Mt. Everest"; a fixed-width look-behind, hence not `names`' abbreviation pattern), a semicolon,
# "but" / "whereas" after a comma, "while" after a comma, or "and" before a new subject and a copula ("Ag is
# gold and Au is silver.")
_SENTENCE_END = re.compile(r"(?<!\b[A-Z])(?<!\b(?:Mt|St|Dr|Mr|Ms|Jr|Sr|vs))(?<!\bMrs)[.!?]+(?=\s|$)|;|,?\s+(?:but|whereas)\s+|"
                           rf",\s+while\s+|\s+and\s+(?=(?:[\w'-]+\s+){{1,3}}(?:{'|'.join(sorted(COPULAS))})\b)")
_FUNCTION = frozenset("""a an the of in on at to for from by with and or as is was are were be been being do does did
has have had what which who whom whose when where why how that this these those it its he she they his her their
him them there name named first one can could would will shall should may might must not no than then so such
also about into over under after before between during while whereas but if i you we me us my your our""".split())
# a clause that does not assert: negated, conceded, or said to be others' or wrong ("Many think Sydney is the
# capital", "Quiz books sometimes print B", "You might expect B")
_NOT_ASSERTED = re.compile(r"\b(?:not|never|neither|nor|isn't|wasn't|aren't|weren't|no longer|although|though|unlike|"
                           r"many|some|most|people|others|often|sometimes|wrongly|mistakenly|confuse[ds]?|expect(?:ed)?|"
                           r"might|may|could|perhaps|maybe|possibly|error|mistake|incorrect|wrong)\b", re.IGNORECASE)
# a clause that states the answer in so many words ("the answer is A", "it is A"): the gold asserted there
_STATES = re.compile(r"\b(?:the (?:correct |right )?answer is|it is|it's|it was)\b", re.IGNORECASE)
_LEADS = re.compile(r"^(?:(?:but|and|yet|so|while|whereas|the|a|an)\s+)+", re.IGNORECASE)
_BARE = 4  # a first clause (or its opening, up to a comma) this short, with no copula, that names the gold is the answer
_OPENING = re.compile(r"[,(:]|\s-\s")  # where a clause's opening words end (read after QUOTES: dashes are "-")
MAX_WORDS = 40  # a longer answer elaborates with other names in clauses of its own; it is left to the verifier
_SAID_WORDS = 4  # what a copula ascribes the role to: a name, not a description


def _content(word: str) -> str:
    """A word's stem for matching against the question ("painted" / "painting"), "" for a function word."""
    return "" if word in _FUNCTION or len(word) < 3 else _stem(word)


def misattributed(r: Reading) -> float:
    """1.0 if the clause that restates the question most ("Sydney is the capital" for "What is the capital of
    Australia?") names no reference and gives the role to something else, while another clause names a
    reference: the answer gives the asked role to another and the gold a different one ("Canberra is the largest
    city; Sydney is the capital.", "Ag is gold and Au is silver." for gold's symbol). The restating clause
    shares a word stem with the question and more than every other clause, asserts (no negation, hedge,
    concession or attribution to others), and is about a name neither the question's nor a reference's: its first
    word, or what follows its copula in at most four words ("The 44th was George W. Bush"). Not read: an answer of
    one clause or of more than MAX_WORDS words, and one whose first clause, with no copula, names a reference in at
    most four words or in its opening words up to a comma, or opens with a reference and "did it" (the answer
    itself, the rest elaboration: "Neil Armstrong. Buzz Aldrin was the second ...", "Nadia Comaneci, on the uneven
    bars in 1976. ..."), and a clause that names a reference and states it as the answer ("..., but the answer is
    A")."""
    clauses = [c for c in _SENTENCE_END.split(r.text) if c and re.search(r"\w", c)]
    if len(clauses) < 2 or len(r.candidate.split()) > MAX_WORDS:
        return 0.0
    question_words = set(r.question_words)
    asked = {_content(w) for w in question_words} - {""}
    refs = [words for words in r.ref_words if words]
    ref_words = {w for words in refs for w in words}
    # a word of a longer name counts ("Obama" for "Barack Obama"); a short reference ("Au") must occur whole
    parts = {w for w in ref_words if len(w) >= _PART and w not in _FUNCTION}
    folded = [fold(c).split() for c in clauses]

    def held(tokens: list[str]) -> bool:
        return any(mentions(tokens, ref) for ref in refs) or bool(parts.intersection(tokens))

    holds = [held(t) for t in folded]
    bare = not COPULAS.intersection(folded[0]) and any(
        len(t) <= _BARE and held(t) for t in (folded[0], fold(_OPENING.split(clauses[0], maxsplit=1)[0]).split()))
    bare = bare or any(folded[0][:len(ref) + 2] == [*ref, "did", "it"] for ref in refs)
    if not any(holds) or bare or any(h and _STATES.search(c) for h, c in zip(holds, clauses)):
        return 0.0
    overlap = [len({_content(w) for w in t} & asked) for t in folded]
    best = max(range(len(clauses)), key=overlap.__getitem__)
    if overlap[best] < 1 or sorted(overlap)[-2] == overlap[best] or holds[best] or _NOT_ASSERTED.search(clauses[best]):
        return 0.0
    words = re.findall(r"[\w'-]+", _LEADS.sub("", clauses[best].strip()))
    cop = next((k for k, w in enumerate(words) if w.lower() in COPULAS), None)
    said = words[:1] + (words[cop + 1:] if cop is not None and len(words) - cop - 1 <= _SAID_WORDS else [])

    def other(word: str) -> bool:
        low = fold(word)
        return ((word[:1].isupper() or any(ch.isdigit() for ch in word)) and bool(low) and low not in _FUNCTION
                and low not in question_words and _content(low) not in asked and low not in ref_words)

    return float(any(other(w) for w in said))
