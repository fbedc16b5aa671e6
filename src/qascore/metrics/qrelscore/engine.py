"""Raw (unrescaled) LRM and GRG for lists of (question, context) pairs: tokenising, chunking, de-duplication, batching.

A context is read up to its first `MAX_CONTEXT` tokens (the rest is cut, and
`Engine.cut` says so; docs/long-inputs.md); one that does not fit the model's
limit together with the question is cut into the fewest chunks that fit (of
near-equal size), each chunk is scored with the question, and the chunk scores
are averaged (paper section 3). Identical (question, chunk) inputs and
identical context-only LM passes are computed once; the context-only pass's
confidence is also kept across calls (`BASE_MEMO` entries per process, keyed by
the model, dtype and the chunk's token ids), so a passage met again in a later
chunk, request or call is not run again. The prompted passes run in
length-sorted batches of at most `lm_max_tokens` padded tokens.
"""

from __future__ import annotations

import hashlib
import math
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np

from qascore.metrics.qrelscore import grg as grg_mod
from qascore.metrics.qrelscore import lrm as lrm_mod
from qascore.runtime import defaults

BASE_MEMO = 65536          # context-only confidences kept per process (LRU; ~100 bytes each)
CPU_LM_TOKENS = 1600       # padded tokens per LM batch on a CPU (measured: docs/qrelscore.md)
GPU_LM_TOKENS = 2048
MAX_CONTEXT = 1024         # tokens of a passage read (each model's own), in chunks; the rest is cut and flagged


class QuestionTooLong(ValueError):
    """A question that leaves no room for context inside the model limit."""

    def __init__(self, index: int, n_tokens: int, limit: int) -> None:
        self.index = index
        super().__init__(f"question has {n_tokens} tokens; the model limit is {limit}, "
                         f"which leaves too little room for the context")


