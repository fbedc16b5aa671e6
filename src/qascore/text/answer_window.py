"""The part of a passage around an answer: what `answerability`'s `focus` option reads.

A question generated for an answer is usually answered by the sentences around that answer, so reading
only those words is faster (the reader's cost grows with the WordPieces it reads). Pure string work; the
tests are tables of inputs and outputs.
"""

from __future__ import annotations


def answer_window(passage: str, answer: str | None, words: int) -> str:
    """`words` whitespace-separated words of `passage` centred on the first occurrence of `answer` (exact,
    else ignoring case), moved inward at the passage's ends. The passage unchanged (its own spacing) when
    it is no longer than `words`, when there is no answer, or when the answer does not occur in it."""
    tokens = passage.split()
    if not answer or len(tokens) <= words:
        return passage
    at = passage.find(answer)
    if at < 0:
        at = passage.lower().find(answer.lower())
    if at < 0:
        return passage
    first = len(passage[:at].split())
    if at and not passage[at - 1].isspace() and first:
        first -= 1   # the answer starts inside a word ("(1169)"): that word is the answer's first
    span = max(1, len(answer.split()))
    start = max(0, min(first - max(0, words - span) // 2, len(tokens) - words))
    return " ".join(tokens[start:start + words])
