"""`roles.lesser_role` against hand-judged cases: the gold as a comparison's standard or a relation's possessor."""

from __future__ import annotations

import pytest

from qascore.text.answer_match import Reading
from qascore.text.roles import lesser_role

PLANET = "What is the largest planet in the Solar System?"
RELATIVITY = "Who developed the theory of general relativity?"


@pytest.mark.parametrize("question, candidate, references, expected", [
    (PLANET, "Saturn is larger than Jupiter.", ["Jupiter"], 1.0),            # the gold is the standard
    (PLANET, "Jupiter is larger than Saturn.", ["Jupiter"], 0.0),
    (PLANET, "No planet is larger than Jupiter.", ["Jupiter"], 0.0),         # nothing beats the gold
    (PLANET, "Jupiter's moon Ganymede.", ["Jupiter"], 1.0),                  # the answer is the gold's relation
    (PLANET, "Jupiter, with Saturn's rings a close second.", ["Jupiter"], 0.0),
    (PLANET, "Jupiter", ["Jupiter"], 0.0),
    (PLANET, "Saturn", ["Jupiter"], 0.0),                                     # no mention: nothing read
    (PLANET, "", ["Jupiter"], 0.0),
    ("Who wrote Hamlet?", "Shakespeare's Hamlet.", ["Shakespeare"], 0.0),     # a name: "'s" before a capital
    ("Who wrote Hamlet?", "It is Shakespeare's play.", ["Shakespeare"], 0.0),  # a work names its maker
    ("Which comet returns every 76 years?", "Halley's Comet.", ["Edmond Halley"], 0.0),
    ("What is the capital of Australia?", "Sydney, Canberra's larger neighbour.", ["Canberra"], 1.0),
    ("Who wrote Hamlet?", "Ben Jonson, Shakespeare's contemporary.", ["Shakespeare"], 1.0),
    ("Who discovered penicillin?", "It was Fleming's discovery.", ["Fleming"], 0.0),  # "discovery" ~ "discovered"
    ("Who discovered penicillin?", "Florey, Fleming's successor.", ["Fleming"], 1.0),
    ("What is the capital of Australia?", "Canberra's the capital.", ["Canberra"], 0.0),  # "'s" is "is"
    ("Who sang the hit single Vogue?", "Madonna's 1990 single Vogue.", ["Madonna"], 0.0),  # past the year
    ("Who was the 44th president?", "Joe Biden, Obama's vice president.", ["Barack Obama", "Obama"], 1.0),
    ("Who was the 44th president?", "Obama, not Obama's vice president.", ["Obama"], 0.0),  # one mention asserts
    ("Who was the 44th president?", "Obama's predecessor, George W. Bush.", ["Barack Obama"], 1.0),  # a word of it
    ("Who was the first woman to win a Nobel Prize?", "Pierre Curie, Marie's husband.", ["Marie Curie"], 1.0),
    ("Who wrote The General Theory?", "Keynes. Not Hayek, Keynes's rival.", ["John Maynard Keynes"], 0.0),  # said bare
    ("Who wrote The General Theory?", "Hayek, younger than Keynes, Keynes's rival.", ["John Maynard Keynes"], 1.0),
    ("Who wrote it?", "Allende, Gabo Marquez's friend.", ["Gabo Marquez"], 1.0),  # both words possessive
    ("Who was the 44th president?", "Barack Obama; Obama's vice president was Biden.", ["Barack Obama"], 0.0),
    ("Who painted the Mona Lisa?", "Da Vinci's Mona Lisa.", ["Leonardo da Vinci"], 0.0),  # what was asked
    ("Which chain sells the Big Mac?", "McDonald's.", ["McDonald's"], 0.0),  # the gold's own "'s"
    ("Which country?", "It is the Chinese People's Republic.", ["Chinese People's Republic"], 0.0),
    ("Which chain sells the Big Mac?", "Burger King, cheaper than McDonald's.", ["McDonald's"], 1.0),
    ("Which country?", "Somalia is more likely than Lower Peru.", ["Lower Peru", "Peru"], 1.0),  # the longer name
    ("How many homes lost power?", "More than 420,000 homes.", ["420,000"], 0.0),  # a bound, not a standard
    ("What is the tallest mountain?", "K2 is the tallest, taller than Everest.", ["Mount Everest", "Everest"], 1.0),
    ("What is the tallest mountain?", "Everest, taller than K2.", ["Everest"], 0.0),
    (RELATIVITY, "It was Niels Bohr, a contemporary of Einstein.", ["Einstein"], 1.0),  # a relation's standard
    (RELATIVITY, "Einstein, a contemporary of Niels Bohr.", ["Einstein"], 0.0),
    (RELATIVITY, "Albert Einstein, a friend of Niels Bohr, developed it.", ["Albert Einstein"], 0.0),
    ("Who taught Aristotle?", "Aristotle, a student of Plato.", ["Plato"], 0.0),            # the question's name
    ("Who taught Aristotle?", "Aristotle was a student of Plato.", ["Plato"], 0.0),         # no apposition
    ("Where is the Empire State Building?", "In Manhattan, a borough of New York City.", ["New York City"], 0.0),
    # what the possessor made, owns or said is no relation: the question may ask for its maker or owner
    ("Which car company owns the Lexus brand?", "Lexus is Toyota's luxury division.", ["Toyota"], 0.0),
    ("Which singer released the album '21'?", "21 is Adele's second album.", ["Adele"], 0.0),
    ("Who popularised the term 'creative destruction'?", "It is Schumpeter's phrase.", ["Joseph Schumpeter"], 0.0),
])
def test_lesser_role(question, candidate, references, expected):
    assert lesser_role(Reading(question, candidate, references)) == expected