def head_words(text: str, n: int) -> str:
    """The first `n` whitespace-separated words of `text`: every word is at least one token of either model,
    so they hold its first `n` tokens, and a 100,000-word passage is not tokenised whole."""
    words = text.split(maxsplit=n)
    return text if len(words) <= n else " ".join(words[:n])


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
    layers: str | int | Sequence[int] = "all"
    agg: str = "max"
    weighting: str = "attention"
    p: float = 1.0
    gain: str = "relative"
    device: str | None = None
    lrm_max_length: int | None = None
    grg_max_length: int | None = None
    dedupe: bool = True
    max_batch: int = 64
    max_cells: int | None = None  # attention cells per LRM batch; None: 1<<18 on CPU (cache-sized), 1<<22 on GPU
    lm_max_tokens: int | None = None  # padded tokens per LM batch; None: CPU_LM_TOKENS on CPU, GPU_LM_TOKENS on GPU
    base_memo: bool = True          # keep context-only confidences across calls (False: the uncached reference path)
    dtype: str | None = None        # None/fp32 (default, exact); bf16: both models under autocast
    lrm_attention: str = "rows"     # rows: sdpa + question-row attention maps; full: eager, every map (reference)
    lm_full_logits: bool = False    # True: logits at every position, as the authors' scorer (reference)
    max_context: int = MAX_CONTEXT  # passage tokens read per example (the rest is cut; `cut` says where)
    stats: dict[str, int] = field(default_factory=dict)
    cut: list[bool] = field(default_factory=list)  # per example of the last call: passage longer than read

    def _context(self, ids: tuple[int, ...], text: str) -> tuple[int, ...]:
        """The passage tokens read: the first `max_context`, and whether more followed, in `cut`."""
        self.cut.append(len(ids) > self.max_context or len(text.split(maxsplit=self.max_context)) > self.max_context)
        return ids[:self.max_context]

    # ---------------------------------------------------------------- LRM
    def lrm_limit(self, tokenizer: Any, model: Any) -> int:
        limit = min(int(getattr(model.config, "max_position_embeddings", 512)),
                    int(getattr(tokenizer, "model_max_length", 512) or 512))
        if getattr(model.config, "model_type", "") in ("roberta", "xlm-roberta"):
            limit -= 2  # RoBERTa positions start after the padding index
        return min(limit, self.lrm_max_length) if self.lrm_max_length else limit

    def lrm_layerwise(self, questions: Sequence[str], contexts: Sequence[str],
                      variants: Sequence[tuple[str, str]] | None = None,
                      layers: str | Sequence[int] | None = None) -> np.ndarray:
        """Eq. 4 per example, layer and (agg, weighting) variant, averaged over chunks: (N, layers, variants)."""
        from qascore.runtime.encoder import load_tokenizer
        from qascore.runtime.windows import split_long_words

        tok = load_tokenizer(self.encoder)
        model = lrm_mod.load_lrm_encoder(self.encoder, device=self.device, attention=self.lrm_attention)
        chosen = lrm_mod.select_layers(self.layers if layers is None else layers, int(model.config.num_hidden_layers))
        limit = self.lrm_limit(tok, model)
        special = lrm_mod.n_special(tok)
        # a word over the tokenizer's 100 characters read in pieces, not as one [UNK] that matches any other
        enc = _memo(lambda t: tuple(tok(split_long_words(tok, t)[0], add_special_tokens=False)["input_ids"]))
        per_example: list[list[int]] = []
        unique: dict[tuple, int] = {}
        pairs: list[lrm_mod.Pair] = []
        self.cut = []
        for i, (q, c) in enumerate(zip(questions, contexts)):
            q_ids, c_ids = enc(q), self._context(enc(head_words(c, self.max_context)), c)
            room = limit - special - len(q_ids)
            if room < max(16, limit // 4):
                raise QuestionTooLong(i, len(q_ids), limit)
            slots: list[Any] = []
            for ch in chunk(c_ids, room):
                key = (q_ids, ch) if self.dedupe else (i, len(slots))
                if key not in unique:
                    unique[key] = len(pairs)
                    pairs.append(lrm_mod.Pair(q_ids, ch))
                slots.append(unique[key])
            per_example.append(slots)
        self.stats.update(lrm_inputs=len(pairs), lrm_chunks=sum(len(s) for s in per_example))
        dev = next(model.parameters()).device
        raw = lrm_mod.score_pairs(model, tok, pairs, chosen, variants or [(self.agg, self.weighting)],
                                  max_cells=self.max_cells, max_batch=self.max_batch, device=str(dev),
                                  dtype=self.dtype)
        return np.stack([raw[s].mean(axis=0) for s in per_example]) if per_example else raw

    def lrm_raw(self, questions: Sequence[str], contexts: Sequence[str]) -> np.ndarray:
        """Raw LRM: power mean over the selected layers (eq. 3), chunk-averaged."""
        per_layer = self.lrm_layerwise(questions, contexts)[:, :, 0]
        return lrm_mod.power_mean(per_layer, self.p, axis=-1)

    # ---------------------------------------------------------------- GRG
    def grg_confidences(self, questions: Sequence[str], contexts: Sequence[str]) -> list[list[tuple[float, float]]]:
        """Per example, per context chunk: (Conf_base, Conf_prompt) of eqs. 7-8."""
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

        memo = self._base_memo(lm) if self.base_memo and self.dedupe else None
        known: dict[int, float] = {}  # base slot -> confidence from the memo (-(slot+1) marks it)
        digests: dict[int, bytes] = {}
        plan: list[list[tuple[int, int, int]]] = []  # per example: (base slot, prompted slot, n context tokens)
        self.cut = []
        for i, (q, c) in enumerate(zip(questions, contexts)):
            q_ids, c_ids = enc_q(q), self._context(enc_c(head_words(c, self.max_context)), c)
            room = limit - 1 - len(q_ids)
            if room < max(16, limit // 4):
                raise QuestionTooLong(i, len(q_ids), limit)
            items = []
            for ch in chunk(c_ids, room):
                digest = _digest(ch) if memo is not None else b""
                if memo is not None and digest in memo:
                    b = -(len(known) + 1)
                    known[b] = memo[digest]
                    memo.move_to_end(digest)
                else:
                    b = slot(("base", ch), grg_mod.base_sequence(bos, ch))
                    digests[b] = digest
                pr = slot(("prompt", q_ids, ch), grg_mod.prompted_sequence(bos, q_ids, ch))
                items.append((b, pr, len(ch)))
            plan.append(items)
        self.stats.update(grg_sequences=len(seqs), grg_tokens=sum(map(len, seqs)), grg_base_memo_hits=len(known))
        # only the context tokens are scored: the LM head runs at those positions alone
        last = [0] * len(seqs)
        for items in plan:
            for b, pr, n in items:
                if b >= 0:
                    last[b] = n
                last[pr] = n
        budget = self.lm_max_tokens or (CPU_LM_TOKENS if str(lm.device).startswith("cpu") else GPU_LM_TOKENS)
        logps = lm.token_logprobs(seqs, max_tokens=budget, progress_desc="QRel GRG",
                                  last=None if self.lm_full_logits else last, dtype=self.dtype)

        def base(b: int, n: int) -> float:
            if b < 0:
                return known[b]
            value = grg_mod.context_confidence(logps[b], n)
            if memo is not None:
                memo[digests[b]] = value
                while len(memo) > BASE_MEMO:
                    memo.popitem(last=False)
            return value

        return [[(base(b, n), grg_mod.context_confidence(logps[pr], n)) for b, pr, n in items] for items in plan]

    def _base_memo(self, lm: Any) -> "OrderedDict[bytes, float]":
        """The process's context-only confidences for this LM, device, dtype and logits path."""
        from qascore.runtime.cache import shared
        from qascore.runtime.encoder import pick_dtype

        key = ("qrel-grg-base", self.lm, str(lm.device), str(pick_dtype(self.dtype, "cpu")), self.lm_full_logits)
        return shared(key, OrderedDict)

    def grg_raw(self, questions: Sequence[str], contexts: Sequence[str]) -> np.ndarray:
        """Raw GRG (eq. 9 or M9), averaged over context chunks."""
        confs = self.grg_confidences(questions, contexts)
        return np.array([float(np.mean([grg_mod.confidence_gain(pr, b, self.gain) for b, pr in items]))
                         for items in confs])

    # ---------------------------------------------------------------- ids
    def lrm_config(self) -> str:
        return f"layers={_fmt_layers(self.layers)};agg={self.agg};weighting={self.weighting};p={self.p:g}"

    def grg_config(self) -> str:
        return f"gain={self.gain}"


def _digest(ids: Sequence[int]) -> bytes:
    """A short, collision-safe key for a chunk's token ids (sha1 of their int32 bytes)."""
    return hashlib.sha1(np.asarray(ids, dtype=np.int64).tobytes()).digest()


def _fmt_layers(layers: str | int | Sequence[int]) -> str:
    if isinstance(layers, (str, int)):
        return str(layers)
    return ",".join(map(str, layers))


def _memo(fn: Callable[[str], tuple[int, ...]]) -> Callable[[str], tuple[int, ...]]:
    """Tokenise each distinct text once."""
    seen: dict[str, tuple[int, ...]] = {}

    def call(text: str) -> tuple[int, ...]:
        if text not in seen:
            seen[text] = fn(text)
        return seen[text]

    return call
