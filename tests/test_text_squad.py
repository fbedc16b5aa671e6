"""SQuAD answer normalisation: the official script's four rules, hand-written cases."""

import pytest

from qascore.text import normalize_answer, squad_tokens


@pytest.mark.parametrize("text,expected", [
    ("The Cat", "cat"),
    ("  a  dog,  an apple; the end. ", "dog apple end"),
    ("Theatre", "theatre"),            # articles only as whole words
    ("U.S.A.", "usa"),
    ("rock 'n' roll!", "rock n roll"),
    ("", ""),
    ("the a an", ""),
    ("Tab\tand\nnewline", "tab and newline"),
])
def test_normalize_answer(text, expected):
    assert normalize_answer(text) == expected


def test_squad_tokens():
    assert squad_tokens("The quick, brown fox.") == ["quick", "brown", "fox"]


def test_squad_em_and_f1_by_hand():
    from qascore.text.squad import squad_em, squad_f1

    assert squad_em("The Eiffel Tower!", "eiffel tower") == 1.0 and squad_em("Eiffel", "eiffel tower") == 0.0
    # "eiffel tower in paris" vs "eiffel tower": p = 2/4, r = 1, F1 = 2/3
    assert squad_f1("Eiffel Tower in Paris", "the Eiffel Tower") == pytest.approx(2 / 3)
    assert squad_f1("a", "the") == 1.0 and squad_f1("", "x") == 0.0   # both empty after normalisation: 1
    assert squad_f1("x x y", "x y y") == pytest.approx(2 / 3)          # bag counts: common = 1 x + 1 y
