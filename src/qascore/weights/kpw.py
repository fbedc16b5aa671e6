"""KPW: the KPQA keyphrase tagger as a TokenWeighter (Lee et al. 2021, 3.1-3.2).

KPW of a token of an answer = the tagger's softmax P(K) for it, given the
question. The tagger runs on WordPieces; consumers hand us their own tokens:
- WordPieces of the default encoder (BERTScore): its vocabulary is the
  tagger's, so a token "##ing" is used as that very piece and the weights are
  the tagger's, one to one.
- Words (PTB tokens for BLEU-1 / ROUGE-L): each word is split into WordPieces
  and its weight is the MEAN of its pieces' P(K). Why mean rather than max or
  sum: it is the expected share of the word the tagger calls keyphrase, it
  stays in [0, 1] like a one-piece word, so a long rare word split into four
  pieces does not count four times (sum) nor ride on one noisy piece (max).
- [CLS] / [SEP] / [PAD] / [MASK] weigh 0 (as in the authors' BERTScore-KPQA);
  a token that yields no WordPiece at all (only control characters) weighs 0.

Caching: KPW of one (question, WordPiece sequence) is computed once per process
and shared by every KpwWeighter over the same tagger, so BLEU-1-, ROUGE-L- and
BERTScore-KPQA of one file run the tagger once per distinct pair. The key holds
the question. The authors' code keys its cache by the answer string alone, so an
answer repeated for another question ("yes", "two") gets the weights computed
for whichever question came first; we do not (the -KP tagger, which never sees
the question, is keyed by the text alone, which is then exact).

Long answers: the tagger sees at most `max_len` (512) positions; an answer that
does not fit next to its question is tagged in consecutive windows, each with
the question. The KPQA metrics give it at most `MAX_PIECES` WordPieces of a text
(metrics.kpqa cuts the rest and flags it, docs/long-inputs.md), and windows are
batched under `BATCH_TOKENS` padded tokens, so one long record costs bounded time
and memory.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

import numpy as np
import torch

from qascore.runtime import defaults
from qascore.runtime.batching import dedup, length_batches, token_cap
from qascore.runtime.cache import shared
from qascore.runtime.devices import on_threads, pick_device
from qascore.runtime.delta import base_hash, file_sha256, read_meta
from qascore.runtime.int8 import DTYPE as INT8
from qascore.runtime.int8 import fixed_range_linears, ranges_file, read_ranges, require_cpu
from qascore.runtime.int8 import reading as int8_reading
from qascore.runtime.windows import read_words, split_long_words
from qascore.weights.base import TokenWeighter
from qascore.weights.kpw_model import MAX_QUESTION, KeyphraseTagger, answer_room, layout, load_encoder, pad

MAX_PIECES = 2048     # WordPieces of one text the KPQA metrics read (four 512-position windows)
BATCH_TOKENS = 16384  # padded tokens per tagger batch off a CPU: 32 full windows (eager attention ~0.4 GB)
BERT_SPECIALS = ("[CLS]", "[SEP]", "[PAD]", "[MASK]")  # weigh 0 whatever the tagger's own specials are

SHIPPED = {"kpqa": "kpqa.safetensors", "kp": "kp.safetensors"}


def shipped_delta(kind: str = "kpqa") -> Path:
    """The tagger delta shipped in the package: 'kpqa' (with question) or 'kp' (the -KP ablation)."""
    if kind not in SHIPPED:
        raise ValueError(f"unknown shipped tagger '{kind}' (choose from {sorted(SHIPPED)})")
    path = defaults.RESOURCES / "kpqa" / SHIPPED[kind]
    if not path.is_file():
        raise FileNotFoundError(f"{path} missing: train it with `qascore-lab train kpqa` (lab/NOTES.md)")
    return path


class Tagger:
    """A loaded tagger: tokenizer, network with its delta applied, and its metadata.

    The network is a private copy of the base encoder (the delta changes its
    top layers, or adds LoRA adapters that are merged into its weights on load),
    never the shared encoder BERTScore uses.
    """

    def __init__(self, delta: str | Path, device: str | None = None, int8: bool = False) -> None:
        from transformers import AutoTokenizer

        from qascore.runtime.encoder import quiet_tokenizer

        from qascore.runtime.delta import apply_delta

        self.delta = Path(delta)
        self.meta = read_meta(self.delta)
        if self.meta.get("kind") != "kpqa-tagger":
            raise ValueError(f"{delta} is not a KPQA tagger delta (metadata kind={self.meta.get('kind')!r})")
        self.encoder_spec = str(self.meta.get("encoder", defaults.ENCODER))
        base = defaults.resolve(self.encoder_spec)
        self.device = pick_device(device)
        self.tokenizer = quiet_tokenizer(AutoTokenizer.from_pretrained(base))
        model = KeyphraseTagger(load_encoder(base))
        rank = int(self.meta.get("lora_rank", 0) or 0)
        if rank:  # adapters first (their names are the delta's), then folded into the weights
            model.add_adapters(int(self.meta["n_frozen"]), rank, float(self.meta["lora_alpha"]))
        apply_delta(model, self.delta, expect_base=base_hash(base))
        if rank:
            from qascore.runtime.lora import merge_lora

            merge_lora(model)
        net: torch.nn.Module = model
        self.int8 = int8  # its batches shared out to the CPU's threads (`runtime.devices.on_threads`)
        if int8:  # the CPU's batched int8 over the ranges calibrated beside the delta (runtime/int8.py)
            require_cpu(self.device)
            ranges = read_ranges(self.delta)
            if ranges is None:
                raise FileNotFoundError(f"{ranges_file(self.delta)} missing: the tagger reads int8 over calibrated "
                                        "ranges (`qascore-lab train int8-ranges`, lab/NOTES.md)")
            net = fixed_range_linears(model.eval(), ranges)
        self.model = net.to(self.device).eval()
        self.use_question = bool(self.meta.get("use_question", True))
        self.sha = file_sha256(self.delta)
        self.vocab = self.tokenizer.get_vocab()
        self.zero = zero_tokens(self.tokenizer)

    @property
    def ident(self) -> str:
        return f"{'kpqa' if self.use_question else 'kp'}-tagger@{self.sha}"

    def pieces(self, tokens: Sequence[str]) -> list[list[int] | None]:
        """WordPiece ids of each consumer token; None for tokens that weigh 0 ([CLS], [SEP]...)."""
        out: list[list[int] | None] = [None] * len(tokens)
        words, where = [], []
        for i, t in enumerate(tokens):
            if t in self.zero:
                continue
            if t in self.vocab:  # a WordPiece of our vocabulary (BERTScore tokens) or a plain word
                out[i] = [self.vocab[t]]
            else:
                words.append(t)
                where.append(i)
        if words:  # a word over 100 characters in pieces the tokenizer reads, not one [UNK] (issue 64)
            ids = self.tokenizer([split_long_words(self.tokenizer, w)[0] for w in words],
                                 add_special_tokens=False)["input_ids"]
            for i, w in zip(where, ids):
                out[i] = list(w)
        return out

    @torch.no_grad()
    def probabilities(self, pairs: Sequence[tuple[str, tuple[int, ...]]], batch_size: int = 64,
                      max_len: int = 512, dtype: str | None = None) -> list[np.ndarray]:
        """P(K) for every answer WordPiece of each (question, answer ids) pair."""
        q_ids = {q: question_pieces(self.tokenizer, q) if self.use_question else [] for q in {q for q, _ in pairs}}
        cls_id, sep_id = self.tokenizer.cls_token_id, self.tokenizer.sep_token_id
        # Cut every answer into windows that fit next to its question.
        jobs = []  # (pair index, offset, layout)
        for k, (q, ids) in enumerate(pairs):
            room = max(1, answer_room(max_len, len(q_ids[q]), self.use_question))
            for s in range(0, max(len(ids), 1), room):
                jobs.append((k, s, layout(cls_id, sep_id, q_ids[q], ids[s:s + room], self.use_question)))
        out = [np.zeros(len(ids), dtype=np.float64) for _, ids in pairs]
        from qascore.runtime.encoder import autocast

        def run(b: list[int]) -> np.ndarray:
            rows = [jobs[i][2] for i in b]
            batch_ids = pad([r.input_ids for r in rows], 0).to(self.device)
            types = pad([r.token_type_ids for r in rows], 0).to(self.device)
            mask = pad([[1] * len(r.input_ids) for r in rows], 0).to(self.device)
            with torch.no_grad(), autocast(self.device, dtype):  # both per thread: `on_threads` may run this on a worker
                logits = self.model(batch_ids, types, mask)
            return torch.softmax(logits.float(), dim=-1)[..., 1].cpu().numpy()

        batches = list(length_batches([len(j[2].input_ids) for j in jobs], batch_size,
                                      max_tokens=token_cap(self.device, BATCH_TOKENS)))
        for b, prob in zip(batches, on_threads(run, batches, self.int8)):
            for j, i in enumerate(b):
                k, s, lay = jobs[i]
                out[k][s:s + lay.answer_len] = prob[j, lay.answer_start:lay.answer_start + lay.answer_len]
        return out


def question_pieces(tokenizer: Any, question: str) -> list[int]:
    """The question's WordPieces as far as the tagger can read them (`MAX_QUESTION`, and one more to tell
    that it was cut): a word is at least one piece, so its first MAX_QUESTION + 1 words hold them, and a
    3,500-word question costs what a short one does. A word over 100 characters is read in pieces (`read_words`)."""
    words = read_words(tokenizer, question, MAX_QUESTION + 1)[0]
    return list(tokenizer(" ".join(words), add_special_tokens=False)["input_ids"])[:MAX_QUESTION + 1]


def zero_tokens(tokenizer: Any) -> set[str]:
    """Tokens that weigh 0: the tagger's own specials, and BERT's by name. BERTScore hands BERT's special
    tokens; a base with other ones (MPNet: <s>, </s>) holds [CLS] / [SEP] as plain vocabulary entries."""
    return {tokenizer.cls_token, tokenizer.sep_token, tokenizer.pad_token, tokenizer.mask_token, *BERT_SPECIALS}


def resolve_delta(delta: str | Path | None = None) -> Path:
    """A delta file from: None (the shipped KPQA tagger), 'kpqa' / 'kp' (shipped), a file, or a
    checkpoint directory holding exactly one .safetensors delta."""
    if delta is None or str(delta) in SHIPPED:
        return shipped_delta(str(delta) if delta is not None else "kpqa")
    path = Path(delta)
    if path.is_dir():  # a checkpoint directory holding one delta
        found = sorted(path.glob("*.safetensors"))
        if len(found) != 1:
            raise FileNotFoundError(f"{path}: expected exactly one .safetensors delta, found {len(found)}")
        path = found[0]
    if not path.is_file():
        raise FileNotFoundError(f"KPQA tagger delta {path} does not exist")
    return path


def load_tagger(delta: str | Path | None = None, device: str | None = None, int8: bool = False) -> Tagger:
    """The tagger for `delta` (default: the shipped KPQA tagger), created once per process and precision."""
    path = resolve_delta(delta)
    key = ("kpqa-tagger", file_sha256(path), device, int8)
    return shared(key, lambda: Tagger(path, device, int8))


class KpwWeighter(TokenWeighter):
    """Question-aware keyphrase weights from a KPQA tagger (see module doc)."""

    name = "kpw"
    dtype: str | None = None  # the tagger's precision (None: fp32)

    def __init__(self, delta: str | Path | None = None, *, device: str | None = None, batch_size: int = 64,
                 max_len: int = 512, dtype: str | None = None) -> None:
        self.delta = resolve_delta(delta)
        self.sha = file_sha256(self.delta)  # for signatures, without loading the model
        meta = read_meta(self.delta)
        self.use_question = bool(meta.get("use_question", True))
        self.device, self.batch_size, self.max_len = device, batch_size, max_len
        self.dtype = None if dtype in (None, "fp32", "float32") else dtype
        self._tagger: Tagger | None = None
        # One cache per tagger per process, shared by every weighter over it.
        self._cache: dict[tuple[str, tuple[int, ...]], np.ndarray] = shared(
            ("kpw-cache", self.sha, device, max_len, self.dtype), dict)

    @property
    def tagger(self) -> "Tagger":
        """Loaded on first use (and then shared), so building a metric costs nothing."""
        if self._tagger is None:
            self._tagger = load_tagger(self.delta, self.device, int8=self.dtype == INT8)
        return self._tagger

    @tagger.setter
    def tagger(self, value: "Tagger") -> None:
        self._tagger = value

    def weigh(self, question: str, tokens: Sequence[str]) -> np.ndarray:
        return self.weigh_many([(question, tokens)])[0]

    def weigh_many(self, items: Sequence[tuple[str, Sequence[str]]]) -> list[np.ndarray]:
        per_item = [self.tagger.pieces(tokens) for _, tokens in items]
        keys = [self._key(q, pieces) for (q, _), pieces in zip(items, per_item)]
        todo, _ = dedup([k for k in keys if k not in self._cache])
        if todo:
            probs = self.tagger.probabilities(todo, self.batch_size, self.max_len, **self._dtype_kw())
            self._cache.update(zip(todo, probs))
        out = []
        for key, pieces in zip(keys, per_item):
            prob, at = self._cache[key], 0
            w = np.zeros(len(pieces), dtype=np.float64)
            for i, p in enumerate(pieces):
                if p:
                    w[i] = float(prob[at:at + len(p)].mean())
                    at += len(p)
            out.append(w)
        return out

    def _dtype_kw(self) -> dict[str, str]:
        return {"dtype": self.dtype} if self.dtype and self.dtype != INT8 else {}  # int8 is in the weights

    def piece_weights(self, question: str, text: str) -> tuple[list[str], np.ndarray]:
        """The tagger's own view: WordPieces of `text` and their P(K) (for `qascore explain`)."""
        tok = self.tagger.tokenizer
        ids = tuple(tok(split_long_words(tok, text)[0], add_special_tokens=False)["input_ids"])
        key = (question if self.use_question else "", ids)
        if key not in self._cache:
            self._cache[key] = self.tagger.probabilities([key], self.batch_size, self.max_len, **self._dtype_kw())[0]
        return list(self.tagger.tokenizer.convert_ids_to_tokens(list(ids))), self._cache[key]

    def _key(self, question: str, pieces: list[list[int] | None]) -> tuple[str, tuple[int, ...]]:
        ids = tuple(i for p in pieces if p for i in p)
        return (question if self.use_question else "", ids)

    @property
    def ident(self) -> str:
        return f"{'kpqa' if self.use_question else 'kp'}-tagger@{self.sha}"

    def signature(self) -> str:
        """The weights' part of a metric signature: the tagger, how a word's weight is read and how much of a text
        is read (`MAX_PIECES`), since a text past the cap is scored on its first part."""
        dtype = int8_reading(self.delta) if self.dtype == INT8 else self.dtype
        return f"kpw({self.ident},word=mean-of-pieces,max_pieces={MAX_PIECES}{f',dtype={dtype}' if dtype else ''})"
