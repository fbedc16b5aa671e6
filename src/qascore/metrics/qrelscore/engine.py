"""Raw (unrescaled) LRM and GRG for lists of (question, context) pairs: tokenising, chunking, de-duplication, batching.

Long contexts are never truncated: a context that does not fit the model's
limit together with the question is cut into the fewest chunks that fit (of
near-equal size), each chunk is scored with the question, and the chunk scores
are averaged (paper section 3). Identical (question, chunk) inputs and
identical context-only LM passes are computed once.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from qascore.metrics.qrelscore import grg as grg_mod
from qascore.metrics.qrelscore import lrm as lrm_mod
from qascore.runtime import defaults


class QuestionTooLong(ValueError):
    """A question that leaves no room for context inside the model limit."""

    def __init__(self, index: int, n_tokens: int, limit: int) -> None:
        self.index = index
        super().__init__(f"question has {n_tokens} tokens; the model limit is {limit}, "
                         f"which leaves too little room for the context")


def chunk(ids: Sequence[int], room: int) -> list[tuple[int, ...]]:
    """The fewest chunks of at most `room` tokens, of near-equal size; [] for no tokens."""
    if room <= 0:
        raise ValueError("no room for context tokens")
    n = len(ids)
    if n == 0:
        return []
    k = math.ceil(n / room)
    size = math.ceil(n / k)
    return [tuple(ids[i:i + size]) for i in range(0, n, size)]


@dataclass
class Engine:
    """Model choices and batching knobs shared by the QRelScore metrics."""

    encoder: str = defaults.ENCODER
    lm: str = defaults.CAUSAL_LM
    layers: str | Sequence[int] = "all"
    agg: str = "max"
    weighting: str = "attention"
    p: float = 1.0
    gain: str = "relative"
    device: str | None = None
    lrm_max_length: int | None = None
    grg_max_length: int | None = None
    dedupe: bool = True
    max_batch: int = 64
    max_cells: int = 1 << 20
    lm_max_tokens: int = 8192
    stats: dict[str, int] = field(default_factory=dict)

    # ---------------------------------------------------------------- LRM
    def lrm_limit(self, tokenizer: Any, model: Any) -> int:
        limit = min(int(getattr(model.config, "max_position_embeddings", 512)),
                    int(getattr(tokenizer, "model_max_length", 512) or 512))
        if getattr(model.config, "model_type", "") in ("roberta", "xlm-roberta"):
            limit -= 2  # RoBERTa positions start after the padding index
        return min(limit, self.lrm_max_length) if self.lrm_max_length else limit

    def lrm_raw(self, questions: Sequence[str], contexts: Sequence[str]) -> np.ndarray:
        from qascore.runtime.encoder import load_encoder, load_tokenizer

        tok = load_tokenizer(self.encoder)
        model = load_encoder(self.encoder, device=self.device)
        layers = lrm_mod.select_layers(self.layers, int(model.config.num_hidden_layers))
        limit = self.lrm_limit(tok, model)
        special = lrm_mod.n_special(tok)
        enc = _memo(lambda t: tuple(tok(t, add_special_tokens=False)["input_ids"]))
        per_example: list[list[int]] = []
        unique: dict[tuple, int] = {}
        pairs: list[lrm_mod.Pair] = []
        for i, (q, c) in enumerate(zip(questions, contexts)):
            q_ids, c_ids = enc(q), enc(c)
            room = limit - special - len(q_ids)
            if room < max(16, limit // 4):
                raise QuestionTooLong(i, len(q_ids), limit)
            slots = []
            for ch in chunk(c_ids, room):
                key = (q_ids, ch) if self.dedupe else (i, len(slots))
                if key not in unique:
                    unique[key] = len(pairs)
                    pairs.append(lrm_mod.Pair(q_ids, ch))
                slots.append(unique[key])
            per_example.append(slots)
        self.stats.update(lrm_inputs=len(pairs), lrm_chunks=sum(len(s) for s in per_example))
        dev = next(model.parameters()).device
        raw = lrm_mod.score_pairs(model, tok, pairs, layers, agg=self.agg, weighting=self.weighting, p=self.p,
                                  max_cells=self.max_cells, max_batch=self.max_batch, device=str(dev))
        return np.array([float(np.mean(raw[s])) for s in per_example])

    # ---------------------------------------------------------------- GRG
    def grg_raw(self, questions: Sequence[str], contexts: Sequence[str]) -> np.ndarray:
        from qascore.runtime.causal_lm import load_causal_lm

        lm = load_causal_lm(self.lm, device=self.device)
        limit = min(lm.max_length, self.grg_max_length) if self.grg_max_length else lm.max_length
        bos = lm.bos_id
        enc_q = _memo(lambda t: tuple(lm.encode(t.strip())))
        enc_c = _memo(lambda t: tuple(lm.encode(" " + t.strip())))
        seqs: list[list[int]] = []
        index: dict[tuple, int] = {}

        def slot(key: tuple, seq: list[int]) -> int:
            if not self.dedupe:
                key = ("row", len(seqs))
            if key not in index:
                index[key] = len(seqs)
                seqs.append(seq)
            return index[key]

        plan: list[list[tuple[int, int, int]]] = []  # per example: (base slot, prompted slot, n context tokens)
        for i, (q, c) in enumerate(zip(questions, contexts)):
            q_ids, c_ids = enc_q(q), enc_c(c)
            room = limit - 1 - len(q_ids)
            if room < max(16, limit // 4):
                raise QuestionTooLong(i, len(q_ids), limit)
            items = []
            for ch in chunk(c_ids, room):
                b = slot(("base", ch), grg_mod.base_sequence(bos, ch))
                pr = slot(("prompt", q_ids, ch), grg_mod.prompted_sequence(bos, q_ids, ch))
                items.append((b, pr, len(ch)))
            plan.append(items)
        self.stats.update(grg_sequences=len(seqs), grg_tokens=sum(map(len, seqs)))
        logps = lm.token_logprobs(seqs, max_tokens=self.lm_max_tokens, progress_desc="QRel GRG")
        out = []
        for items in plan:
            gains = [grg_mod.confidence_gain(grg_mod.context_confidence(logps[pr], n),
                                             grg_mod.context_confidence(logps[b], n), self.gain)
                     for b, pr, n in items]
            out.append(float(np.mean(gains)))
        return np.array(out)

    # ---------------------------------------------------------------- ids
    def lrm_config(self) -> str:
        return f"layers={_fmt_layers(self.layers)};agg={self.agg};weighting={self.weighting};p={self.p:g}"

    def grg_config(self) -> str:
        return f"gain={self.gain}"


def _fmt_layers(layers: str | Sequence[int]) -> str:
    return layers if isinstance(layers, str) else ",".join(map(str, layers))


def _memo(fn):  # type: ignore[no-untyped-def]
    """Tokenise each distinct text once."""
    seen: dict[str, Any] = {}

    def call(text: str) -> Any:
        if text not in seen:
            seen[text] = fn(text)
        return seen[text]

    return call
