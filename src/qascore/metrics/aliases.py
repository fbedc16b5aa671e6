"""Other names of a gold answer, read from the judge's synonym table: references in the candidate's own form.

A right answer is often given in a form no reference holds ("Deutschland, Italia and Nippon" for "Germany,
Italy, Japan"; "a dozen" for 12; "WHO"). Where no reference occurs whole in the candidate, `in_candidate_form`
looks each reference (and each item of a reference that is a short list) up in the table
(resources/judge/aliases.json.gz, WordNet 3.0 synonym sets that name things; resources/judge/redirects.tsv.xz,
Wikipedia's redirects as DBpedia gives them; resources/judge/cldr.json.gz, Unicode CLDR's names of countries,
languages and currencies in other languages and their codes; resources/judge/places.json.gz, GeoNames' names of cities in
other languages and scripts: `qascore-lab train aliases`) and returns the references rewritten with the synonyms the
candidate uses; a reference of one number the answer states in another form is read as the answer's own words
(`restated_number`), and so is a reference a short answer writes in another script (`transliterated`: "Т. С. Элиот"
for T. S. Eliot) or spells otherwise (`respelled`: "Caernarvon" for Caernarfon, by `spellings`' learned model).
The judge reads them beside the user's.
The table also lists every WordNet noun synset, so that `known_other` can tell an answer that names another known
thing ("Corundum." for Topaz) from another name of the gold.
"""

from __future__ import annotations

import gzip
import json
import lzma
import re
import unicodedata
from bisect import bisect_left
from functools import lru_cache
from typing import Callable, Sequence

import numpy as np
from anyascii import anyascii

from qascore.metrics import dates, spellings
from qascore.runtime import defaults
from qascore.text.answer_match import ANSWER_MAX_WORDS, RIGHT_MARKS, WRONG_MARKS, Reading, fold, listed_items, polarity_aside
from qascore.text.names import RANK
from qascore.text.quantities import quantities, restated

DEFAULT_TABLE = defaults.RESOURCES / "judge" / "aliases.json.gz"
DEFAULT_REDIRECTS = defaults.RESOURCES / "judge" / "redirects.tsv.xz"
DEFAULT_CLDR = defaults.RESOURCES / "judge" / "cldr.json.gz"
DEFAULT_PLACES = defaults.RESOURCES / "judge" / "places.json.gz"
DEFAULT_POLARITY = defaults.RESOURCES / "judge" / "polarity.json"  # yes and no in other languages
LIST_SEPARATORS = re.compile(r"\s*(?<!\d)[,;&](?!\d)\s*(?:and\s+)?|\s+and\s+")  # a list's, not a number's commas
SHORT = 2  # an alias this short ("US", "Hg") counts only as written, as an item of a list or as the whole answer
CODE = 3  # an alias in capitals this short ("PEN", "WHO") counts only as written (`_written`)
OPENING_WORDS = 6  # a long answer's opening clause this short names its answer ("Octavian \u2014 Caesar's heir, who ...")
LIST_NAME_WORDS = 3  # a long answer that lists items this short lists names ("the PRC, France, the Russian Federation")
JOINED = 6  # a name of several words written as one word of this many letters or more ("Comapedrosa")
BARE_WORDS = 6  # `known_other` reads an opening clause this short as one name (WordNet's longest are about this long)


@lru_cache(maxsize=4)
def _index(path: str) -> tuple[dict[str, tuple[str, ...]], dict[str, frozenset[int]]]:
    """The table read once per process: `synonyms` and `noun_senses`."""
    with gzip.open(path, "rt", encoding="utf-8") as f:
        table = json.load(f)
    heads = {folded[0] for folded in table["folded"]}
    names: dict[str, list[str]] = {}
    for group, folded in zip(table["groups"], table["folded"]):
        for k, key in enumerate(folded):
            if k == 0 or key not in heads:
                names.setdefault(key, []).extend(g for g, f in zip(group, folded) if f != key)
    senses: dict[str, set[int]] = {}
    for k, nouns in enumerate(table["nouns"]):
        for noun in nouns:
            senses.setdefault(noun, set()).add(k)
    return ({k: tuple(sorted(dict.fromkeys(v), key=len, reverse=True)) for k, v in names.items() if k},
            {noun: frozenset(ids) for noun, ids in senses.items()})


