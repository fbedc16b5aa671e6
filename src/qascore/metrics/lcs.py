"""Longest common subsequence: a bit-parallel length (fast path) and a weighted variant.

`lcs_length` uses the bit-vector recurrence of Allison & Dix (1986) / Hyyro
(2004) on Python integers: one pass over `a` with a few big-int operations
per token, instead of the len(a) x len(b) table.

`lcs_weights` returns, for an LCS, the summed weights of its tokens on each
side. Among all longest common subsequences it takes the one with the largest
total weight (candidate side + reference side), so ties are resolved in the
texts' favour and deterministically; with all weights 1 it returns the LCS
length twice.
"""

from __future__ import annotations

from typing import Any, Sequence


def lcs_length(a: Sequence[str], b: Sequence[str]) -> int:
    """Length of the longest common subsequence of two token lists."""
    if not a or not b:
        return 0
    masks: dict[str, int] = {}
    for j, tok in enumerate(b):
        masks[tok] = masks.get(tok, 0) | (1 << j)
    full = (1 << len(b)) - 1
    v = full
    for tok in a:
        m = masks.get(tok)
        if m:
            u = v & m
            v = ((v + u) | (v - u)) & full
    return len(b) - bin(v).count("1")


def lcs_weights(a: Sequence[str], b: Sequence[str], wa: Sequence[float] | Any,
                wb: Sequence[float] | Any) -> tuple[int, float, float]:
    """(length, weight of the LCS tokens in a, weight in b) for the heaviest longest common subsequence."""
    n, m = len(a), len(b)
    if not n or not m:
        return 0, 0.0, 0.0
    # Each cell holds (length, total weight, weight in a, weight in b); compared on (length, total).
    prev = [(0, 0.0, 0.0, 0.0)] * (m + 1)
    for i in range(1, n + 1):
        cur = [(0, 0.0, 0.0, 0.0)] * (m + 1)
        ai, wai = a[i - 1], float(wa[i - 1])
        for j in range(1, m + 1):
            up, left = prev[j], cur[j - 1]
            best = up if (up[0], up[1]) >= (left[0], left[1]) else left
            if ai == b[j - 1]:
                d = prev[j - 1]
                wbj = float(wb[j - 1])
                diag = (d[0] + 1, d[1] + wai + wbj, d[2] + wai, d[3] + wbj)
                if (diag[0], diag[1]) >= (best[0], best[1]):
                    best = diag
            cur[j] = best
        prev = cur
    length, _, sa, sb = prev[m]
    return length, sa, sb
