"""Number-swap negatives: which rows get a twin, and what the twin's number may be."""

import random
import re

import pytest

from qascore_lab.train.number_swaps import perturb, swap_pairs


def row(question, references, candidate, label=1, id="train-0"):
    return {"qid": "q", "source": "squad11", "kind": "squad", "question": question, "references": references,
            "negatives": ["x"], "candidate": candidate, "label": label, "id": id}


@pytest.mark.parametrize("number, low, high", [("1989", 1974, 2004), ("7", 2, 12), ("250", 100, 450)])
def test_perturb_changes_an_integer_within_its_range(number, low, high):
    for seed in range(50):
        new = perturb(number, random.Random(seed))
        assert new != number and low <= int(new) <= high


def test_perturb_keeps_the_shape_of_decimals_and_thousands():
    for seed in range(20):
        dec = perturb("26.2", random.Random(seed))
        assert dec[:3] == "26." and len(dec) == 4 and dec != "26.2"
        big = perturb("12,000", random.Random(seed))
        assert "," in big and big != "12,000" and 4_800 <= int(big.replace(",", "")) <= 21_600


def test_a_correct_answer_to_a_number_question_gets_an_incorrect_twin():
    [(pos, neg)] = swap_pairs([row("When did the Berlin Wall fall?", ["1989"], "It fell in 1989, in November.")],
                              random.Random(0))
    assert pos["label"] == 1 and neg["label"] == 0
    assert neg["source"] == neg["kind"] == "numswap" and neg["id"] == "train-0-ns" and neg["negatives"] == []
    year = neg["candidate"].removeprefix("It fell in ").removesuffix(", in November.")
    assert year != "1989" and 1974 <= int(year) <= 2004


@pytest.mark.parametrize("r", [
    row("Who painted the ceiling in 1512?", ["Michelangelo"], "Michelangelo, in 1512."),    # not a number question
    row("When did the Berlin Wall fall?", ["1989"], "It fell in 1989.", label=0),           # not a correct row
    row("When did the Berlin Wall fall?", ["1989"], "It fell in the late eighties."),       # no shared number
    row("How many moons has Mars?", ["2"], "Mars has 12 moons."),                           # 2 is not inside 12
])
def test_rows_without_a_shared_number_answer_get_none(r):
    assert swap_pairs([r], random.Random(0)) == []


def test_every_occurrence_is_changed_and_other_numbers_stay():
    [(_, neg)] = swap_pairs([row("In what year did it open?", ["1889"], "Opened in 1889 (1889 in some books), 300 m tall.")],
                            random.Random(1))
    years = re.findall(r"\d{4}", neg["candidate"])
    assert len(years) == 2 and years[0] == years[1] != "1889" and "300 m" in neg["candidate"]
