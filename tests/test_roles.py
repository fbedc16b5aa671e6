"""`roles.lesser_role` and `roles.misattributed` against hand-judged cases: the gold as a comparison's standard or
a possessor, or named beside another given the question's role."""

from __future__ import annotations

import pytest

from qascore.text.answer_match import Reading
from qascore.text.roles import lesser_role, misattributed

PLANET = "What is the largest planet in the Solar System?"
RELATIVITY = "Who developed the theory of general relativity?"


@pytest.mark.parametrize("question, candidate, references, expected", [
    (PLANET, "Saturn is larger than Jupiter.", ["Jupiter"], 1.0),            # the gold is the standard
    (PLANET, "Jupiter is larger than Saturn.", ["Jupiter"], 0.0),
    (PLANET, "No planet is larger than Jupiter.", ["Jupiter"], 0.0),         # nothing beats the gold
    (PLANET, "Jupiter's moon Ganymede.", ["Jupiter"], 1.0),                  # the gold possesses the answer
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
])
def test_lesser_role(question, candidate, references, expected):
    assert lesser_role(Reading(question, candidate, references)) == expected


CAPITAL, MOON = "What is the capital of Australia?", "Who was the first person to walk on the Moon?"


@pytest.mark.parametrize("question, candidate, references, expected", [
    (CAPITAL, "Canberra is the largest city; Sydney is the capital.", ["Canberra"], 1.0),
    (CAPITAL, "Sydney is the capital; Canberra is the largest city.", ["Canberra"], 1.0),
    (CAPITAL, "Canberra is the capital; Sydney is the largest city.", ["Canberra"], 0.0),
    (CAPITAL, "Canberra. Sydney is the largest city, but the capital is Canberra.", ["Canberra"], 0.0),
    (CAPITAL, "Although Sydney is often called the capital, Canberra is.", ["Canberra"], 0.0),  # one clause
    (CAPITAL, "It is Sydney; many think Canberra.", ["Canberra"], 0.0),      # no clause restates: `disowned`'s
    (CAPITAL, "Canberra is the largest city; many think Sydney is the capital.", ["Canberra"], 0.0),  # others'
    (CAPITAL, "Canberra is the largest city; Sydney is not the capital.", ["Canberra"], 0.0),  # negated
    (CAPITAL, "Sydney is something else, but the answer is Canberra, the capital.", ["Canberra"], 0.0),  # stated
    (CAPITAL, "The capital of Australia is Canberra. It was chosen over Sydney and Melbourne.", ["Canberra"], 0.0),
    ("Who was the 44th president of the United States?", "The 44th was George W. Bush; Obama was the 45th.",
     ["Barack Obama"], 1.0),                                                 # after the copula; a word of the name
    ("Who was the 44th president of the United States?", "The 44th was Barack Obama; George W. Bush was the 43rd.",
     ["Barack Obama"], 0.0),
    (MOON, "Armstrong was first in space, but Gagarin was first on the Moon.", ["Neil Armstrong"], 1.0),
    (MOON, "Gagarin was first in space, but Armstrong was first on the Moon.", ["Neil Armstrong"], 0.0),
    (MOON, "Neil Armstrong. Buzz Aldrin was the second person to walk on the Moon.", ["Neil Armstrong"], 0.0),  # bare
    ("What is the chemical symbol for gold?", "Ag is gold and Au is silver.", ["Au"], 1.0),  # "and" before a copula
    ("What is the chemical symbol for gold?", "Au is gold and Ag is silver.", ["Au"], 0.0),
    ("Who wrote Hamlet?", "Marlowe wrote Hamlet; Shakespeare wrote Macbeth.", ["Shakespeare"], 1.0),
    ("Who wrote Hamlet?", "Shakespeare wrote it; Marlowe wrote Doctor Faustus.", ["Shakespeare"], 0.0),
    ("What is the smallest planet?", "Mercury, smaller even than Mars.", ["Mercury"], 0.0),
    (CAPITAL, "Sydney is the capital.", ["Canberra"], 0.0),                  # the gold named nowhere
    (CAPITAL, "Sydney is the capital; Canberra is the largest city. " + "More words follow here. " * 8,
     ["Canberra"], 0.0),                                                     # over MAX_WORDS: left to the verifier
    ("What is the tallest mountain in the world?", "Everest is the tallest; K2 is the second tallest.", ["Everest"], 0.0),
    ("What is the tallest mountain in the world?", "K2 is the second tallest; Everest is the tallest.", ["Everest"], 0.0),
    ("Who wrote the novel 1984?", "1984 was written by Orwell; Huxley wrote Brave New World.", ["George Orwell"], 0.0),
    ("What were walled quarters known as?", "mellahs is the answer. Let me know if you need more detail.", ["mellahs"],
     0.0),                                                          # "know" in a filler clause is not "known"
    ("Who was the first gymnast to score a perfect 10?", "Nadia Comaneci, on the bars in 1976. Nellie Kim also scored a "
     "perfect 10 later.", ["Nadia Comaneci"], 0.0),                 # the first clause's opening names the gold
    ("Who was the first gymnast to score a perfect 10?", "On the bars, Nadia Comaneci's coach watched. Nellie Kim scored "
     "the first perfect 10.", ["Nadia Comaneci"], 1.0),             # ... not where it opens with another
    ("Who performed the first heart transplant?", "Christiaan Barnard did it in Cape Town. Norman Shumway performed "
     "the first adult heart transplant in the US.", ["Christiaan Barnard"], 0.0),  # "did it": the gold answers
])
def test_misattributed(question, candidate, references, expected):
    assert misattributed(Reading(question, candidate, references)) == expected
