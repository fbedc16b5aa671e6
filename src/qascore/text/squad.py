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


def squad_em(prediction: str, gold: str) -> float:
    """The official script's exact match: 1.0 when the normalised strings are equal."""
    return float(normalize_answer(prediction) == normalize_answer(gold))


def squad_f1(prediction: str, gold: str) -> float:
    """The official script's token F1 (bag of normalised tokens); both empty scores 1, one empty 0."""
    from collections import Counter

    pred, ref = squad_tokens(prediction), squad_tokens(gold)
    if not pred or not ref:
        return float(pred == ref)
    common = sum((Counter(pred) & Counter(ref)).values())
    if common == 0:
        return 0.0
    p, r = common / len(pred), common / len(ref)
    return 2 * p * r / (p + r)