@lru_cache(maxsize=2)
def _redirect_lines(path: str) -> tuple[bytes, np.ndarray, int]:
    """The redirect table read once per process (`train.aliases.write_redirects` gives its format): its bytes, the
    offset of every newline, and its number of page lines. Its 870,000 names stay one block of bytes, bisected in
    place: loaded in about half a second, where a dictionary of them takes seconds to build."""
    with lzma.open(path, "rb") as f:
        data = f.read()
    ends = np.flatnonzero(np.frombuffer(data, dtype=np.uint8) == 10)
    return data, ends, int(json.loads(data[:ends[0]])["groups"])


def redirected(name: str, path: str = str(DEFAULT_REDIRECTS)) -> tuple[str, ...]:
    """The other names (Wikipedia's redirects and page titles) of every page that `name` (folded) names."""
    data, ends, pages = _redirect_lines(path)

    def line(i: int) -> bytes:
        return data[int(ends[i - 1]) + 1:int(ends[i])]

    key = name.encode("utf-8")
    names = range(1 + pages, len(ends))
    at = bisect_left(names, key, key=lambda i: line(i).split(b"\t", 1)[0])
    out: list[str] = []
    for i in names[at:]:
        found, page = line(i).split(b"\t")
        if found != key:
            break
        out.extend(n for n in line(1 + int(page)).decode("utf-8").split("\t") if fold(n) != name)
    return tuple(out)


def other_names(name: str, table: str = str(DEFAULT_TABLE), redirects: str = str(DEFAULT_REDIRECTS),
                cldr: str = str(DEFAULT_CLDR), places: str = str(DEFAULT_PLACES)) -> tuple[str, ...]:
    """`synonyms` (of the WordNet, CLDR and GeoNames tables), `redirected` and `numbered` of a folded name, longest
    first."""
    return tuple(sorted(dict.fromkeys([*synonyms(table).get(name, ()), *synonyms(cldr).get(name, ()),
                                       *synonyms(places).get(name, ()), *redirected(name, redirects),
                                       *numbered(name)]),
                        key=len, reverse=True))


def rank_forms(word: str) -> list[str]:
    """The other ways to write a folded word that is a `names.RANK` ("viii" -> "8", "eighth", "8th"; "2nd" -> "ii",
    "2", "second"); [] for any other word."""
    k = RANK.get(re.sub(r"(?<=\d)(?:st|nd|rd|th)$", "", word), 0)
    written = [w for w, v in RANK.items() if v == k] + [f"{k}{({1: 'st', 2: 'nd', 3: 'rd'}).get(k, 'th')}"] if k else []
    return [w for w in written if w != word]


def numbered(name: str) -> list[str]:
    """A folded name with a rank in it written otherwise (`rank_forms`): "article 2" -> "article ii", "article
    second", "article 2nd"; "henry viii" -> "henry 8", "henry eighth", "henry 8th". Only a name of two words or
    more, one of them a word of three letters or more that is no number ("2 1" and "x" are no names)."""
    words = name.split()
    if len(words) < 2 or not any(len(w) >= 3 and w.isalpha() and not rank_forms(w) for w in words):
        return []
    return [fold(" ".join([*words[:i], form, *words[i + 1:]])) for i, w in enumerate(words) for form in rank_forms(w)]


def synonyms(path: str = str(DEFAULT_TABLE)) -> dict[str, tuple[str, ...]]:
    """Folded name -> the other names of the synonym sets that hold it, longest first. A name that heads a set of
    its own is not looked up where it is only another set's second name ("China" heads {China, People's Republic
    of China, PRC} and is a second name in {Taiwan, China, Republic of China})."""
    return _index(path)[0]


