"""`text.list_count`: a list answer with fewer or more items than the question asks for; cases counted by hand."""

from __future__ import annotations

import pytest

from qascore.text.list_count import items, long_list, short_list

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
    ("Which four-field crop rotation did Townshend use?", "Norfolk system.", ["Norfolk four-course system"], 0.0),
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
                                    ("- A\n- B\n- C", 3), ("France plus Italy", 2), ("Paris", 1),
                                    ("Bleu, Blanc et Rouge", 3), ("Castellano y guarani", 2), ("X and Y", 2),
                                    ("\u6606\u5e03\u3068\u9c39\u7bc0", 2)])  # "and" in other languages; "Y" is a name
def test_items_are_split_on_a_lists_separators(text, n):
    assert len(items(text)) == n


# (question, candidate, fires): more items than the number the question writes
LONG = [
    ("What are the three primary colours of light?", "Red, green, blue and yellow", 1.0),
    ("What are the three primary colours of light?", "Red, green and blue.", 0.0),
    ("Which 2 countries share Lake Titicaca?", "Peru, Bolivia and Chile.", 1.0),
    ("Name the Baltic states.", "Estonia, Latvia, Lithuania and Finland", 0.0),           # no number asked
    ("Name two of the Great Lakes.", "Erie, Huron and Ontario", 0.0),                      # "two of": at least two
    ("Which three countries are on Borneo?", "Indonesia (Kalimantan), Malaysia (Sabah and Sarawak) and Brunei.", 0.0),
    ("Name the five Great Lakes.", "HOMES:\n- Huron\n- Ontario\n- Michigan\n- Erie\n- Superior", 0.0),  # a heading
    ("What are the two city-states in Germany?", "Not Freistaaten, but Hamburg and Bremen.", 0.0),       # contrast
    ("Which two heavier isotopes of hydrogen are named?", "2H and 3H, i.e. D and T.", 0.0),
    ("What two countries emerged?", "After the Congress of Vienna, Austria and Prussia emerged as two.", 0.0),  # clauses
    ("Which three countries border Luxembourg?", ", ".join(["Belgium"] * 31), 0.0),      # over LIST_WORDS: prose
]


@pytest.mark.parametrize("question,candidate,expected", LONG)
def test_a_list_longer_than_asked_fires(question, candidate, expected):
    assert long_list(question, candidate) == expected
