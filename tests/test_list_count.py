"""`text.list_count`: a list answer with fewer items than the question asks for; cases counted by hand."""

from __future__ import annotations

import pytest

from qascore.text.list_count import items, short_list

# (question, candidate, references, fires)
CASES = [
    ("What are the two moons of Mars?", "Phobos.", ["Phobos and Deimos"], 1.0),
    ("What are the two moons of Mars?", "Phobos and Deimos.", ["Phobos and Deimos"], 0.0),
    ("Name the four blood groups of the ABO system.", "A, B and O.", ["A, B, AB, O"], 1.0),
    ("Name the four blood groups of the ABO system.", "Type A / Type B / Type AB / Type O", ["A, B, AB, O"], 0.0),
    ("Name the three disciplines of a triathlon.", "Swim → bike → run.", ["Swimming, cycling and running"], 0.0),
    ("Name the three bones of the middle ear.", "Hammer, anvil and stirrup.", ["Malleus, incus, stapes"], 0.0),  # counted
    ("Which 3 countries border Luxembourg?", "France and Germany", ["Belgium, France and Germany"], 1.0),
    ("Which astronomer formulated the three laws of planetary motion?", "Kepler", ["Johannes Kepler"], 0.0),
    ("Who composed The Four Seasons?", "Vivaldi.", ["Antonio Vivaldi"], 0.0),
    ("Without looking, what three letters are on the 5 key?", "JKL.", ["J K L"], 0.0),      # letters, not items
    ("Name the Baltic states.", "Latvia and Lithuania.", ["Estonia, Latvia and Lithuania"], 1.0),  # a listed reference
    ("Name the year: Kennedy was elected.", "1960", ["one thousand, nine hundred and sixty"], 0.0),  # a number
    ("Where is Boeing based?", "Seattle", ["Seattle, Washington"], 0.0),                 # the question asks for one
    ("What are the basic functions of proteins?", "catalysis", ["Proteins catalyse reactions, replicate DNA and "
                                                              "transport molecules from one place to another."], 0.0),
    ("What are the two moons of Mars?", " ".join(["word"] * 31), ["Phobos and Deimos"], 0.0),  # prose, not a list
]


@pytest.mark.parametrize("question,candidate,references,expected", CASES)
def test_a_list_shorter_than_asked_fires(question, candidate, references, expected):
    assert short_list(question, candidate, references) == expected


@pytest.mark.parametrize("text,n", [("A, B and C.", 3), ("A; B & C", 3), ("A / B", 2), ("A -> B", 2), ("1,000 and 2", 2),
                                    ("- A\n- B\n- C", 3), ("France plus Italy", 2), ("Paris", 1)])
def test_items_are_split_on_a_lists_separators(text, n):
    assert len(items(text)) == n
