"""Batching helpers shared by every model runner: de-duplication, length-sorted batches, the CPU token cap.

Sorting by length keeps padding (wasted compute) small; de-duplication means
a reference shared by many candidates, or a candidate repeated across
systems, is encoded once.
"""

from __future__ import annotations

from typing import Hashable, Sequence, TypeVar

K = TypeVar("K", bound=Hashable)


# Padded tokens per encoder and keyphrase-tagger batch on a CPU. Larger batches (64 short texts) allocated
# their attention maps and feed-forward states in fresh pages every batch and ran 1.4-2.3x slower on
# 2 cores (lab/results/speed.md); GPUs keep large batches.
CPU_BATCH_TOKENS = 1024


def token_cap(device: str, elsewhere: int | None) -> int | None:
    """Padded tokens per batch for a model on `device`: CPU_BATCH_TOKENS on a CPU, `elsewhere` otherwise."""
    return CPU_BATCH_TOKENS if str(device).startswith("cpu") else elsewhere


def dedup(items: Sequence[K]) -> tuple[list[K], list[int]]:
    """Distinct items in first-seen order, and for each input the index of its distinct item."""
    index: dict[K, int] = {}
    where = [index.setdefault(x, len(index)) for x in items]
    return list(index), where


def length_batches(lengths: Sequence[int], batch_size: int, max_tokens: int | None = None) -> list[list[int]]:
    """Indices grouped into batches of similar length, longest first.

    A batch holds at most `batch_size` items and, when `max_tokens` is given,
    at most that many padded tokens (an over-long single item still gets its
    own batch).
    """
    if batch_size < 1:
        raise ValueError("batch_size must be >= 1")
    order = sorted(range(len(lengths)), key=lambda i: (-lengths[i], i))
    batches: list[list[int]] = []
    current: list[int] = []
    for i in order:
        width = lengths[current[0]] if current else lengths[i]  # longest first: the first item sets the width
        full = len(current) >= batch_size or (max_tokens is not None and (len(current) + 1) * width > max_tokens)
        if current and full:
            batches.append(current)
            current = []
        current.append(i)
    if current:
        batches.append(current)
    return batches
