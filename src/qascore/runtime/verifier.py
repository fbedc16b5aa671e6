"""Generic cross-encoder verifier: the model, its inputs, scoring, save and load, over any input layout.

AVA's A0/A1/A2 models and SQuArE are all "encode some texts with a BERT-style
encoder, read the [CLS] states, one logit: is the candidate correct?". They
differ only in which texts go into which input. This module holds everything
they share; a model family supplies a *layout*.

Interface (for model families building on this)
------------------------------------------------
- A **layout** is a function ``Record -> list[View]`` that always returns the
  same number of views. Each view is one encoder input (one Transformer
  instance in the papers' terms).
- A **View** is ``(segment_a, segment_b)``; each segment is a list of
  :class:`Part`. Parts of one segment are joined (the papers' ``∘``) with
  a space; segment B may be empty (single-segment input, as in SQuArE's
  "Question: .. Target: .. Pos_Ref: .. Neg_Ref: .."). Build views with
  :func:`view`, e.g. ``view([q], [r, t])`` is AVA's ``(q, r∘t)``.
- A **Part** is a text plus ``keep``: when the input exceeds ``max_len``
  tokens, kept parts stay whole and the others are trimmed evenly (the longest
  first). Use ``keep=True`` for labels such as "Question:" and for the texts
  that must survive (question, target).
- :class:`VerifierSpec` says how to build the model: encoder spec (default
  ``runtime.defaults.ENCODER``), ``max_len``, ``train_layers`` (the top layers
  that are fine-tuned; the rest are frozen and cached by ``runtime.partial``),
  ``lora_rank`` (> 0: those layers keep their weights and train LoRA adapters,
  ``runtime.lora``, with their LayerNorms),
  ``share_top`` (one trained top stack for every view instead of one each)
  and ``peer`` (AVA's peer attention, two views).
- ``qascore_lab.train.verifier.train`` (the lab) fits a model on ``records`` + 0/1
  ``labels`` (seeded, with early stopping on dev F1) and returns a
  :class:`Verifier`; this module holds what scoring needs, so metrics load
  verifiers without the training code.
- :class:`Verifier`: ``predict(records) -> np.ndarray`` of P(correct);
  ``save(path)`` writes a small fp16 safetensors delta (what trained: top layers or adapters, head)
  with JSON metadata; ``Verifier.load(path, layout)`` rebuilds it on the
  pinned base encoder. A record's reference for a single-reference layout is
  ``record.references[0]``; multi-reference aggregation is the metric's job.
"""

from __future__ import annotations

import copy
import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable, Sequence, cast

import numpy as np
import torch
from torch import nn

from qascore.records import Record
from qascore.runtime import defaults
from qascore.runtime.delta import apply_delta, base_hash, read_meta, save_delta
from qascore.runtime.encoder import autocast, load_tokenizer, pick_dtype
from qascore.runtime.lora import add_lora, merge_lora
from qascore.runtime.model_values import verifier_problem
from qascore.runtime.windows import read_words
from qascore.runtime.partial import (LowerStack, StateCache, Tokens, lower_states, pad_states, position_bias_of,
                                     run_stack)


@dataclass(frozen=True)
class Part:
    """One text of a segment; `keep` protects it from truncation."""

    text: str
    keep: bool = False


View = tuple[list[Part], list[Part]]
Layout = Callable[[Record], list[View]]


def _parts(seg: Sequence[Part | str] | Part | str | None) -> list[Part]:
    if seg is None:
        return []
    if isinstance(seg, (Part, str)):
        seg = [seg]
    return [p if isinstance(p, Part) else Part(p) for p in seg]


def view(a: Sequence[Part | str] | Part | str, b: Sequence[Part | str] | Part | str | None = None) -> View:
    """A view from plain strings or Parts: ``view(q, [r, t])`` is (q, r∘t)."""
    return (_parts(a), _parts(b))


# -- tokenisation ------------------------------------------------------------

def fit_lengths(lengths: Sequence[int], keep: Sequence[bool], budget: int) -> list[int]:
    """New lengths so the total fits `budget`: kept parts whole, others trimmed evenly.

    Even trimming = water-filling: the free parts are cut to a common cap
    (longest first), so a short part is never cut while a longer one is
    longer than it. If kept parts alone exceed the budget they are trimmed
    the same way as a last resort.
    """
    lengths = list(lengths)
    if sum(lengths) <= budget:
        return lengths
    fixed = sum(n for n, k in zip(lengths, keep) if k)
    free = [i for i, k in enumerate(keep) if not k]
    room = budget - fixed
    if room < 0 or not free:
        out = [0 if not k else n for n, k in zip(lengths, keep)]
        kept = [i for i, k in enumerate(keep) if k]
        capped = _water_fill([lengths[i] for i in kept], max(budget, 0))
        for i, n in zip(kept, capped):
            out[i] = n
        return out
    capped = _water_fill([lengths[i] for i in free], room)
    out = list(lengths)
    for i, n in zip(free, capped):
        out[i] = n
    return out


