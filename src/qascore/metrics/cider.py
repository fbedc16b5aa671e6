"""CIDEr-D as the COCO toolkit computes it (pycocoevalcap 1.2), optionally token-weighted.

TF-IDF vectors of 1..4-grams, IDF from the document frequencies over the
references of the corpus being scored (a document = one record's reference
set), clipped cosine per n-gram order, Gaussian length penalty (sigma 6),
mean over orders and references, times 10. COCO quirks kept on purpose (they
change the numbers): the length in the penalty counts bigrams, not tokens;
n-grams unseen in the references get df 1.

Multiple references: agg='joint' is COCO's own rule (all references of a
record in one document; score averaged over them). With 'max'/'mean' (the
KPQA protocol, each reference scored separately) every reference position k
forms its own corpus: the k-th references of all records are the documents,
exactly as running COCO's Cider once per reference column; then the best (or
mean) over a record's references is kept. CIDEr depends on the whole batch.
"""

from __future__ import annotations

import math
from collections import defaultdict
from typing import Any, Hashable, Sequence

import numpy as np

from qascore.metrics.ngrams import ngram_counts, weighted_ngram_mass
from qascore.metrics.options import Option
from qascore.metrics.tokens import TokenMetric
from qascore.records import Record

N = 4


class _Vector:
    """TF-IDF vector of one text, split by n-gram order, with norms and COCO's 'length'."""

    __slots__ = ("vec", "norm", "length")

    def __init__(self, tf: dict[tuple[str, ...], float], idf: "_Idf", length: int) -> None:
        self.vec: list[dict[tuple[str, ...], float]] = [{}, {}, {}, {}]
        sq = [0.0] * N
        get, unseen, vec = idf.idf.get, idf.unseen, self.vec
        for gram, f in tf.items():
            k = len(gram) - 1
            v = float(f) * get(gram, unseen)
            vec[k][gram] = v
            sq[k] += v * v
        self.norm = [math.sqrt(x) for x in sq]
        self.length = length


class _Idf:
    """log(#documents) - log(max(1, df)) per n-gram, df over the documents' reference n-grams."""

    def __init__(self, documents: Sequence[Sequence[dict]]) -> None:
        df: dict[tuple[str, ...], float] = defaultdict(float)
        for doc in documents:
            for gram in (doc[0] if len(doc) == 1 else {g for ref in doc for g in ref}):
                df[gram] += 1
        self.log_n = float(np.log(float(len(documents)))) if documents else 0.0
        grams = list(df)
        # np.log like COCO (same ufunc, so the same bits), once per distinct n-gram.
        logs = np.log(np.maximum(1.0, np.fromiter((df[g] for g in grams), dtype=np.float64, count=len(grams))))
        self.idf = {g: self.log_n - float(x) for g, x in zip(grams, logs)}
        self.unseen = self.log_n - float(np.log(1.0))


class _Vectors:
    """TF-IDF vectors under one IDF, each distinct text computed once."""

    def __init__(self, texts: dict[Hashable, tuple[dict, int]], idf: _Idf) -> None:
        self.texts, self.idf = texts, idf
        self.cache: dict[Any, Any] = {}

    def __call__(self, key: Hashable) -> _Vector:
        v = self.cache.get(key)
        if v is None:
            tf, length = self.texts[key]
            v = self.cache[key] = _Vector(tf, self.idf, length)
        return v


def _mean(values: list[float]) -> float:
    """np.mean of a few floats, bit for bit (left-to-right sum, then divide) without numpy."""
    total = 0.0
    for v in values:
        total += v
    return total / len(values)


def _length(tokens: list[str]) -> int:
    """COCO's 'length' in the Gaussian penalty: the number of bigrams (tokens - 1), never weighted."""
    return max(0, len(tokens) - 1)


def _sim(h: _Vector, r: _Vector, sigma: float) -> list[float]:
    delta = float(h.length - r.length)
    out = []
    for k in range(N):
        val = 0.0
        rv = r.vec[k]
        for gram, x in h.vec[k].items():
            y = rv.get(gram, 0.0)
            val += min(x, y) * y
        if h.norm[k] != 0 and r.norm[k] != 0:
            val /= h.norm[k] * r.norm[k]
        val *= np.e ** (-(delta ** 2) / (2 * sigma ** 2))
        out.append(val)
    return out


class Cider(TokenMetric):
    """CIDEr-D (COCO), x10, sigma 6; corpus-dependent IDF."""

    name = "cider"
    description = "CIDEr-D as in the COCO toolkit (IDF over the scored references; max over references)"
    aggregations = ("max", "mean", "joint")
    main_part = "cider"

    @classmethod
    def option_specs(cls) -> dict[str, Option]:
        return {**super().option_specs(),
                "sigma": Option("float", 6.0, "width of CIDEr-D's Gaussian length penalty (COCO: 6)", min=1e-6)}

    def _score(self, records: Sequence[Record]) -> tuple[list[float], dict[str, list[float]]]:
        if not records:
            return [], {}
        tk = self.tokenized(records)
        sigma = float(self.options["sigma"])
        weighted = tk.cand_w is not None
        # Repeated texts (a reference shared by two systems' rows) are counted and vectorised once.
        texts: dict[Hashable, tuple[dict, int]] = {}

        def key(tokens: list[str], w: np.ndarray | None) -> Hashable:
            k = (tuple(tokens), None if w is None else w.tobytes())
            if k not in texts:
                texts[k] = (self._tf(tokens, w), _length(tokens))
            return k

        cand_w = tk.cand_w or []
        cand = [key(c, cand_w[i] if weighted else None) for i, c in enumerate(tk.cand)]
        refs_w = tk.refs_w or []  # set whenever cand_w is
        refs = [[key(r, refs_w[i][j] if weighted else None) for j, r in enumerate(rs)]
                for i, rs in enumerate(tk.refs)]
        if self.options["agg"] == "joint":
            vec = _Vectors(texts, _Idf([[texts[k][0] for k in rs] for rs in refs]))
            main = []
            for c, rs in zip(cand, refs):
                total = [0.0] * N
                for r in rs:
                    total = [t + x for t, x in zip(total, _sim(vec(c), vec(r), sigma))]
                main.append(_mean(total) / len(rs) * 10.0)
            return main, {}
        # One corpus per reference position, as COCO run once per reference column.
        per_record: list[list[dict[str, float]]] = [[] for _ in records]
        for k in range(max(len(rs) for rs in refs)):
            rows = [i for i, rs in enumerate(refs) if len(rs) > k]
            vec = _Vectors(texts, _Idf([[texts[refs[i][k]][0]] for i in rows]))
            for i in rows:
                per_record[i].append({"cider": _mean(_sim(vec(cand[i]), vec(refs[i][k]), sigma)) * 10.0})
        return [self.combine(p)["cider"] for p in per_record], {}

    def corpus_dependence(self) -> str | None:
        return ("CIDEr's IDF comes from the document frequencies of every record's references, so each "
                "score depends on the whole file (a first pass would hold every distinct n-gram)")

    @staticmethod
    def _tf(tokens: list[str], weights: np.ndarray | None) -> dict[tuple[str, ...], float]:
        if weights is None:
            return dict(ngram_counts(tokens, N))
        return weighted_ngram_mass(tokens, weights, N)[0]
