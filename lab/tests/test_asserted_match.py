"""`train asserted`: how a span of the reader's reading is matched with the gold answers, by hand."""

from __future__ import annotations

import pytest

from qascore.runtime.reader import Reading
from qascore_lab.train.asserted import match, match_mass

@pytest.mark.parametrize("span, refs, expected", [
    ("Canberra", ["Canberra"], 1.0),
    ("the city of Canberra", ["Canberra"], 1.0),          # the reference occurs inside the span
    ("King George IV", ["George IV"], 1.0),
    ("Sydney", ["Canberra"], 0.0),
    ("George Bush", ["George Washington"], 0.5),          # token F1: one of two words each way
    ("George", ["George Washington"], 2 / 3),              # P 1, R 1/2
    ("", ["Canberra"], 0.0),
    ("Canberra", [], 0.0),
])
def test_match_table(span, refs, expected):
    assert match(span, refs) == pytest.approx(expected)


def test_match_mass_is_the_matching_mass_of_the_best_window():
    reading = Reading(windows=[(0.1, [("Canberra", 0.5), ("Sydney", 0.3), ("George", 0.1)]),
                               (0.2, [("Canberra", 0.7)])])
    # window 1: 0.5 x 1 + 0.3 x 0 + 0.1 x 0 = 0.5; window 2: 0.7
    assert match_mass(reading, ["Canberra"]) == pytest.approx(0.7)
    assert match_mass(Reading(windows=[]), ["Canberra"]) == 0.0