def _water_fill(lengths: Sequence[int], room: int) -> list[int]:
    """Largest per-part cap c with sum(min(n, c)) <= room; leftover tokens go to the earliest longest parts."""
    if sum(lengths) <= room:
        return list(lengths)
    lo, hi = 0, max(lengths)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if sum(min(n, mid) for n in lengths) <= room:
            lo = mid
        else:
            hi = mid - 1
    out = [min(n, lo) for n in lengths]
    spare = room - sum(out)
    for i, n in enumerate(lengths):
        if spare <= 0:
            break
        if n > lo:
            out[i] += 1
            spare -= 1
    return out


def encode_view(tokenizer: Any, v: View, max_len: int, cut: list[bool] | None = None) -> Tokens:
    """[CLS] A-parts [SEP] (B-parts [SEP]) as ids and type ids, truncated to max_len.

    `cut`, when given, receives whether any part had to be trimmed (callers report it).
    """
    seg_a, seg_b = v
    parts = seg_a + seg_b
    # A part's first max_len words (long words cut into pieces the tokenizer reads, `read_words`) hold every
    # piece that can be kept: a 200,000-word text costs what a 128-word one does, and the kept prefix is the same.
    toks = [tokenizer.encode(" ".join(read_words(tokenizer, p.text, max_len)[0]), add_special_tokens=False)
            if p.text else [] for p in parts]
    budget = max_len - (3 if seg_b else 2)
    lens = fit_lengths([len(t) for t in toks], [p.keep for p in parts], budget)
    if cut is not None:
        cut.append(sum(lens) < sum(len(t) for t in toks))
    toks = [t[:n] for t, n in zip(toks, lens)]
    a = [tok for t in toks[:len(seg_a)] for tok in t]
    b = [tok for t in toks[len(seg_a):] for tok in t]
    cls, sep = tokenizer.cls_token_id, tokenizer.sep_token_id
    ids = [cls] + a + [sep]
    types = [0] * len(ids)
    if seg_b:
        ids += b + [sep]
        types += [1] * (len(b) + 1)
    return tuple(ids), tuple(types)


# -- model -------------------------------------------------------------------

@dataclass
class VerifierSpec:
    """Everything that defines a verifier model (stored in the delta's metadata)."""

    layout: str                       # layout name, checked when loading
    n_views: int
    encoder: str = defaults.ENCODER
    max_len: int = 128
    train_layers: int = 2             # top layers fine-tuned; the rest frozen and cached
    share_top: bool = False           # one top stack for all views (smaller delta)
    peer: bool = False                # AVA peer attention (A2): a second pass per view
    pool: str = "cls"                 # "cls" ([CLS] state, as the papers) or "mean" (masked mean of tokens)
    dropout: float = 0.1
    lora_rank: int = 0                # > 0: the top layers stay frozen and train LoRA adapters (runtime.lora)
    lora_alpha: float = 32.0

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "VerifierSpec":
        return cls(**{k: v for k, v in d.items() if k in cls.__dataclass_fields__})


