"""A pure-Python PTB tokenizer that matches COCO's (Stanford PTBTokenizer 3.4.1, lower-cased,
COCO's punctuation list dropped) on QA answers, with no JVM.

The classic caption/QA metrics (BLEU, ROUGE-L, METEOR, CIDEr in pycocoevalcap)
tokenise with the Java tokenizer; its choices change the numbers (e.g. "don't"
becomes "do n't", "(" becomes "-lrb-", which COCO's filter does NOT drop
because it compares with upper-case "-LRB-"). This module re-states those
choices as a longest-match scanner over a small table of token patterns, like
the JFlex lexer it imitates. Agreement with the Java tokenizer (`qascore-lab bench
lexical --squad-agreement`, lab/results/lexical.md): all 7,093 distinct KPQA human-eval
answers/references, 99.98% of SQuAD v2 dev questions, 98.7% of whole passages.
Known gap: the Java lexer looks across line ends (a text ending in "no." keeps
the period when the next text starts with a digit); here each text stands alone.

Every tokenizer rule lives in `_RULES` (one row per rule) and the abbreviation
lists below; `tokenize()` is the public entry point.
"""

from __future__ import annotations

import re
from typing import Callable, Sequence

# COCO's PTBTokenizer drops these tokens after tokenising (pycocoevalcap's list, verbatim in meaning).
PUNCTUATION = frozenset(["''", "'", "``", "`", "-LRB-", "-RRB-", "-LCB-", "-RCB-",
                         ".", "?", "!", ",", ":", "-", "--", "...", ";"])

# Abbreviations that keep their period (any case), as the Stanford lexer does.
_ABBREV = (
    "mr mrs ms dr drs prof profs sen sens rep reps lt col gen capt ave pres hon rev maj sgt cpl mt "
    "st ste messrs gov govs adm inc co cos corp ltd plc pty ptys dept univ assn bros blvd rd esq tel "
    "est ext seq bldg natl mfg mtg invt elec etc al sq ft jr sr vs cf ca wm jos alex calif fla mich va "
    "ariz tenn mo md wis minn ind okla kan ga colo ky ala nev neb vt wyo jan feb mar apr jun jul aug "
    "sep sept oct nov dec mon tue tues wed thu thurs fri"
).split()
# Abbreviations that are also common words: kept with their period only when capitalised.
_ABBREV_CAPITAL = "Mass Ill Pa Wash Ore Del La Ark Miss Tex".split()
# Capitalised words after which the Stanford lexer reads "x." (one letter) as a sentence end;
# found by probing the Java tokenizer with about 800 frequent capitalised words.
_SENTENCE_OPENERS = (
    "A About According Additionally After An As At But Earlier He Her Here However If In It Last Many "
    "More Now Once One Other Our She Since So Some Such That The Their Then There These They This We "
    "What When While Yet You"
).split()
# Words the lexer splits in two.
_SPLIT_WORDS = {"cannot": ("can", "not"), "gonna": ("gon", "na"), "gotta": ("got", "ta"),
                "wanna": ("wan", "na"), "lemme": ("lem", "me"), "gimme": ("gim", "me")}

# Python's \w also holds "No" numbers (superscripts, vulgar fractions); Java's letter/digit classes don't.
_NO = "\u00b2\u00b3\u00b9\u00bc-\u00be\u2070-\u209f\u2150-\u218f\u2460-\u24ff"
_L = rf"[^\W\d_{_NO}]"     # a letter
_A = rf"[^\W_{_NO}]"        # a letter or digit
_APOS = "['\u2019\u0092]"
_BRACKETS = {"(": "-lrb-", ")": "-rrb-", "[": "-lsb-", "]": "-rsb-", "{": "-lcb-", "}": "-rcb-"}
_FRACTIONS = {"\u00bc": "1/4", "\u00bd": "1/2", "\u00be": "3/4"}
_CURRENCY = {"\u00a3": "#", "\u20ac": "$", "\u00a2": "cents", "\u0080": "$"}

NBSP = "\u00a0"   # inside the few tokens that span spaces (phone numbers, "2 1/2")
Emit = Callable[[re.Match], Sequence[str]]


def _whole(m: re.Match) -> Sequence[str]:
    return (m.group(0),)


def _glued(m: re.Match) -> Sequence[str]:
    """A token that spans spaces: the Java lexer writes them as no-break spaces, brackets escaped."""
    text = m.group(0).replace(" ", NBSP).replace("(", "-lrb-").replace(")", "-rrb-")
    return (text,)


def _unescape_amp(m: re.Match) -> Sequence[str]:
    return (m.group(0).replace("&amp;", "&"),)


