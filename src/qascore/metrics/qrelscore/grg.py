"""QRel_GRG (paper section 2.2, eqs. 6-9): how much a question, used as a prompt, helps a causal LM generate the context.

Conf_base = sum_n log p(c_n | s0, c_<n), Conf_prompt = sum_n log p(c_n | s0, x, c_<n);
GRG = max((Conf_prompt - Conf_base) / |Conf_base|, 0). Both sums run over the
same context token ids, so the only difference between the two passes is the
prompt. The absolute variant (Table 3, M9) is max(Conf_prompt - Conf_base, 0).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

GAINS = ("relative", "absolute")


def confidence_gain(conf_prompt: float, conf_base: float, gain: str = "relative") -> float:
    """Eq. 9 (relative) or M9 (absolute), clipped at 0."""
    if gain == "relative":
        if conf_base == 0:
            return 0.0
        value = (conf_prompt - conf_base) / abs(conf_base)
    elif gain == "absolute":
        value = conf_prompt - conf_base
    else:
        raise ValueError(f"gain must be one of {GAINS}, got '{gain}'")
    return max(float(value), 0.0)


def context_confidence(logprobs: np.ndarray, n_context: int) -> float:
    """Sum of the log-probabilities of the last `n_context` tokens (the context's)."""
    if n_context <= 0:
        return 0.0
    return float(np.sum(logprobs[-n_context:]))


def base_sequence(bos: int, chunk: Sequence[int]) -> list[int]:
    return [bos, *chunk]


def prompted_sequence(bos: int, question: Sequence[int], chunk: Sequence[int]) -> list[int]:
    return [bos, *question, *chunk]
