"""Text normalisation and tokenisation, one rule in one place.

Tokenizers by name (the name goes into metric signatures):
- "ptb": pure-Python PTB tokenizer matching COCO's (lower-cased, punctuation dropped); default
  of the COCO metrics (BLEU, ROUGE-L, METEOR, CIDEr).
- "ptb-java": the Stanford PTBTokenizer 3.4.1 jar itself, as pycocoevalcap runs it (needs Java
  and pycocoevalcap); exact by construction.
- "squad": SQuAD answer normalisation then white-space split (EM, token F1).
- "whitespace": str.split(), for text that is already tokenised.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Callable, Sequence

from qascore.text.ptb import PUNCTUATION, drop_punctuation, ptb_tokens, tokenize
from qascore.text.squad import normalize_answer, squad_tokens

TOKENIZERS = ("ptb", "ptb-java", "squad", "whitespace")


# Several metrics on the same data tokenise the same texts: remember recent ones per process.
@lru_cache(maxsize=1 << 17)
def _ptb_cached(text: str) -> tuple[str, ...]:
    return tuple(tokenize(text))


def clear_cache() -> None:
    """Forget cached tokenisations (benchmarks time cold runs with this)."""
    _ptb_cached.cache_clear()


def get_tokenizer(name: str) -> Callable[[Sequence[str]], list[list[str]]]:
    """A batch tokenizer (list of texts -> list of token lists) by name."""
    if name == "ptb-java":
        from qascore.text.ptb_java import tokenize_java
        return tokenize_java
    one: dict[str, Callable[[str], list[str]]] = {"ptb": lambda t: list(_ptb_cached(t)), "squad": squad_tokens,
                                                  "whitespace": str.split}
    if name not in one:
        raise ValueError(f"unknown tokenizer '{name}' (choose from {', '.join(TOKENIZERS)})")
    return lambda texts: [one[name](t) for t in texts]


def tokenize_unique(texts: Sequence[str], name: str) -> list[list[str]]:
    """Tokenise a batch, each distinct text once (references repeat across records)."""
    uniq = list(dict.fromkeys(texts))
    toks = dict(zip(uniq, get_tokenizer(name)(uniq)))
    return [toks[t] for t in texts]


__all__ = ["TOKENIZERS", "clear_cache", "PUNCTUATION", "get_tokenizer", "tokenize_unique", "tokenize", "ptb_tokens",
           "drop_punctuation", "normalize_answer", "squad_tokens"]