def _split_nt(m: re.Match) -> Sequence[str]:
    return (m.group(1), "n't")


def _redaux(m: re.Match) -> Sequence[str]:
    return ("'" + m.group(1),)


def _split_word(m: re.Match) -> Sequence[str]:
    return _SPLIT_WORDS[m.group(0).lower()]


def _const(value: str) -> Emit:
    return lambda m: (value,)


def _mapped(table: dict[str, str]) -> Emit:
    return lambda m: (table[m.group(0)],)


# (name, pattern, emit). The scanner takes the longest match at each position; ties go to the
# earlier row. Each row is one rule of the Stanford lexer that matters for QA text.
_RULES: list[tuple[str, str, Emit]] = [
    ("url", r"https?://[^\s\"<>|()]*[^\s\"<>|.!?(){},-]", _whole),
    ("www", r"www\.(?:[^\s\"<>|.!?(){},]+\.)+[a-zA-Z]{2,4}(?:/[^\s\"<>|()]*[^\s\"<>|.!?(){},-])?", _whole),
    ("email", r"[a-zA-Z0-9][^\s\"<>|(){}]*@(?:[^\s\"<>|(){}.]+\.)*[^\s\"<>|(){}\[\].,;:]+", _whole),
    ("vulgar_fraction", "[\u00bc\u00bd\u00be]", _mapped(_FRACTIONS)),
    # phone numbers and spaced fractions are ONE token whose spaces become U+00A0 ("866 200 6020").
    ("phone", r"(?:\(\d{2,3}\)[ \u00a0]?|(?:\+\+?)?(?:\d{2,4}[- \u00a0])?\d{2,4}[- \u00a0])\d{3,4}[- \u00a0]?\d{3,5}"
              r"|(?:(?:\+\+?)?\d{2,4}\.)?\d{2,4}\.\d{3,4}\.\d{3,5}", _glued),
    ("sgml", r"</?[A-Za-z!?][^>\s]*>", _whole),
    # n't contractions: "don't" -> do n't, "can't" -> ca n't.
    ("nt", rf"([A-Za-z]*[A-MO-Za-mo-z])n{_APOS}t(?![A-Za-z])", _split_nt),
    # 's 'm 'd 're 've 'll after a word (or alone: "'d say").
    ("nt_alone", rf"n{_APOS}t(?![A-Za-z])", _const("n't")),
    ("redaux", rf"{_APOS}([sSmMdD]|[rR][eE]|[vV][eE]|[lL][lL])(?![A-Za-z])", _redaux),
    ("split_word", r"(?i:cannot|gonna|gotta|wanna|lemme|gimme)(?![A-Za-z])", _split_word),
    # o'neal, d'arcy: one letter, apostrophe, two or more letters.
    ("apoword", rf"[A-HJ-XZa-hj-xz]{_APOS}{_L}{{2,}}", _whole),
    ("n_apos", rf"{_APOS}n{_APOS}|{_APOS}n(?![A-Za-z])", _whole),       # rock 'n' roll
    ("y_apos", rf"[yY]{_APOS}(?={_L})", _whole),                         # y' all
    ("t_apos", rf"{_APOS}[tT](?=(?:is|was)(?![A-Za-z]))", _whole),       # 't is
    ("apo_vowel", rf"{_L}*[aeiouyAEIOUY]{_APOS}[aeiouA-Z]{_L}*", _whole),   # shari'a, ba'athist
    ("apo_em", rf"{_APOS}em", _whole),                                       # 'em
    ("decade", rf"{_APOS}[2-9]0s", _whole),
    # words, with inner . ! ? between letters: "end.next", "a.m.to", "line.the".
    ("word", rf"{_L}{_A}*(?:[.!?]{_L}{_A}*)*", _whole),
    # letters/digits joined by hyphens: "mother-in-law", "1-800-555-1212", "a.b-c".
    ("thinga", r"[A-Z]+(?:(?:[+&]|&amp;)[A-Z]+)+", _unescape_amp),       # AT&T
    ("thing", rf"{_A}+(?:-{_A}+)*", _whole),
    ("hthing", rf"{_A}[A-Za-z0-9.,]*(?:-(?:[A-Za-z0-9]+|[A-Za-z](?:\.[A-Za-z])+\.))+", _whole),
    # slash compounds: "and/or", "stove/home", at most two slashes.
    ("slashed", r"[A-Za-z0-9]+(?:-[A-Za-z]+){0,2}(?:\\?/[A-Za-z0-9]+(?:-[A-Za-z]+){0,2}){1,2}", _whole),
    ("number", r"[-+]?(?:\d*(?:[.:,]\d+)+|\d+)", _whole),
    ("date", r"\d{1,2}[-/]\d{1,2}[-/]\d{2,4}", _whole),
    ("fraction", r"(?:\d{1,4}[- \u00a0])?\d{1,4}[/\u2044]\d{1,4}", _glued),
    # acronyms with periods: "u.s.", "e.g.", "ph.d.", "a.k.a.".
    ("acronym", r"[A-Za-z]{1,2}(?:\.[A-Za-z]{1,2})+\.?", _whole),
    ("abbrev", r"(?i:" + "|".join(_ABBREV) + r")\.", _whole),
    # a single letter keeps its period ("vitamin c. the", "George W. Bush") unless a typical
    # sentence opener follows ("integer n. It is"): then the period ends the sentence.
    ("abbrev_letter", r"[A-Za-z]\.(?!\s+(?:" + "|".join(_SENTENCE_OPENERS) + r")(?![A-Za-z]))", _whole),
    ("abbrev_cap", r"(?:" + "|".join(_ABBREV_CAPITAL) + r")\.", _whole),
    ("abbrev_no", r"(?i:no|pp)\.(?=\s*\d)", _whole),
    ("amp", r"&amp;", _const("&")),
    ("currency_us", r"[A-Z]*\$|#", _whole),
    ("hashtag", r"#[A-Za-z][A-Za-z0-9_]*", _whole),
    ("underscores", r"_+", _whole),
    ("currency", "[\u00a3\u20ac\u00a2\u0080]", _mapped(_CURRENCY)),
    ("bracket", r"[()\[\]{}]", _mapped(_BRACKETS)),
    ("ellipsis", r"\.\.\.|\u2026", _const("...")),
    ("dashes", "--+|[\u2013\u2014\u2015\u0096\u0097]", _const("--")),
    ("quote", "\"|\u201c|\u201d|``|''", _const("''")),
    ("squote", "[`'\u2018\u2019\u201b\u0091\u0092]", _const("'")),
    ("marks", r"[?!]+", _whole),
    ("stars", r"\*+", _whole),
    ("other", r"\S", _whole),
]
_COMPILED = [(name, re.compile(pat), emit) for name, pat, emit in _RULES]


