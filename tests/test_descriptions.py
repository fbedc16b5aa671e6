"""`descriptions.describes` against hand-judged cases: an indefinite description where a name is asked for."""

from __future__ import annotations

import pytest

from qascore.text.answer_match import Reading
from qascore.text.descriptions import describes

MOON = "Who was the first person to walk on the Moon?"


@pytest.mark.parametrize("question, candidate, references, expected", [
    (MOON, "An American astronaut.", ["Neil Armstrong"], 1.0),
    (MOON, "It was a NASA astronaut on Apollo 11.", ["Neil Armstrong"], 1.0),   # past the lead; head "astronaut"
    (MOON, "He was probably an engineer from Ohio.", ["Neil Armstrong"], 1.0),
    ("Who painted the Sistine Chapel ceiling?", "A Florentine sculptor and painter.", ["Michelangelo"], 1.0),
    ("What is the tallest mountain in the world?", "A mountain in Nepal.", ["Mount Everest"], 1.0),
    (MOON, "Neil Armstrong, an American astronaut.", ["Neil Armstrong"], 0.0),   # names the gold
    (MOON, "An American astronaut, Neil Armstrong.", ["Neil Armstrong"], 0.0),
    ("Which novel opens in 1775?", "A Tale of Two Cities", ["Great Expectations"], 0.0),  # a title: head capitalised
    ("What is the tallest mountain in the world?", "The mountain on the border of Nepal and Tibet.",
     ["Mount Everest"], 0.0),                                                    # definite: it identifies one
    ("What kind of animal is a koala?", "A marsupial.", ["Marsupial"], 0.0),      # a kind is asked for
    ("What is a koala?", "A marsupial.", ["Marsupial"], 0.0),
    ("What gas do plants absorb?", "A greenhouse gas.", ["carbon dioxide"], 0.0),  # the gold is no name
    ("How many eggs are in a carton?", "A dozen.", ["12"], 0.0),                  # a number
    ("What was built in 1889?", "A tower.", ["A wrought-iron tower"], 0.0),       # the gold is a description
    ("What is the mace displayed in?", "a glass case", ["The mace is displayed in a glass case suspended from the lid."],
     0.0),                                                                       # a sentence, not a name
    (MOON, "An astronaut. He flew on Apollo 11 and walked there first.", ["Neil Armstrong"], 0.0),  # prose
    (MOON, "", ["Neil Armstrong"], 0.0),
    (MOON, "An astronaut.", [], 0.0),
])
def test_describes(question, candidate, references, expected):
    assert describes(Reading(question, candidate, references)) == expected
