"""`Reading`: one record read once for the judge's rules, against hand-computed parts."""

from __future__ import annotations

from collections import Counter

import pytest

from qascore.text.answer_match import Reading, contains, mentions, numbers

RECORD = Reading("Who painted it?", "It was J.M.W. Turner’s work, in 1,100 days (or 3.50 years).",
                 ["J.M.W. Turner", "Château d’If", "  ", "The 1960s"])


@pytest.mark.parametrize("part, expected", [
    ("text", "It was J.M.W. Turner's work, in 1,100 days (or 3.50 years)."),  # typographic quote as ASCII
    ("words", ["it", "was", "jmw", "turner", "work", "in", "1100", "days", "or", "3\u066b50", "years"]),  # "3.50" keeps its point
    ("refs", ["jmw turner", "chateau dif", "", "1960s"]),  # accents off, article dropped, a blank one kept as ""
    ("ref_words", [["jmw", "turner"], ["chateau", "dif"], [], ["1960s"]]),
    ("question_words", ["who", "painted", "it"]),
    ("numbers", ({"1100", "3.5"}, set(), [set(), set(), set(), {"1960"}])),  # thousands comma dropped, "1960s" -> 1960
    ("contains", 1.0),
])
def test_parts_by_hand(part, expected):
    assert getattr(RECORD, part) == expected


def test_counts_keep_multiplicity_and_each_part_is_read_once():
    r = Reading("", "the cat sat, the cat", ["Cat cat", ""])
    assert r.counts == (Counter({"cat": 2, "sat": 1}), [Counter({"cat": 2}), Counter()])
    assert r.words is r.words and r.refs is r.refs  # computed on first use, then kept


@pytest.mark.parametrize("text, expected", [
    ("J.M.W. Turner’s", True),   # the whole reference, possessive folded
    ("Turner", False),            # a part of it is not it
    ("chateau d'if", True),
    ("", False),                  # the blank reference never matches
])
def test_holds_reads_a_part_against_the_references(text, expected):
    assert RECORD.holds(text) is expected


@pytest.mark.parametrize("candidate, references, expected", [
    ("Edmond Dantès was held in the Château d’If.", ["Isle of If", "Chateau d'If"], 1.0),
    ("Turnerian painting", ["Turner"], 0.0),
    ("anything", [""], 0.0),
])
def test_contains_is_the_reading_s(candidate, references, expected):
    assert contains(candidate, references) == Reading("", candidate, references).contains == expected


def test_numbers_and_mentions_by_hand():
    assert numbers("1,100 and 007 and 3,5 and 19th") == {"1100", "7", "3.5", "19"}
    assert mentions(["a", "b", "a", "b"], ["a", "b"]) == [0, 2] and mentions(["a"], ["a", "b"]) == []
