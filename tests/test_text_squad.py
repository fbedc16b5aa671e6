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
