"""The pure-Python PTB tokenizer against COCO's conventions (Stanford PTBTokenizer 3.4.1,
lower-cased, COCO's punctuation list dropped). Expected token lists are written by hand
from the PTB conventions; the same strings are also run through the Java tokenizer when
Java and pycocoevalcap are available."""

from __future__ import annotations

import shutil

import pytest

from qascore.text import PUNCTUATION, get_tokenizer, ptb_tokens, tokenize, tokenize_unique

NB = "\u00a0"
CASES = [
    # plain words, lower-casing, punctuation dropped
    ("The cat sat on the mat.", ["the", "cat", "sat", "on", "the", "mat"]),
    ("Hello, world! Really?", ["hello", "world", "really"]),
    ("", []),
    ("   ", []),
    (". , ; : ! ? - -- ...", []),
    # contractions and possessives
    ("don't can't won't isn't", ["do", "n't", "ca", "n't", "wo", "n't", "is", "n't"]),
    ("it's we're they've she'll he'd i'm", ["it", "'s", "we", "'re", "they", "'ve", "she", "'ll", "he", "'d", "i", "'m"]),
    ("the dogs' bowl", ["the", "dogs", "bowl"]),
    ("don\u2019t it\u2019s", ["do", "n't", "it", "'s"]),
    ("cannot gonna gotta wanna", ["can", "not", "gon", "na", "got", "ta", "wan", "na"]),
    ("o'neal 'd say", ["o'neal", "'d", "say"]),
    # brackets survive as -lrb- etc. because COCO's filter compares with upper case
    ("f(x) [a] {b}", ["f", "-lrb-", "x", "-rrb-", "-lsb-", "a", "-rsb-", "-lcb-", "b", "-rcb-"]),
    # quotes of every kind are dropped
    ('"quoted" \u201ccurly\u201d \u2018single\u2019 `tick\'', ["quoted", "curly", "single", "tick"]),
    # numbers, money, percent
    ("$2,000.50 costs 3.5% of 1,000", ["$", "2,000.50", "costs", "3.5", "%", "of", "1,000"]),
    ("\u00a337,498 and \u20ac5", ["#", "37,498", "and", "$", "5"]),
    ("long,32 inches", ["long", ",32", "inches"]),
    ("12:30 pm 10:30am -5 +5", ["12:30", "pm", "10:30", "am", "-5", "+5"]),
    ("04/04/2063 and 1/2 and 31/2", ["04/04/2063", "and", "1/2", "and", "31/2"]),
    ("1 \u00bd inches", ["1", "1/2", "inches"]),
    # hyphens and slashes
    ("mother-in-law x-ray's 1-800-555-1212", ["mother-in-law", "x-ray", "'s", "1-800-555-1212"]),
    ("mid - 20s 10- 20", ["mid", "20s", "10", "20"]),
    ("and/or stove/home a/b/c/d law/", ["and/or", "stove/home", "a/b/c", "/", "d", "law", "/"]),
    # periods: abbreviations keep theirs, sentence periods are dropped, inner periods join
    ("mr. smith of the u.s. met dr. who", ["mr.", "smith", "of", "the", "u.s.", "met", "dr.", "who"]),
    ("e.g. a.m. p.m. etc. inc.", ["e.g.", "a.m.", "p.m.", "etc.", "inc."]),
    ("at 8 am. and 16.4\u00b0f. in july", ["at", "8", "am", "and", "16.4", "\u00b0", "f.", "in", "july"]),
    ("end.next line.the mr.fletcher", ["end.next", "line.the", "mr.fletcher"]),
    ("no. 5 and no. it is", ["no.", "5", "and", "no", "it", "is"]),
    # symbols that are kept
    ("10^19 a*b x = y ** wow!!", ["10", "^", "19", "a", "*", "b", "x", "=", "y", "**", "wow", "!!"]),
    ("it looks like a <unk> shirt", ["it", "looks", "like", "a", "<unk>", "shirt"]),
    ("A&amp;B a & b brighton & hove", ["a&b", "a", "&", "b", "brighton", "&", "hove"]),
    ("AT&T", ["at&t"]),
    # tokens spanning spaces carry no-break spaces, as the Java lexer prints them
    ("call 1 866 200 6020 now", ["call", "1", f"866{NB}200{NB}6020", "now"]),
    ("cook 2 1/2 hours", ["cook", f"2{NB}1/2", "hours"]),
    # urls, e-mail, files
    ("see www.foo.com or foo@bar.com or file.txt", ["see", "www.foo.com", "or", "foo@bar.com", "or", "file.txt"]),
    ("tnf-\u03b1 5 \u00b5m", ["tnf-\u03b1", "5", "\u00b5m"]),
    # initials keep their period unless a sentence opener follows
    ("George W. Bush and Roe v. Wade", ["george", "w.", "bush", "and", "roe", "v.", "wade"]),
    ("for every integer n. It is", ["for", "every", "integer", "n", "it", "is"]),
    # other rules met in SQuAD text
    ("fill in the ___ please", ["fill", "in", "the", "___", "please"]),
    ("12 km\u00b2 of land", ["12", "km", "\u00b2", "of", "land"]),
    ("shari'a and ba'athist", ["shari'a", "and", "ba'athist"]),
    ("1\u20443 cup, #tag", ["1\u20443", "cup", "#tag"]),
    ("to ca. 2 million, pp. 384", ["to", "ca.", "2", "million", "pp.", "384"]),
    ("zero\u200bwidth \ufeffmarks", ["zero", "width", "marks"]),
]


@pytest.mark.parametrize("text,expected", CASES)
def test_ptb_tokens(text, expected):
    assert tokenize(text) == expected


def test_punctuation_is_coco_list():
    assert {".", ",", "?", "!", ":", ";", "-", "--", "...", "''", "'", "``", "`"} <= PUNCTUATION
    assert "-lrb-" not in PUNCTUATION and "-LRB-" in PUNCTUATION


def test_raw_tokens_keep_punctuation():
    assert ptb_tokens("Hi, you.") == ["hi", ",", "you", "."]


def test_tokenize_unique_and_names():
    assert tokenize_unique(["a b", "a b", "c"], "ptb") == [["a", "b"], ["a", "b"], ["c"]]
    assert get_tokenizer("whitespace")(["A  b"]) == [["A", "b"]]
    with pytest.raises(ValueError, match="unknown tokenizer"):
        get_tokenizer("nope")


def _java_available() -> bool:
    try:
        from qascore.text.coco import TOKENIZER_JAR, coco_jar
        coco_jar(TOKENIZER_JAR)
    except (RuntimeError, ImportError):
        return False
    return shutil.which("java") is not None


@pytest.mark.skipif(not _java_available(), reason="needs Java and pycocoevalcap's Stanford tokenizer jar")
def test_python_tokenizer_equals_java_tokenizer():
    from qascore.text.ptb_java import tokenize_java
    texts = [t for t, _ in CASES]
    assert [tokenize(t) for t in texts] == tokenize_java(texts)