def _all_rules_at_once() -> tuple[re.Pattern, list[int]]:
    """One regex that tries every rule at a position (each as an optional look-ahead group), so a
    single C-level match reports every rule's match length; returns it with each rule's group."""
    parts, groups, g = [], [], 1
    for (_, pat, _), (_, rx, _) in zip(_RULES, _COMPILED):
        parts.append(f"(?:(?=({pat})))?")
        groups.append(g)
        g += 1 + rx.groups
    return re.compile("".join(parts)), groups


_ALL, _GROUPS = _all_rules_at_once()
# The common case: a plain lower-case word before a space, the end, or ", " (no rule reaches
# across those, so the longest match is the word itself).
_FAST = re.compile(r"[a-z][a-z0-9]*(?=\s|$|,\s|,$)")
_FAST_PUNCT = re.compile(r"[.,;:?!](?=\s|$)")   # a lone mark before a space: no rule is longer
_SPACE = re.compile(r"[\s\u200b-\u200f\u2060\ufeff]+")   # zero-width marks separate like spaces


def ptb_tokens(text: str) -> list[str]:
    """PTB tokens of `text`, lower-cased, punctuation still in (as the Java tokenizer prints them)."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        sp = _SPACE.match(text, i)
        if sp:
            i = sp.end()
            continue
        fast = _FAST.match(text, i)
        if fast and not _SPLIT_WORDS.get(fast.group(0)):
            out.append(fast.group(0))
            i = fast.end()
            continue
        punct = _FAST_PUNCT.match(text, i)
        if punct:
            out.append(punct.group(0))
            i += 1
            continue
        whole = _ALL.match(text, i)
        assert whole is not None      # the "other" rule matches any non-space character
        regs = whole.regs
        ends = [regs[g][1] for g in _GROUPS]
        best = max(ends)              # longest match; max() keeps the first (earliest rule) on ties
        assert best > i               # the "other" rule matches any non-space character
        _, rx, emit = _COMPILED[ends.index(best)]
        m = rx.match(text, i)
        assert m is not None
        out.extend(t.lower() for t in emit(m))
        i = m.end()
    return out


def drop_punctuation(tokens: Sequence[str]) -> list[str]:
    """COCO's filter: drop the listed punctuation tokens (case-sensitive, as COCO compares)."""
    return [t for t in tokens if t not in PUNCTUATION]


def tokenize(text: str) -> list[str]:
    """COCO-style tokens: PTB-tokenised, lower-cased, punctuation dropped."""
    return drop_punctuation(ptb_tokens(text))