def noun_senses(path: str = str(DEFAULT_TABLE)) -> dict[str, frozenset[int]]:
    """Folded noun -> the WordNet noun synsets (numbered in table order) that hold it."""
    return _index(path)[1]


def _written(alias: str, folded_text: str, raw: str, listed: bool) -> bool:
    """The candidate names `alias`: as whole folded words; a code in capitals ("PEN", "WHO") as written, since "all"
    and "who" are words too; a short one ("US", "Hg") as written and only as an item of a list or as the whole
    answer ("The UK."), since "He" and "OK" are words as well as names."""
    if len(alias) > CODE or len(alias) > SHORT and not alias.isupper():
        return f" {fold(alias)} " in folded_text
    written = re.search(rf"(?<!\w){re.escape(alias)}(?!\w)", unicodedata.normalize("NFKC", raw)) is not None
    return written and (len(alias) > SHORT or listed or folded_text.strip() == fold(alias))


def _named(item: str, listed: bool, table: Callable[[str], tuple[str, ...]], text: str, raw: str, asked: str
           ) -> str | None:
    """The synonym of `item` the candidate names, if any: not a part of the item's own name (a surname: the
    overlap features read those), not named in the question or as another item of its list (`asked`, folded: "horn"
    is no other name of "trumpet" in "trumpet, horn, trombone"), and a single letter only for an item of a list ("A, T,
    G and C")."""
    words = set(fold(item).split())
    return next((a for a in table(fold(item)) if not set(fold(a).split()) <= words and f" {fold(a)} " not in asked
                 and (len(a) > 1 or listed) and _written(a, text, raw, listed)), None)


# English phrases that open an answer to a yes/no question with its polarity ("That's right, only bats." for "Yes")
POLARITY = {"yes": ("yes", "yeah", "yep", "yup", "sure", "correct", "right", "true", "indeed", "absolutely", "certainly",
                    "definitely", "exactly", "affirmative", "of course", "that's right", "that's correct", "that is correct",
                    "that's true", "it is", "it was", "it does", "it did", "they are", "they were", "they do", "they did",
                    "he did", "she did", "indeed it is", "indeed it was", "yes indeed", "aye"),
            "no": ("no", "nope", "nah", "nay", "not", "never", "negative", "false", "incorrect", "wrong", "not at all",
                   "by no means", "it isn't", "it's not", "it is not", "it wasn't", "it was not", "it doesn't",
                   "it does not", "it didn't", "it did not", "they aren't", "they are not", "they weren't", "they don't",
                   "they didn't", "not really", "certainly not", "absolutely not", "definitely not", "of course not", "not any more",
                   "not anymore", "not yet")}
_SENSE = {fold(phrase): sense for sense, phrases in POLARITY.items() for phrase in phrases}
_LABEL = re.compile(r"^[^:,.]{1,30}:\s+")  # "The P5: ", "Answer: "
_OPENING = re.compile(r"(?<!\d)[,.]|[,.](?!\d)|[:;!?\u2014\u2013]|\s-\s")  # where an opening clause ends ("3.5" goes on)
_LITTLE_WORDS = frozenset("a an and at de del der di for in la le of on the to von".split())  # left out of initials
# what an opening clause may say before the name it gives ("It's", "They're called", "The answer is"; not "In ...",
# which sets a scene: "In Greek mythology, ...")
_LEAD_IN = re.compile(r"^(?:(?:it|that|this)(?:'s|\u2019s| is| was| would be)|the answer is|answer|they(?:'re|\u2019re| are)"
                      r" called|(?:it|this|that) is called|(?:his|her|its|their) name (?:is|was))\b\s*", re.IGNORECASE)


def _opening(candidate: str) -> str:
    """The answer's opening clause: what comes before its first stop, comma, colon or dash."""
    return _OPENING.split(candidate.strip(), maxsplit=1)[0].strip()


