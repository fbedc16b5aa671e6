"""The judge's model of one name spelled otherwise (`metrics.spellings`): the letter alignment against hand-worked
Levenshtein alignments, the words it reads at all, then the shipped model on spellings and look-alikes, and the
aliases it lets the judge add."""

from __future__ import annotations

import json

import pytest

from qascore.metrics import spellings
from qascore.metrics.aliases import in_candidate_form, respelled

# (a, b, the edits of a cheapest alignment, worked by hand: its length is the Levenshtein distance)
EDITS = [
    ("colour", "color", ["+u"]),                    # one letter more
    ("caernarvon", "caernarfon", ["f>v"]),          # one replaced; the pair written in sorted order
    ("caernarfon", "caernarvon", ["f>v"]),          # the same, whichever word comes first
    ("tupaia", "tupia", ["+a"]),
    ("sagbut", "sackbut", ["+c", "g>k"]),           # distance 2: "c" more, then "k" for "g" (ties go back diagonally)
    ("kitten", "sitting", ["k>s", "e>i", "+g"]),    # the textbook case: distance 3
    ("same", "same", []),
]


@pytest.mark.parametrize("a, b, ops", EDITS)
def test_edits_are_a_cheapest_alignment(a: str, b: str, ops: list[str]) -> None:
    assert spellings.edits(a, b) == ops


# (a, b, whether the model reads the pair at all)
COMPARABLE = [
    ("caernarvon", "caernarfon", True),
    ("iran", "iraq", False),                        # shorter than MIN_LETTERS
    ("sublimation", "desublimation", False),        # a prefix makes another word
    ("germany", "germanic", False),                 # one stem, two English endings
    ("palynology", "palynologist", False),
    ("ganymed", "ganymede", True),                  # a final "e" is no English ending
    ("cells", "cellulose", False),                  # lengths too far apart
    ("madrid", "madrid", False),                    # the same word
    ("1968a", "1969a", False),                      # letters only
]


@pytest.mark.parametrize("a, b, expected", COMPARABLE)
def test_comparable(a: str, b: str, expected: bool) -> None:
    assert spellings.comparable(a, b) is expected


def test_skeleton_keeps_consonants_once() -> None:
    assert spellings.skeleton("tupaia") == "tp"
    assert spellings.skeleton("chukka") == "chk"


def test_model_reads_a_table_written_here(tmp_path) -> None:
    """The probability is the logistic of bias + weights . features, the features as `features` gives them."""
    model = {"weights": [0, 0, 0, 0, 0, 0, 0, 0, 0], "bias": 0.0, "threshold": 0.5, "unseen": -1.0, "costs": {}}
    path = tmp_path / "m.json"
    path.write_text(json.dumps(model))
    assert spellings.probability("colour", "color", str(path)) == pytest.approx(0.5)
    model["weights"][0] = 1.0  # cost_sum alone: one unseen edit, -1
    path2 = tmp_path / "m2.json"
    path2.write_text(json.dumps(model))
    assert spellings.probability("colour", "color", str(path2)) == pytest.approx(1 / (1 + 2.718281828459045))
    assert spellings.features("colour", "color", {"+u": 2.0}, -1.0) == [2.0, 2.0, 1.0, 1 / 6, 1.0, 1.0, 5.0, 1.0, 1.0]


# the shipped model: spellings of one name, and names of two things that look alike
SPELLED = [("caernarvon", "caernarfon"), ("tschaikowsky", "tchaikovsky"), ("barkhan", "barchan"), ("tupia", "tupaia"),
           ("lobatschewsky", "lobachevsky"), ("shinbashi", "shimbashi"), ("dmitry", "dmitri")]
APART = [("eliel", "eero"), ("xiuhmolpilli", "xiuhpohualli"), ("slovenia", "slovakia"), ("bolivia", "olivia"),
         ("mauritania", "mauritius"), ("carpathian", "caspian"), ("stephen", "steven")]


@pytest.mark.parametrize("a, b", SPELLED)
def test_shipped_model_reads_spellings(a: str, b: str) -> None:
    assert spellings.spelled(a, b)


@pytest.mark.parametrize("a, b", APART)
def test_shipped_model_keeps_look_alikes_apart(a: str, b: str) -> None:
    assert not spellings.spelled(a, b)


def test_respelled_finds_the_run_of_words() -> None:
    assert respelled("cordillera huayhuash", " the cordillera huayhuash ") == ()       # as written: nothing to add
    assert respelled("caernarfon castle", " caernarvon castle is ") == ("caernarvon castle",)
    assert respelled("caernarfon castle", " caernarvon palace is ") == ()             # every word must agree
    assert respelled("coma pedrosa", " comapedrosa at 2942 m ") == ("comapedrosa",)    # its words written as one
    assert respelled("al ba", " alba ") == ()                                          # ... from JOINED letters
    assert respelled("robertbrowning", " robert browning wrote it ") == ("robert browning",)  # one word as two
    assert respelled("bayinnaung", " bayin naung the king ") == ("bayin naung",)
    assert respelled("alba", " al ba ") == ()                                          # ... from JOINED letters


# (question, candidate, references, the references the judge adds)
ADDED = [
    ("Name the four castles.", "Caernarvon, Conway, Harlech and Beaumaris.", ["Beaumaris, Caernarfon, Conwy and Harlech"],
     [(0, "Beaumaris, caernarvon, conway, Harlech")]),
    ("What is the dune called?", "A barkhan dune.", ["barchan"], [(0, "barkhan")]),
    ("Which country?", "Austria.", ["Australia"], []),     # the tables know both, as two countries
    ("Which country?", "Niger.", ["Nigeria"], []),         # an English ending ("-ia") makes another name
]


@pytest.mark.parametrize("question, candidate, references, expected", ADDED)
def test_aliases_add_the_answer_s_spelling(question: str, candidate: str, references: list[str], expected) -> None:
    assert in_candidate_form(question, candidate, references) == expected
