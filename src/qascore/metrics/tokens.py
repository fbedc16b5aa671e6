"""Shared plumbing of the token-level metrics: tokenise once, weigh once, aggregate references.

A `TokenMetric` tokenises every distinct text of a call once (references
repeat across records), asks its TokenWeighter for the weights of its own
tokens in one batch (`weigh_many`, each distinct (question, text) once), then
scores each candidate against each reference and combines them with
`aggregate()` ('max', the KPQA protocol, or 'mean'); metrics that support
multi-reference scoring natively also accept agg='joint'.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from qascore.metrics.base import Metric, aggregate
from qascore.metrics.options import WEIGHTS_OPTION, Option
from qascore.records import Record
from qascore.text import TOKENIZERS, tokenize_unique
from qascore.weights.base import TokenWeighter


@dataclass
class Tokenized:
    """Tokens (and weights, None when unweighted) of each record's candidate and references."""

    cand: list[list[str]]
    refs: list[list[list[str]]]
    cand_w: list[np.ndarray] | None = None
    refs_w: list[list[np.ndarray]] | None = None


class TokenMetric(Metric):
    """Base of em/f1/bleu/rougeL/meteor/cider: options tokenizer, agg, weights."""

    default_tokenizer = "ptb"
    tokenizers: tuple[str, ...] = TOKENIZERS
    aggregations: tuple[str, ...] = ("max", "mean")
    weighted = True          # whether `weights=` is supported
    # COCO's BLEU/CIDEr split the tokenised line with str.split(), so the few PTB tokens that
    # span spaces (written with U+00A0: "866 200 6020") count as several; its ROUGE-L splits
    # on " " and keeps them whole. Metrics set this to reproduce COCO to the digit.
    split_glued = True
    main_part = "score"

    @classmethod
    def option_specs(cls) -> dict[str, Option]:
        opts = {"tokenizer": Option("choice", cls.default_tokenizer, "how texts are split into tokens",
                                    choices=cls.tokenizers),
                "agg": Option("choice", "max", "several references: best (max), mean" +
                              (", or the metric's own multi-reference rule (joint)"
                               if "joint" in cls.aggregations else ""), choices=cls.aggregations)}
        if cls.weighted:
            opts["weights"] = WEIGHTS_OPTION
        return opts

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        w = self.options.get("weights")
        if w is not None and not isinstance(w, TokenWeighter):
            raise TypeError(f"{self.name}: weights must be a qascore.weights.TokenWeighter, got {type(w).__name__}")

    # -- signature ------------------------------------------------------
    def signature_fields(self) -> dict[str, Any]:
        fields: dict[str, Any] = {"tokenizer": self.options["tokenizer"], "agg": self.options["agg"]}
        if self.weighted:
            w = self.options["weights"]
            fields["weights"] = w.signature() if w is not None else "uniform"
        return fields

    # -- preparation ----------------------------------------------------
    def tokenized(self, records: Sequence[Record]) -> Tokenized:
        """Tokens of every candidate and reference, plus weights when a weighter is set."""
        texts = [r.candidate for r in records] + [ref for r in records for ref in r.references]
        toks = tokenize_unique(texts, self.options["tokenizer"])
        if self.split_glued:
            toks = [_split_glued(t) for t in toks]
        toks = self.limit_tokens(toks, records)
        cand, pos = toks[:len(records)], len(records)
        refs = []
        for r in records:
            refs.append(toks[pos:pos + len(r.references)])
            pos += len(r.references)
        out = Tokenized(cand, refs)
        weighter = self.options.get("weights")
        if weighter is not None:
            out.cand_w = weigh(weighter, [(r.question, c) for r, c in zip(records, cand)])
            flat = weigh(weighter, [(r.question, t) for r, ts in zip(records, refs) for t in ts])
            out.refs_w, pos = [], 0
            for ts in refs:
                out.refs_w.append(flat[pos:pos + len(ts)])
                pos += len(ts)
        return out

    def limit_tokens(self, toks: list[list[str]], records: Sequence[Record]) -> list[list[str]]:
        """Hook for metrics that read at most so much of a text (the KPQA tagger's cap); here: all of it.
        `toks` holds every candidate, then every reference, in record order."""
        return toks

    def combine(self, per_reference: Sequence[dict[str, float]]) -> dict[str, float]:
        return aggregate(per_reference, self.main_part, self.options["agg"])


def _split_glued(tokens: list[str]) -> list[str]:
    if all(" " not in t and "\u00a0" not in t for t in tokens):
        return tokens
    return [p for t in tokens for p in t.split()]


def weigh(weighter: TokenWeighter, items: Sequence[tuple[str, list[str]]]) -> list[np.ndarray]:
    """Weights for each (question, tokens), each distinct pair computed once, lengths checked."""
    keys = [(q, tuple(t)) for q, t in items]
    unique = list(dict.fromkeys(keys))
    got = weighter.weigh_many([(q, list(t)) for q, t in unique])
    if len(got) != len(unique):
        raise RuntimeError(f"weighter '{weighter.signature()}' returned {len(got)} arrays for {len(unique)} texts")
    table = {}
    for key, w in zip(unique, got):
        w = np.asarray(w, dtype=np.float64)
        if w.shape != (len(key[1]),):
            raise RuntimeError(f"weighter '{weighter.signature()}' returned {w.shape} weights "
                               f"for {len(key[1])} tokens")
        if np.any(~np.isfinite(w)) or np.any(w < 0):
            raise RuntimeError(f"weighter '{weighter.signature()}' returned negative or non-finite weights")
        table[key] = w
    return [table[k] for k in keys]
