"""SQuAD answer normalisation (the official evaluation script's rules) for EM and token F1.

Lower-case, drop ASCII punctuation, drop the articles a/an/the, collapse white space.
"""

from __future__ import annotations

import re
import string

_PUNCT = frozenset(string.punctuation)
_ARTICLES = re.compile(r"\b(a|an|the)\b")


def normalize_answer(text: str) -> str:
    """The SQuAD v1.1/v2.0 normalisation of an answer string."""
    text = "".join(ch for ch in text.lower() if ch not in _PUNCT)
    text = _ARTICLES.sub(" ", text)
    return " ".join(text.split())


def squad_tokens(text: str) -> list[str]:
    """Tokens for SQuAD token F1: the normalised answer split on white space."""
    return normalize_answer(text).split()
