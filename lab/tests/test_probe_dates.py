"""`train probe-dates`: the fuller date around a gold year or month, and its wrong twin (hand-made cases)."""

from __future__ import annotations

import random

import pytest

from qascore_lab.train.probe_dates import Refinement, refinement

CTX = "The war ended on September 2, 1945, in Tokyo Bay. Berlin fell in May 1945. He was born on 4 July 1900."


def at(text: str, part: str, nth: int = 0) -> int:
    i = -1
    for _ in range(nth + 1):
        i = text.index(part, i + 1)
    return i


@pytest.mark.parametrize("gold, start, date", [
    ("1945", at(CTX, "1945"), "September 2, 1945"),     # a year inside "Month D, YYYY"
    ("September", at(CTX, "September"), "September 2, 1945"),
    ("September 2, 1945", at(CTX, "September"), None),  # nothing more precise
    ("1945", at(CTX, "1945", 1), "May 1945"),           # a year inside "Month YYYY"
    ("May", at(CTX, "May"), "May 1945"),
    ("1900", at(CTX, "1900"), "4 July 1900"),           # "D Month YYYY"
    ("Tokyo", at(CTX, "Tokyo"), None),                  # not a date answer
    ("1945", at(CTX, "1945") + 1, None),                # the offset is not where the date holds the gold
])
def test_refinement_finds_the_fuller_date_that_holds_the_gold(gold, start, date):
    found = refinement(CTX, start, gold, random.Random(0))
    assert (found.date if found else None) == date


def test_the_wrong_twin_changes_only_the_golds_part():
    found = refinement(CTX, at(CTX, "1945"), "1945", random.Random(0))
    assert isinstance(found, Refinement)
    assert found.wrong.startswith("September 2, ") and found.wrong != found.date
    assert 1930 <= int(found.wrong[-4:]) <= 1960   # a year moved by 1 to 15, as the `number` family moves years
    month = refinement(CTX, at(CTX, "September"), "September", random.Random(0))
    assert month.wrong.endswith(" 2, 1945") and not month.wrong.startswith("September")
    # a month and day without a year refine a month gold too
    assert refinement("It opened on March 3 and closed in June.", 13, "March", random.Random(1)).date == "March 3"


def test_the_same_seed_gives_the_same_twin():
    one = refinement(CTX, at(CTX, "1945"), "1945", random.Random("13:squad11:x:date-refine"))
    two = refinement(CTX, at(CTX, "1945"), "1945", random.Random("13:squad11:x:date-refine"))
    assert one == two