@lru_cache(maxsize=2)
def polarity_words(path: str = str(DEFAULT_POLARITY)) -> dict[str, str]:
    """Lower-case word -> "yes" or "no": the words for yes and no in other languages ("sí", "evet", "はい"; the
    table `qascore-lab train aliases --polarity` writes), and the marks that say right or wrong ("\u2713", "\U0001F44D")."""
    with open(path, encoding="utf-8") as f:
        table = json.load(f)
    marks = {m: "yes" for m in RIGHT_MARKS} | {m: "no" for m in WRONG_MARKS}
    return marks | {word: sense for sense in ("yes", "no") for word in table[sense]}


def polarity_opening(candidate: str, references: Sequence[str]) -> list[tuple[int, str]]:
    """(index, opening clause) of each "Yes" or "No" reference whose sense the answer's opening clause states, that
    clause being wholly a `POLARITY` phrase ("Correct \u2014 ...", "Not at all. ...", "Indeed it was, ..."), a word
    for yes or no in another language or a mark (`polarity_words`: "Sí.", "Evet, ...", "\u2713")."""
    opening = _opening(candidate)
    sense = _SENSE.get(fold(opening)) or polarity_words().get(unicodedata.normalize("NFC", opening).replace("\ufe0f", "").lower())
    return [(i, opening) for i, ref in enumerate(references) if sense and fold(ref) == sense]


def _lists_names(candidate: str) -> bool:
    """The candidate is one sentence that lists three or more names, after a label ("The P5: the PRC, France, the UK,
    ..."): read whole, however long."""
    said = [p.strip() for p in LIST_SEPARATORS.split(_LABEL.sub("", candidate.strip().rstrip(".")))]
    return len(said) >= 3 and not any("." in p or len(p.split()) > LIST_NAME_WORDS for p in said)


def in_candidate_form(question: str, candidate: str, references: Sequence[str], path: str = str(DEFAULT_TABLE),
                      redirects: str = str(DEFAULT_REDIRECTS)) -> list[tuple[int, str]]:
    """(index, text) of each reference rewritten with the synonyms (`_named`: the tables' names, a respelling, its
    `initials`) a short answer uses for it or for its listed items, and each reference of one number it states in
    another form (`restated_number`); [] where a reference occurs whole or the answer names no synonym. An answer
    longer than ANSWER_MAX_WORDS words is read in its opening clause alone, where that has at most OPENING_WORDS words
    ("Octavian \u2014 Julius Caesar's adopted heir, who ...", "Two thousand seven \u2014 it went on sale ..."):
    further on, a passage that names a synonym names it in some role, and the verifier, taught what the gold's own
    name means in such passages, was never taught its other names. A synonym the question names is none: restating the
    question is no answer. A "Yes" or "No" reference is also read in the answer's opening words (`polarity_opening`),
    whatever its length, and even where it occurs, if only in passing (`answer_match.polarity_aside`). Where nothing
    else is found, a short answer is read transliterated (`transliterated`)."""
    if not candidate.strip():
        return []
    said = Reading(question, candidate, references)
    if said.contains:  # a yes/no gold said only in passing ("..., with no tombs") leaves the opening its say
        return polarity_opening(candidate, references) if polarity_aside(said) else []
    out = polarity_opening(candidate, references) + dates.written(candidate, references)
    long = len(candidate.split()) > ANSWER_MAX_WORDS and not _lists_names(candidate)
    if long:  # a long answer states its answer first: its opening clause (a list's first item only: not read)
        candidate = _opening(candidate)
        if len(candidate.split()) > OPENING_WORDS:
            return out
    out += [said for said in restated_number(question, candidate, references) if said not in out]

    text = f" {fold(candidate)} "

    def table(name: str) -> tuple[str, ...]:
        return other_names(name, path, redirects) + respelled(name, text) + initials(name)

    asked = f" {fold(question)} "
    for i, ref in enumerate(references):
        items = listed_items(p for p in LIST_SEPARATORS.split(ref.strip().rstrip(".")) if p.strip())
        if (whole := _named(ref, False, table, text, candidate, asked)) is None and items and not long \
                and " or " not in f" {ref} ":
            taken = asked + " ".join(map(fold, items)) + " "  # another item's name is no other name of this one
            named = [item if f" {fold(item)} " in text else _named(item, True, table, text, candidate, taken) or item
                     for item in items]
            whole = ", ".join(named) if named != items else None
        if whole and whole not in [t for _, t in out]:
            out.append((i, whole))
    if out or long or len(candidate.split()) > ANSWER_MAX_WORDS:
        return out
    return transliterated(candidate, references)


