"""The weighting interface and the uniform default."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Sequence

import numpy as np


class TokenWeighter(ABC):
    """Gives each token of a text a non-negative importance, possibly question-aware.

    `tokens` are the consumer's own tokens of the text (PTB words for the
    lexical metrics, WordPieces for BERTScore): the weighter adapts to them,
    never the other way round. `weigh_many` lets model-based weighters batch.
    """

    name: str = "weighter"

    @abstractmethod
    def weigh(self, question: str, tokens: Sequence[str]) -> np.ndarray:
        ...

    def weigh_many(self, items: Sequence[tuple[str, Sequence[str]]]) -> list[np.ndarray]:
        return [self.weigh(q, t) for q, t in items]

    def signature(self) -> str:
        return self.name


class UniformWeighter(TokenWeighter):
    """Every token weighs 1: the classic, unweighted metrics."""

    name = "uniform"

    def weigh(self, question: str, tokens: Sequence[str]) -> np.ndarray:
        return np.ones(len(tokens), dtype=np.float64)
