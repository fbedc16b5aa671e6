"""Reading a long candidate in overlapping windows, for cross-encoders with a fixed input length.

A verifier reads (question, reference, candidate) in at most `max_len` WordPieces. A paragraph answer
does not fit, and cutting it would hide its second half (where an LLM often states the answer). The
candidate is therefore split, at word boundaries, into windows that each fit beside the question and the
reference, every window starting halfway through the previous one; the caller scores each window and
keeps the most confident one. At most `max_windows` windows are read, which bounds the cost of one
record; what lies beyond them is reported as truncated.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from typing import Any

MAX_WINDOWS = 16
WORD_CHARS = 100  # BERT WordPiece's max_input_chars_per_word: a longer word is one [UNK]


def max_word_chars(tokenizer: Any) -> int:
    """The longest word the tokenizer splits into pieces rather than reading as [UNK]."""
    model = getattr(getattr(tokenizer, "backend_tokenizer", None), "model", None)
    for owner in (model, tokenizer, getattr(tokenizer, "wordpiece_tokenizer", None)):
        n = getattr(owner, "max_input_chars_per_word", None)
        if isinstance(n, int) and n > 0:
            return n
    return WORD_CHARS


def read_words(tokenizer: Any, text: str, cap: int) -> tuple[list[str], bool]:
    """(the first `cap` words of `text` as the verifier reads them, whether more followed).

    A word longer than the tokenizer reads (a DNA string, a hash, an identifier over 100 characters) is cut
    into pieces it does read, so it costs WordPieces of its own instead of one [UNK] that matches anything
    unknown: the same long word in the candidate and the reference then reads the same. Every word is at
    least one WordPiece, so `cap` words hold every piece a window of `cap` can keep, and a 200,000-word
    text (or one word of a million characters) costs what a short one does.
    """
    limit = max_word_chars(tokenizer)
    out: list[str] = []
    for word in text.split():
        for start in range(0, len(word), limit):
            if len(out) == cap:
                return out, True
            out.append(word[start:start + limit])
    return out, False


def split_long_words(tokenizer: Any, text: str) -> tuple[str, list[int]]:
    """(`text` with its words over the tokenizer's limit cut as `read_words` cuts them, by a space every
    `max_word_chars` characters; where those spaces stand in the new text, ascending). A text without
    such a word comes back as it is, so every other text tokenises exactly as before. For models that read a
    whole text (BERTScore, the KPQA tagger, the answerability reader): the same long word in two texts then
    reads the same, where one [UNK] each would match any other unknown word (issue 64)."""
    limit = max_word_chars(tokenizer)
    if len(text) <= limit:
        return text, []
    parts: list[str] = []
    added: list[int] = []
    last = 0
    for begin, end in long_words(tokenizer, text):
        for cut in range(begin + limit, end, limit):
            parts.append(text[last:cut])
            added.append(cut + len(added))
            last = cut
    if not added:
        return text, []
    parts.append(text[last:])
    return " ".join(parts), added


def long_words(tokenizer: Any, text: str) -> list[tuple[int, int]]:
    """The [start, end) spans of `text`'s words that `split_long_words` cuts."""
    return [m.span() for m in re.finditer(rf"\S{{{max_word_chars(tokenizer) + 1},}}", text)]


def original_span(start: int, end: int, added: list[int]) -> tuple[int, int]:
    """A character span [start, end) of `split_long_words`'s text as a span of the text it was given."""
    return start - bisect_left(added, start), end - bisect_left(added, end)


def candidate_windows(tokenizer: Any, question: str, reference: str, candidate: str, max_len: int,
                      max_windows: int = MAX_WINDOWS) -> tuple[list[str], bool]:
    """(windows of the candidate, whether some of it was left unread).

    A candidate with no WordPiece the model knows (emoji, characters outside the vocabulary: all [UNK]) has
    no window: a verifier shown nothing else scores unknown tokens as if they answered the question
    (lab/results/judge.md). A word over the tokenizer's 100 characters is read in pieces (`read_words`). A
    candidate that fits whole is one window, itself.
    Otherwise each window holds as many whole words as fit in the room the question and reference leave (at
    least half of `max_len`), and the next window starts halfway through it.
    """
    fixed = _pieces(tokenizer, question, max_len) + _pieces(tokenizer, reference, max_len) + 3
    room = max(max_len // 2, max_len - fixed)
    words, beyond = read_words(tokenizer, candidate, room * (max_windows + 1))  # a word is at least one piece
    if not words:
        return [candidate], False
    # Each word on its own (WordPiece splits a word the same in or out of context): no sequence-length limit.
    pieces = tokenizer(words, add_special_tokens=False)["input_ids"]
    unk = getattr(tokenizer, "unk_token_id", None)  # None for a tokenizer without one: nothing is unknown
    if all(i == unk for ids in pieces for i in ids):
        return [], False
    counts = [len(ids) for ids in pieces]
    if sum(counts) <= room:
        return [candidate], False
    out: list[str] = []
    start, end = 0, 0
    while start < len(words) and len(out) < max_windows:
        end, used = start, 0
        while end < len(words) and used + counts[end] <= room:
            used += counts[end]
            end += 1
        end = max(end, start + 1)
        out.append(" ".join(words[start:end]))
        if end >= len(words):
            break
        start += max(1, (end - start) // 2)
    return out, end < len(words) or beyond


def _pieces(tokenizer: Any, text: str, cap: int) -> int:
    """WordPieces of `text`, counted only up to about `cap` (a word is at least one piece), so a huge
    reference costs no more than a short one."""
    return len(tokenizer.encode(" ".join(read_words(tokenizer, text, cap)[0]), add_special_tokens=False))
