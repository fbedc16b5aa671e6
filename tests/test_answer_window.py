"""text.answer_window: the words around an answer that `answerability:focus=N` reads (hand-made table)."""

from __future__ import annotations

import pytest

from qascore.text.answer_window import answer_window

TEN = "a b c d e f g h i j"


@pytest.mark.parametrize("passage, answer, words, want", [
    (TEN, "e", 4, "d e f g"),             # centred: (4 - 1) // 2 = 1 word before, 2 after
    (TEN, "e f", 4, "d e f g"),           # (4 - 2) // 2 = 1 word before
    (TEN, "a", 4, "a b c d"),             # at the start: moved inward
    (TEN, "j", 4, "g h i j"),             # at the end: moved inward
    (TEN, "E F", 4, "d e f g"),           # case ignored when the exact answer is absent
    (TEN, "e f g", 2, "e f"),             # an answer longer than the window: its first words
    (TEN, "x", 4, TEN),                   # not found: whole passage
    (TEN, None, 4, TEN),                  # no answer: whole passage
    (TEN, "", 4, TEN),
    (TEN, "e", 10, TEN),                  # no longer than the window: unchanged
    ("a  b\nc", "b", 5, "a  b\nc"),       # unchanged keeps its own spacing
    ("a b (c) d e f", "c", 2, "(c) d"),   # the answer inside a word: that word counts as its first
    ("x y a b a b z", "a b", 2, "a b"),   # the first occurrence
])
def test_answer_window(passage, answer, words, want):
    assert answer_window(passage, answer, words) == want
