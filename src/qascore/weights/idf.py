"""Inverse document frequency as a TokenWeighter.

IDF is computed from a corpus of tokenized documents (for BERTScore, the
references of the data being scored, as bert_score does):
idf(t) = log((M + 1) / (df(t) + 1)) with M documents and df(t) the number of
documents containing t; a token never seen gets log(M + 1). Tokens are
whatever the consumer uses (WordPieces for BERTScore, words for lexical
metrics); the weighter only counts and looks up strings.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Iterable, Mapping, Sequence

import numpy as np

from qascore.weights.base import TokenWeighter


class IdfWeighter(TokenWeighter):
    """Plus-one smoothed IDF; question-independent."""

    name = "idf"

    def __init__(self, doc_freq: Mapping[str, int], num_docs: int) -> None:
        if num_docs < 0:
            raise ValueError("num_docs must be >= 0")
        self.doc_freq = dict(doc_freq)
        self.num_docs = num_docs
        self.unseen = math.log(num_docs + 1)

    @classmethod
    def from_documents(cls, documents: Iterable[Sequence[str]]) -> "IdfWeighter":
        """Count each distinct token once per document."""
        df: Counter[str] = Counter()
        n = 0
        for doc in documents:
            df.update(set(doc))
            n += 1
        return cls(df, n)

    def idf(self, token: str) -> float:
        c = self.doc_freq.get(token)
        return self.unseen if c is None else math.log((self.num_docs + 1) / (c + 1))

    def weigh(self, question: str, tokens: Sequence[str]) -> np.ndarray:
        return np.array([self.idf(t) for t in tokens], dtype=np.float64)

    def signature(self) -> str:
        return f"idf(docs={self.num_docs})"
