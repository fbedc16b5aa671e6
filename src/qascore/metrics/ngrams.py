"""N-gram counting and the COCO BLEU arithmetic, with optional per-token weights.

Weights generalise counts: an n-gram occurrence weighs the mean of its
tokens' weights, an n-gram type weighs the sum over its occurrences. With all
weights 1 every formula below reduces to the count-based original exactly
(sums of 1.0 are exact integers), so uniform weights reproduce COCO to the bit.
"""

from __future__ import annotations

import math
from collections import Counter
from functools import lru_cache
from typing import Sequence

import numpy as np

# pycocoevalcap's BLEU smoothing constants (kept so per-sentence scores match it exactly).
TINY = 1e-15
SMALL = 1e-9

NgramCounts = dict[tuple[str, ...], float]


def ngram_counts(tokens: Sequence[str], n: int) -> Counter:
    """Counts of every k-gram, 1 <= k <= n."""
    grams: list[tuple[str, ...]] = []
    for k in range(1, n + 1):
        grams.extend(zip(*[tokens[i:] for i in range(k)]))
    return Counter(grams)


def weighted_ngram_mass(tokens: Sequence[str], weights: np.ndarray, n: int) -> tuple[NgramCounts, list[float]]:
    """Per k-gram type, the summed weight of its occurrences (occurrence weight = mean token weight);
    and per k, the total weight of the text's k-grams."""
    w = [float(x) for x in weights]
    mass: dict[tuple[str, ...], float] = {}
    totals = []
    for k in range(1, n + 1):
        total = 0.0
        for i in range(len(tokens) - k + 1):
            gram = tuple(tokens[i:i + k])
            occ = w[i] if k == 1 else sum(w[i:i + k]) / k
            mass[gram] = mass.get(gram, 0.0) + occ
            total += occ
        totals.append(total)
    return mass, totals


def closest_ref_length(test_len: int, ref_lens: Sequence[int]) -> int:
    """COCO's 'closest' effective reference length (ties go to the shorter reference)."""
    return min((abs(r - test_len), r) for r in ref_lens)[1]


def bleu_from_stats(correct: Sequence[float], guess: Sequence[float], test_len: int, ref_len: int) -> list[float]:
    """COCO's per-sentence BLEU-1..n: smoothed geometric means and its brevity penalty."""
    scores, bleu = [], 1.0
    for k in range(len(correct)):
        bleu *= (float(correct[k]) + TINY) / (float(guess[k]) + SMALL)
        scores.append(bleu ** (1.0 / (k + 1)))
    ratio = (test_len + TINY) / (ref_len + SMALL)
    if ratio < 1:
        bp = math.exp(1 - 1 / ratio)
        scores = [s * bp for s in scores]
    return scores


def bleu_sentence(cand: Sequence[str], refs: Sequence[Sequence[str]], n: int) -> list[float]:
    """Unweighted COCO BLEU-1..n of one candidate against its reference set (clipped by the
    per-n-gram maximum over references, 'closest' reference length).

    BLEU-k depends only on the first k orders, so all four are computed together and
    remembered: bleu1..bleu4 on the same data count n-grams once.
    """
    if n > MAX_N:
        return _bleu_sentence(tuple(cand), tuple(map(tuple, refs)), n)
    return list(_bleu_cached(tuple(cand), tuple(map(tuple, refs)))[:n])


MAX_N = 4


@lru_cache(maxsize=1 << 16)
def _bleu_cached(cand: tuple[str, ...], refs: tuple[tuple[str, ...], ...]) -> tuple[float, ...]:
    return tuple(_bleu_sentence(cand, refs, MAX_N))


def clear_cache() -> None:
    """Forget remembered BLEU statistics (benchmarks time cold runs with this)."""
    _bleu_cached.cache_clear()


def _bleu_sentence(cand: tuple[str, ...], refs: tuple[tuple[str, ...], ...], n: int) -> list[float]:
    counts = ngram_counts(cand, n)
    if len(refs) == 1:
        ref_max = ngram_counts(refs[0], n)
    else:
        ref_max = Counter()
        for ref in refs:
            for gram, c in ngram_counts(ref, n).items():
                if c > ref_max[gram]:
                    ref_max[gram] = c
    correct = [0] * n
    for gram, c in counts.items():
        r = ref_max.get(gram)
        if r:
            correct[len(gram) - 1] += c if c < r else r
    test_len = len(cand)
    guess = [max(0, test_len - k) for k in range(n)]
    return bleu_from_stats(correct, guess, test_len, closest_ref_length(test_len, [len(r) for r in refs]))


def bleu_sentence_weighted(cand: Sequence[str], cand_w: np.ndarray, refs: Sequence[Sequence[str]],
                           n: int) -> list[float]:
    """BLEU-1..n with candidate weights: clipped matched weight / candidate weight per order.

    Clipping keeps min(c, r) of a type's c occurrences, each at the type's mean
    occurrence weight; the brevity penalty stays on token counts (as KPQA's code).
    """
    mass, totals = weighted_ngram_mass(cand, cand_w, n)
    counts = ngram_counts(cand, n)
    ref_max: Counter = Counter()
    for ref in refs:
        for gram, c in ngram_counts(ref, n).items():
            if c > ref_max[gram]:
                ref_max[gram] = c
    correct = [0.0] * n
    for gram, c in counts.items():
        r = ref_max.get(gram, 0)
        if r:
            correct[len(gram) - 1] += mass[gram] * min(c, r) / c
    test_len = len(cand)
    return bleu_from_stats(correct, totals, test_len, closest_ref_length(test_len, [len(r) for r in refs]))