class VerifierModel(nn.Module):
    """Frozen lower stack + per-view (or shared) trainable top stacks + a linear head.

    With `peer`, each view gets a second top stack (the papers' decoding
    instance B_x1) whose input is the view's lower states with the other
    views' first-pass [CLS] vectors appended as extra positions, so a view
    attends over its peers' representations. The head reads every [CLS].
    """

    def __init__(self, spec: VerifierSpec, base: Any) -> None:  # a transformers encoder (typed loosely by torch)
        super().__init__()
        self.spec = spec
        layers = list(base.encoder.layer)
        n_low = len(layers) - spec.train_layers
        if not 0 <= n_low < len(layers):
            raise ValueError(f"train_layers must be 1..{len(layers)}, got {spec.train_layers}")
        self.bias = position_bias_of(base)   # a bound method of the frozen base, not a submodule ...
        table = getattr(base.encoder, "relative_attention_bias", None)
        if table is not None:                # ... so MPNet's bias table is registered, for .to(device) to move it
            self.position_table = table.requires_grad_(False)
        self.lower = LowerStack(base.embeddings, layers[:n_low], self.bias)
        top = layers[n_low:]
        n_stacks = (1 if spec.share_top else spec.n_views) * (2 if spec.peer else 1)
        self.top = nn.ModuleList(nn.ModuleList(copy.deepcopy(top)) for _ in range(n_stacks))
        if spec.lora_rank:
            add_lora(self.top, spec.lora_rank, spec.lora_alpha)
        hidden = base.config.hidden_size
        n_cls = spec.n_views * (2 if spec.peer else 1)
        self.drop = nn.Dropout(spec.dropout)
        self.head = nn.Linear(n_cls * hidden, 1)
        if spec.peer and spec.n_views < 2:
            raise ValueError("peer attention needs at least two views")
        if spec.pool not in ("cls", "mean"):
            raise ValueError(f"pool must be 'cls' or 'mean', got {spec.pool!r}")

    def _pool(self, h: torch.Tensor, m: torch.Tensor) -> torch.Tensor:
        if self.spec.pool == "cls":
            return h[:, 0]
        w = m.to(h.dtype).unsqueeze(-1)
        return (h * w).sum(1) / w.sum(1).clamp(min=1.0)

    def _stack(self, view: int, second: bool) -> nn.ModuleList:
        k = 0 if self.spec.share_top else view
        if self.spec.peer and second:
            k += 1 if self.spec.share_top else self.spec.n_views
        return cast(nn.ModuleList, self.top[k])

    def upper(self, states: Sequence[tuple[torch.Tensor, torch.Tensor]]) -> torch.Tensor:
        """Logits from per-view (padded lower states, mask)."""
        cls0 = []
        for v, (h, m) in enumerate(states):
            cls0.append(self._pool(run_stack(self._stack(v, False), h, m, self.bias), m))
        feats = list(cls0)
        if self.spec.peer:
            for v, (h, m) in enumerate(states):
                peers = torch.stack([c for u, c in enumerate(cls0) if u != v], dim=1)
                h2 = torch.cat([h, peers], dim=1)
                m2 = torch.cat([m, torch.ones(m.shape[0], peers.shape[1], dtype=m.dtype, device=m.device)], dim=1)
                feats.append(self._pool(run_stack(self._stack(v, True), h2, m2, self.bias), m2))
        return self.head(self.drop(torch.cat(feats, dim=-1))).squeeze(-1)

    def trained_names(self) -> list[str]:
        """Parameter names a delta must hold: the head, and every top stack (with LoRA: what trains in it,
        the adapters and the LayerNorms, which `add_lora` leaves trainable)."""
        if self.spec.lora_rank:
            return [n for n, p in self.named_parameters() if n.startswith("head.") or (n.startswith("top.")
                                                                                     and p.requires_grad)]
        return [n for n in self.state_dict() if n.startswith(("top.", "head."))]


def load_base(spec: VerifierSpec) -> nn.Module:
    """A private (trainable) copy of the base encoder; never the shared inference model."""
    from transformers import AutoModel

    return AutoModel.from_pretrained(defaults.resolve(spec.encoder), attn_implementation="eager",
                                     dtype=torch.float32)


# -- the trained object -------------------------------------------------------