def respelled(name: str, text: str) -> tuple[str, ...]:
    """The run of words of `text` (folded, padded) that spells folded `name` otherwise, each of its words as written
    or `spellings.spelled` ("caernarvon conway" for "caernarfon conwy"), or its words written as one ("vitilevu" for "viti
    levu"), or its one word as two or three ("bayin naung" for "bayinnaung"), if any: a word no table links to the
    name's that is itself another known name ("Austria" for "Australia") is none."""
    words, said = name.split(), text.split()
    if len(words) > 1 and len(joined := "".join(words)) >= JOINED and joined in said:  # "Comapedrosa" for Coma Pedrosa
        return (joined,)
    if len(words) == 1 and len(name) >= JOINED and name in "".join(said):  # "Bayin Naung" for Bayinnaung
        split = next((said[i:i + k] for k in (2, 3) for i in range(len(said) - k + 1) if "".join(said[i:i + k]) == name), None)
        if split:
            return (" ".join(split),)
    if not words or len(words) > len(said):
        return ()
    for start in range(len(said) - len(words) + 1):
        run = said[start:start + len(words)]
        if run != words and all(w == c or spellings.spelled(w, c) and not _known_apart(w, c) for w, c in zip(words, run)):
            return (" ".join(run),)
    return ()


def _known_apart(a: str, b: str) -> bool:
    """Folded words that the tables both know (WordNet, CLDR, GeoNames, the redirects), as names of different
    things."""
    names = [{fold(n) for n in other_names(w)} for w in (a, b)]
    known = [bool(n) or w in noun_senses() for n, w in zip(names, (a, b))]
    return all(known) and b not in names[0] and a not in names[1]


def _other_script(text: str) -> bool:
    """`text` holds a letter of a script other than Latin."""
    return any(ch.isalpha() and not unicodedata.name(ch, "").startswith("LATIN") for ch in text)


def transliterated(candidate: str, references: Sequence[str]) -> list[tuple[int, str]]:
    """(index, the candidate's words) of each reference that a run of the candidate's words, some in a script other
    than Latin, spells once transliterated (anyascii) and folded: "Т. С. Элиот" for T. S. Eliot, "It is Михаил
    Булгаков" for Mikhail Bulgakov. A name whose usual English form is no transliteration ("Говь" for Gobi, "東京"
    for Tokyo) is the tables' to know."""
    words = candidate.split()
    latin = [fold(anyascii(w)).split() for w in words]
    out: list[tuple[int, str]] = []
    for i, ref in enumerate(references):
        want = fold(ref).split()
        for start in range(len(words) if want else 0):
            got: list[str] = []
            end = start
            while end < len(words) and len(got) < len(want):
                got, end = got + latin[end], end + 1
            if got == want and _other_script(" ".join(words[start:end])):
                out.append((i, " ".join(words[start:end]).strip(".,;:!?()\"'")))
                break
    return out


def restated_number(question: str, candidate: str, references: Sequence[str]) -> list[tuple[int, str]]:
    """(index, the answer's text) of each reference of one number that a short answer states in another form
    (`quantities.restated`: "Two thousand seven" for 2007, "'89" for 1989, "98.6 °F" for 37 °C)."""
    text, folded = candidate.strip().rstrip(".!"), fold(candidate)
    return [(i, text) for i, ref in enumerate(references)
            if len(list(quantities(ref))) == 1 and restated(question, candidate, folded, [ref])]


def _known(name: str) -> str | None:
    """The form of a folded name some table knows (a WordNet noun, or a name with other names in any table): the
    name itself, else its singular ("capers" -> "caper"); None if none."""
    forms = [name, *([name[:-1]] if name.endswith("s") else []), *([name[:-2]] if name.endswith("es") else [])]
    tables = (synonyms(), synonyms(str(DEFAULT_CLDR)), synonyms(str(DEFAULT_PLACES)))
    return next((f for f in forms if f in noun_senses() or any(f in t for t in tables) or redirected(f)), None)


def _initials(words: Sequence[str]) -> tuple[str, str]:
    """The initials of folded `words`, all and without the little words ("nt", "nasa")."""
    return "".join(w[0] for w in words), "".join(w[0] for w in words if w not in _LITTLE_WORDS)


def initials(name: str) -> tuple[str, ...]:
    """Folded `name` of two words or more written short in capitals, three letters or more: its initials, all or
    without the little words ("IIP" for International Ice Patrol, "CAM" for crassulacean acid metabolism, "DOE" for
    Department of Energy), and from three words, those of all but the last before it ("MMI scale" for Modified
    Mercalli intensity scale). `_written` reads a code of CODE letters only as written, in capitals."""
    words = name.split()
    if len(words) < 2:
        return ()
    codes = [c.upper() for c in _initials(words)]
    if len(words) >= 3:
        codes.append(f"{_initials(words[:-1])[0].upper()} {words[-1]}")
    return tuple(dict.fromkeys(c for c in codes if len(c) >= CODE))


def _abbreviates(code: str, name: str) -> bool:
    """Folded `code` is one word that writes folded `name` short: its initials, all or without the little words
    ("nt" for Northern Territory, "nasa" for National Aeronautics and Space Administration), or the start of its
    one word ("hex" for hexadecimal)."""
    words = name.split()
    if " " in code or len(words) > 1 and code not in _initials(words):
        return False
    return len(words) > 1 or len(code) >= CODE and words[0].startswith(code)


def known_other(candidate: str, references: Sequence[str]) -> float:
    """1.0 where the answer's opening clause, its label ("Answer:"), lead-in ("It's", "They're called") and
    bracketed asides set aside, is a name the tables know (`_known`: WordNet, Wikipedia's redirects and titles,
    CLDR, GeoNames) that they link to no reference they know (no redirect, synonym or shared WordNet sense) and
    that neither spells one otherwise (`respelled`) nor writes it short (`_abbreviates`: "NT" for Northern
    Territory), some reference being known: another known thing, not another name
    of the gold ("It's *Amanita muscaria*." for Amanita phalloides, "Nimrud (ancient Kalhu)." for Nineveh, "The
    Egyptian vulture, famous for ..." for Lammergeier). References that say yes or no, hold a number or list
    several things are left to the features for those; a name whose every word shares a stem with a reference
    ("Twain" for "Mark Twain", "Tigers" for "Tiger") is none."""
    if any(fold(r) in ("yes", "no") or any(True for _ in quantities(r)) or len(LIST_SEPARATORS.split(r.strip())) > 1
           for r in references):
        return 0.0
    plain = _LABEL.sub("", re.sub(r"[*_`#>]", "", candidate).strip())
    opening = fold(_LEAD_IN.sub("", re.sub(r"\([^)]*\)", " ", _opening(plain)).strip()))
    code_alone = opening == fold(plain) and opening in noun_senses()  # a code this short only as the whole answer
    if len(opening) <= CODE and not code_alone or len(opening.split()) > BARE_WORDS:
        return 0.0
    said, known = _known(opening), [k for r in references if (k := _known(fold(r)))]
    if not said or not known:
        return 0.0
    gold = {n for r in known for n in (r, *(fold(a) for a in other_names(r)))}
    senses = noun_senses()
    linked = bool({said, *(fold(a) for a in other_names(said))} & gold) \
        or any(senses.get(said, frozenset()) & senses.get(g, frozenset()) for g in gold) \
        or any(respelled(g, f" {said} ") or _abbreviates(said, g) for g in gold)
    stems = {w[:5] for r in references for w in fold(r).split()}
    return float(not linked and not all(w[:5] in stems for w in said.split()))