class Verifier:
    """A model + tokenizer + layout: P(candidate correct) for records."""

    def __init__(self, spec: VerifierSpec, layout: Layout, model: VerifierModel | None = None,
                 threshold: float = 0.5, info: dict[str, Any] | None = None, tokenizer: Any = None,
                 temperature: float = 1.0) -> None:
        self.spec, self.layout = spec, layout
        self.tokenizer = tokenizer if tokenizer is not None else load_tokenizer(spec.encoder)
        self.model = model if model is not None else VerifierModel(spec, load_base(spec))
        self.model.eval()
        self.threshold = threshold
        self.temperature = temperature  # logits are divided by it: calibration fitted on a dev split (1 = none)
        self.info = dict(info or {})

    def tokens(self, records: Sequence[Record], truncated: list[bool] | None = None) -> list[list[Tokens]]:
        """Per record, one token sequence per view (layout checked for its view count).

        `truncated`, when given, gets one flag per record: some text was trimmed to fit max_len.
        """
        out = []
        for rec in records:
            views = self.layout(rec)
            if len(views) != self.spec.n_views:
                raise ValueError(f"layout {self.spec.layout} gave {len(views)} views, model expects "
                                 f"{self.spec.n_views}")
            cut: list[bool] = []
            out.append([encode_view(self.tokenizer, v, self.spec.max_len, cut) for v in views])
            if truncated is not None:
                truncated.append(any(cut))
        return out

    def cache_key(self) -> tuple[str, int]:
        """What a StateCache of this model's lower stack is valid for."""
        return (self.spec.encoder, len(self.model.lower.layers))

    @torch.no_grad()
    def logits(self, records: Sequence[Record], *, batch_size: int = defaults.VERIFIER_BATCH, chunk: int = 512,
               cache: StateCache | None = None, tick: Callable[[int], None] | None = None,
               truncated: list[bool] | None = None, dtype: str | None = None) -> np.ndarray:
        """Raw logits (float32, before the temperature) per record. Views are de-duplicated and run
        longest-first per chunk.

        `truncated`, when given, receives one flag per record (see `tokens`). `dtype` "bf16" runs the
        forward under autocast (2-2.7x faster on this project's CPU; probabilities move by up to ~0.02),
        None/"fp32" exactly; a state cache holds fp32 states, so it is refused with another dtype.
        """
        device = str(next(self.model.parameters()).device)
        if cache is not None and pick_dtype(dtype, device) != torch.float32:
            raise ValueError(f"a state cache holds fp32 lower-layer states; score with dtype={dtype} without one")
        self.model.eval()
        if cache is not None:
            cache.bind(self.cache_key())
        out = np.zeros(len(records), dtype=np.float32)
        for start in range(0, len(records), chunk):
            part = records[start:start + chunk]
            toks = self.tokens(part, truncated)
            with autocast(device, dtype):
                states = [lower_states(self.model.lower, [t[v] for t in toks], self.tokenizer.pad_token_id,
                                       batch_size=batch_size, store_dtype=torch.float32, cache=cache)
                          for v in range(self.spec.n_views)]
                out[start:start + len(part)] = upper_logits(self.model, states, batch_size).numpy()
            if tick:
                tick(len(part))
        return out

    def probabilities(self, logits: np.ndarray) -> np.ndarray:
        """sigmoid(logit / temperature), as float64."""
        return torch.sigmoid(torch.from_numpy(np.asarray(logits, dtype=np.float32)) / self.temperature).double().numpy()

    def predict(self, records: Sequence[Record], **kw: Any) -> np.ndarray:
        """P(correct) per record (keywords as `logits`)."""
        return self.probabilities(self.logits(records, **kw))

    def save(self, path: str | Path, extra: dict[str, Any] | None = None) -> None:
        meta = {"spec": asdict(self.spec), "threshold": self.threshold, "temperature": self.temperature,
                "base_hash": base_hash(defaults.resolve(self.spec.encoder)), "info": self.info}
        meta.update(extra or {})
        save_delta(self.model, path, self.model.trained_names(), meta)

    @classmethod
    def load(cls, path: str | Path, layout: Layout, *, layout_name: str | None = None) -> "Verifier":
        """Rebuild a saved verifier on its pinned base encoder."""
        meta = read_meta(path)
        spec = VerifierSpec.from_dict(meta["spec"])
        if layout_name is not None and layout_name != spec.layout:
            raise ValueError(f"{path} holds layout '{spec.layout}', not '{layout_name}'")
        problem = verifier_problem(meta)
        if problem:
            raise ValueError(f"{path}: {problem}")
        model = VerifierModel(spec, load_base(spec))
        apply_delta(model, path, expect_base=base_hash(defaults.resolve(spec.encoder)), required=model.trained_names())
        merge_lora(model.top)
        return cls(spec, layout, model, threshold=float(meta.get("threshold", 0.5)), info=meta.get("info", {}),
                   temperature=float(meta.get("temperature", 1.0)))


def load_shared(path: str | Path, make_layout: Callable[[str], Layout], device: str | None = None) -> Verifier:
    """The verifier saved at `path` with the layout its metadata names, on `device` (None: the process
    default, runtime.devices), created once per process and device."""
    from qascore.runtime.cache import shared
    from qascore.runtime.devices import pick_device

    key = str(Path(path).resolve())
    layout = read_meta(key)["spec"]["layout"]
    dev = pick_device(device)

    def make() -> Verifier:
        ver = Verifier.load(key, make_layout(layout), layout_name=layout)
        ver.model.to(dev)
        return ver

    return shared(("verifier", key, dev), make)


def upper_logits(model: VerifierModel, states: list[list[torch.Tensor]], batch_size: int) -> torch.Tensor:
    """Run the top stacks + head over cached lower states, in length-sorted batches."""
    n = len(states[0])
    order = sorted(range(n), key=lambda i: -sum(s[i].shape[0] for s in states))
    out = torch.zeros(n)
    dtype = next(model.head.parameters()).dtype
    for start in range(0, n, batch_size):
        idx = order[start:start + batch_size]
        batch = [pad_states([s[i] for i in idx], dtype) for s in states]
        out[idx] = model.upper(batch).float().cpu()
    return out


def describe(path: str | Path) -> str:
    """Human-readable metadata of a saved verifier delta."""
    return json.dumps(read_meta(path), indent=2, sort_keys=True)
