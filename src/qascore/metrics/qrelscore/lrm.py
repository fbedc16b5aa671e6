"""QRel_LRM (paper section 2.1, eqs. 2-5): layer-wise, attention-weighted token matching.

Question and context go through ONE BERT-style pass ([CLS] q [SEP] c [SEP]).
For each selected layer l, every question token m is matched to the context
tokens n by  agg_n( a^l_mn * cos(f(x_m)^l, f(c_n)^l) ), where a^l_mn is the
maximum over heads of the attention from m to n; the layer score is the mean
over question tokens (a precision); layers are merged by a power mean.

The maths on tensors (`layer_precision`, `power_mean`, `select_layers`) is
separate from running the model so it can be tested on hand-made inputs.
"""

from __future__ import annotations

import contextvars
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np
import torch

AGGS = ("max", "mean", "mover")
WEIGHTINGS = ("attention", "argmax", "none")
LAYER_GROUPS = ("all", "first", "middle", "last", "specific")


def check_layers(spec: str) -> None:
    """Syntax of a `layers` option before any model is loaded: a group name or indices joined by + or ,."""
    if spec in LAYER_GROUPS:
        return
    parts = spec.replace("+", ",").split(",")
    if not all(p.strip().isdigit() for p in parts):
        raise ValueError(f"expected one of {', '.join(LAYER_GROUPS)} or layer indices joined by + (0+3+7+11)")


def select_layers(spec: str | int | Sequence[int], n_layers: int) -> list[int]:
    """Layer indices (0-based, attention layers) for a group name or an explicit list.

    The paper's Table 3 uses four-layer groups of 12-layer BERT: first (0-3),
    middle (4-7), last (8-11), specific (0, 3, 7, 11). For other depths the
    groups are thirds and 'specific' is four evenly spread layers.
    """
    if isinstance(spec, int):
        layers = [spec]
    elif not isinstance(spec, str):
        layers = [int(i) for i in spec]
    elif spec == "all":
        layers = list(range(n_layers))
    elif spec in ("first", "middle", "last"):
        bounds = np.linspace(0, n_layers, 4).round().astype(int)
        k = ("first", "middle", "last").index(spec)
        layers = list(range(bounds[k], bounds[k + 1]))
    elif spec == "specific":
        layers = [0, 3, 7, 11] if n_layers == 12 else sorted(set(np.linspace(0, n_layers - 1, 4).round().astype(int).tolist()))
    else:
        try:
            layers = [int(x) for x in spec.replace("+", ",").split(",") if x.strip()]  # "+" for the CLI
        except ValueError:
            raise ValueError(f"layers must be one of {LAYER_GROUPS} or a comma list of indices, got '{spec}'") from None
    bad = [i for i in layers if not 0 <= i < n_layers]
    if not layers or bad:
        raise ValueError(f"layers {layers} out of range for a {n_layers}-layer model")
    return layers


def sinkhorn_plan(cost: torch.Tensor, mask_q: torch.Tensor, mask_c: torch.Tensor, *, eps: float = 0.05,
                  iters: int = 100) -> torch.Tensor:
    """Entropic optimal transport plans (B, T, T) between uniform masses on question and context tokens.

    Stands in for the exact earth mover's plan of the paper's M7 variant; rows
    of the returned plan are renormalised to sum to 1 over the context.
    """
    mq = mask_q.to(cost.dtype)
    mc = mask_c.to(cost.dtype)
    a = mq / mq.sum(-1, keepdim=True).clamp_min(1)
    b = mc / mc.sum(-1, keepdim=True).clamp_min(1)
    logk = -cost / eps
    logk = logk.masked_fill(~(mask_q.unsqueeze(-1) & mask_c.unsqueeze(-2)), float("-inf"))
    loga = torch.log(a.clamp_min(1e-30))
    logb = torch.log(b.clamp_min(1e-30))
    u = torch.zeros_like(a)
    v = torch.zeros_like(b)
    for _ in range(iters):
        u = loga - torch.logsumexp(logk + v.unsqueeze(-2), dim=-1).nan_to_num(neginf=0.0)
        v = logb - torch.logsumexp(logk + u.unsqueeze(-1), dim=-2).nan_to_num(neginf=0.0)
    plan = torch.exp(logk + u.unsqueeze(-1) + v.unsqueeze(-2))
    plan = plan * mq.unsqueeze(-1) * mc.unsqueeze(-2)
    return plan / plan.sum(-1, keepdim=True).clamp_min(1e-30)


def layer_precision(hidden: torch.Tensor, attn: torch.Tensor, mask_q: torch.Tensor, mask_c: torch.Tensor, *,
                    agg: str = "max", weighting: str = "attention") -> torch.Tensor:
    """Eq. 4 for one layer of a batch: (B,) precision of question tokens against context tokens.

    hidden: (B, T, D) the layer's output states; attn: (B, H, R, T) its attention
    probabilities from the first R positions (R = T: the full maps; R < T: only
    the rows of the question tokens, which must all lie in the first R
    positions); mask_q / mask_c: (B, T) booleans marking question and context
    tokens. weighting 'attention' = a_mn * cos (the paper's eq. 4), 'argmax' =
    cos of the context token the question token attends to most (the authors'
    released code), 'none' = cos alone.
    """
    if agg not in AGGS:
        raise ValueError(f"agg must be one of {AGGS}, got '{agg}'")
    if weighting not in WEIGHTINGS:
        raise ValueError(f"weighting must be one of {WEIGHTINGS}, got '{weighting}'")
    rows = attn.shape[-2]
    if bool(mask_q[:, rows:].any()):
        raise ValueError(f"question tokens beyond the {rows} attention rows given")
    mask_q = mask_q[:, :rows]
    h = torch.nn.functional.normalize(hidden.float(), dim=-1)
    cos = h[:, :rows] @ h.transpose(1, 2)  # (B, R, T)
    a = attn.float().max(dim=1).values  # max over heads
    pair = mask_q.unsqueeze(-1) & mask_c.unsqueeze(-2)
    if weighting == "argmax":
        best = a.masked_fill(~pair, float("-inf")).argmax(-1, keepdim=True)
        token = cos.gather(-1, best).squeeze(-1)
    else:
        sim = a * cos if weighting == "attention" else cos
        if agg == "max":
            token = sim.masked_fill(~pair, float("-inf")).max(-1).values
        elif agg == "mean":
            token = (sim * pair).sum(-1) / pair.sum(-1).clamp_min(1)
        else:
            plan = sinkhorn_plan(1.0 - cos, mask_q, mask_c)
            token = (plan * sim).sum(-1)
    token = torch.where(mask_q, token, torch.zeros_like(token))
    return token.sum(-1) / mask_q.sum(-1).clamp_min(1)


def power_mean(values: np.ndarray, p: float, axis: int = -1) -> np.ndarray:
    """Eq. 3: (mean x^p)^(1/p); p=1 is the arithmetic mean. Non-positive values clip to 0 when p != 1."""
    values = np.asarray(values, dtype=np.float64)
    if p == 1:
        return values.mean(axis=axis)
    if p == 0:
        return np.exp(np.log(np.clip(values, 1e-12, None)).mean(axis=axis))
    v = np.clip(values, 0.0, None)
    return np.power(np.power(v, p).mean(axis=axis), 1.0 / p)


@dataclass
class Pair:
    """One model input: question ids and one context chunk's ids (no special tokens)."""

    q: tuple[int, ...]
    c: tuple[int, ...]


@dataclass(frozen=True)
class Layout:
    """Where a tokenizer puts special tokens around a pair: prefix q mid c suffix, with segment ids."""

    prefix: tuple[int, ...]
    mid: tuple[int, ...]
    suffix: tuple[int, ...]
    types: tuple[int, int, int, int, int]  # segment id of prefix, q, mid, c, suffix

    @property
    def n_special(self) -> int:
        return len(self.prefix) + len(self.mid) + len(self.suffix)


def pair_layout(tokenizer: Any) -> Layout:
    """Read the pair layout off the tokenizer by encoding two probe words ([CLS] a [SEP] b [SEP] for BERT)."""
    a = tokenizer("apple", add_special_tokens=False)["input_ids"]
    b = tokenizer("river", add_special_tokens=False)["input_ids"]
    enc = tokenizer("apple", "river", return_token_type_ids=True)
    ids = list(enc["input_ids"])
    types = list(enc.get("token_type_ids") or [0] * len(ids))
    ia = _find_sub(ids, a)
    ib = _find_sub(ids, b, start=ia + len(a))
    end_b = ib + len(b)

    def seg(lo: int, hi: int, default: int) -> int:
        return types[lo] if hi > lo else default

    return Layout(tuple(ids[:ia]), tuple(ids[ia + len(a):ib]), tuple(ids[end_b:]),
                  (seg(0, ia, 0), types[ia], seg(ia + len(a), ib, types[ia]), types[ib], seg(end_b, len(ids), types[ib])))


def build_input(layout: Layout, q: Sequence[int], c: Sequence[int]) -> tuple[list[int], list[int], list[bool], list[bool]]:
    """prefix q mid c suffix, with segment ids and the masks of question and context tokens."""
    parts = (layout.prefix, tuple(q), layout.mid, tuple(c), layout.suffix)
    ids: list[int] = []
    types: list[int] = []
    q_mask: list[bool] = []
    c_mask: list[bool] = []
    for k, part in enumerate(parts):
        ids.extend(part)
        types.extend([layout.types[k]] * len(part))
        q_mask.extend([k == 1] * len(part))
        c_mask.extend([k == 3] * len(part))
    return ids, types, q_mask, c_mask


def _find_sub(seq: list[int], sub: list[int], start: int = 0) -> int:
    for i in range(start, len(seq) - len(sub) + 1):
        if seq[i:i + len(sub)] == sub:
            return i
    raise ValueError("could not locate a segment inside the model input (unexpected tokenizer layout)")


def n_special(tokenizer: Any) -> int:
    """How many special tokens a pair input adds (3 for BERT, 4 for RoBERTa)."""
    return pair_layout(tokenizer).n_special


# ---------------------------------------------------------------------------
# Attention maps of the question rows only
# ---------------------------------------------------------------------------
# Eq. 4 reads the attention FROM question tokens only, and the question sits at
# the front of the input. Asking transformers for attentions forces the eager
# kernel and materialises every (T x T) map of every layer; instead the encoder
# runs with PyTorch's fused attention (sdpa) and this hook recomputes
# softmax(q k^T / sqrt(d) + mask) for the first R rows, in fp32, into a
# per-call sink. Same maths as eager attention; differences are float rounding.

ROWS_ATTENTION = "qrel_rows"
_SINK: contextvars.ContextVar[tuple[int, list[torch.Tensor]] | None] = contextvars.ContextVar("qrel_sink", default=None)


def _rows_attention(module: Any, query: torch.Tensor, key: torch.Tensor, value: torch.Tensor,
                    attention_mask: torch.Tensor | None, scaling: float | None = None, dropout: float = 0.0,
                    **kwargs: Any) -> tuple[torch.Tensor, None]:
    from transformers.integrations.sdpa_attention import sdpa_attention_forward

    out, _ = sdpa_attention_forward(module, query, key, value, attention_mask, scaling=scaling,
                                    dropout=dropout, **kwargs)
    sink = _SINK.get()
    if sink is not None:
        rows, store = sink
        scale = scaling if scaling is not None else query.size(-1) ** -0.5
        with torch.autocast(device_type=query.device.type, enabled=False):  # maps in fp32 under any dtype
            w = torch.matmul(query[:, :, :rows].float(), key.float().transpose(2, 3)) * scale
            if attention_mask is not None:
                m = attention_mask if attention_mask.shape[-2] == 1 else attention_mask[..., :rows, :]
                w = w + m.float()
            store.append(torch.softmax(w, dim=-1))
    return out, None


def _register() -> None:
    from transformers import AttentionInterface
    from transformers.masking_utils import AttentionMaskInterface, eager_mask

    AttentionInterface.register(ROWS_ATTENTION, _rows_attention)
    AttentionMaskInterface.register(ROWS_ATTENTION, eager_mask)  # additive float masks, as eager gets


def load_lrm_encoder(spec: str, *, device: str | None = None, attention: str = "rows") -> Any:
    """The encoder LRM runs: 'rows' (sdpa + question-row maps) when the model supports it, else 'full' (eager)."""
    from qascore.runtime.cache import shared
    from qascore.runtime.encoder import load_encoder, load_tokenizer

    if attention not in ("rows", "full"):
        raise ValueError(f"lrm attention must be 'rows' or 'full', got '{attention}'")
    if attention == "full":
        return load_encoder(spec, device=device)
    _register()
    try:
        model = load_encoder(spec, device=device, attn_implementation=ROWS_ATTENTION)
    except (ValueError, NotImplementedError):  # a model class without pluggable attention
        return load_encoder(spec, device=device)
    if shared(("qrel_rows_ok", id(model)), lambda: _rows_supported(model, load_tokenizer(spec))):
        return model
    return load_encoder(spec, device=device)  # a model whose attention bypasses the interface


@torch.inference_mode()
def _rows_supported(model: Any, tokenizer: Any) -> bool:
    """One tiny probe: does every attention layer report its rows through the hook?"""
    ids = tokenizer("apple", "river", return_tensors="pt")
    store: list[torch.Tensor] = []
    token = _SINK.set((2, store))
    try:
        dev = next(model.parameters()).device
        model(**{k: v.to(dev) for k, v in ids.items()})
    finally:
        _SINK.reset(token)
    return len(store) == int(model.config.num_hidden_layers)


def uses_rows(model: Any) -> bool:
    return getattr(model.config, "_attn_implementation", "eager") == ROWS_ATTENTION


@torch.inference_mode()
def score_pairs(model: Any, tokenizer: Any, pairs: Sequence[Pair], layers: Sequence[int],
                variants: Sequence[tuple[str, str]], *, max_cells: int | None = None, max_batch: int = 64,
                device: str = "cpu", desc: str = "QRel LRM", dtype: str | torch.dtype | None = None) -> np.ndarray:
    """Eq. 4 per pair, per layer in `layers`, per (agg, weighting) variant: (pairs, layers, variants).

    One forward pass serves every layer and variant. Batches hold at most
    `max_batch` inputs and `max_cells` = batch x width^2 attention cells.
    On a CPU the default budget (1<<18, e.g. one 500-token input or eight of
    180) keeps a batch's attention scores inside the cache: measured with
    MiniLM at one thread, four 450-token inputs per batch cost 1.4x as much
    per input as one at a time with eager attention. `dtype` bf16/fp16 runs
    the encoder under autocast; the matching itself stays fp32.
    """
    from qascore.progress import progress
    from qascore.runtime.encoder import autocast

    if max_cells is None:
        max_cells = 1 << 18 if torch.device(device).type == "cpu" else 1 << 22
    layout = pair_layout(tokenizer)
    built = [build_input(layout, pr.q, pr.c) for pr in pairs]
    order = sorted(range(len(pairs)), key=lambda i: -len(built[i][0]))
    batches: list[list[int]] = []
    cur: list[int] = []
    for i in order:
        width = len(built[cur[0]][0]) if cur else len(built[i][0])
        if cur and (len(cur) + 1 > max_batch or (len(cur) + 1) * width * width > max_cells):
            batches.append(cur)
            cur = []
        cur.append(i)
    if cur:
        batches.append(cur)
    out = np.zeros((len(pairs), len(layers), len(variants)))
    pad = tokenizer.pad_token_id or 0
    rows_mode = uses_rows(model)
    with autocast(device, dtype):  # one context for the call: fp32 weights are cast once, not per batch
        for batch in progress(batches, desc=desc, min_total=8):
            res, maps, mq, mc = _forward(model, layout, built, pairs, batch, pad, device, rows_mode)
            with torch.autocast(device_type=torch.device(device).type, enabled=False):  # matching in fp32
                for j, l in enumerate(layers):  # noqa: E741  (l: a layer index, as in the paper)
                    for v, (agg, weighting) in enumerate(variants):
                        out[batch, j, v] = layer_precision(res.hidden_states[l + 1], maps[l], mq, mc,
                                                           agg=agg, weighting=weighting).cpu().numpy()
    return out


def _forward(model: Any, layout: Layout, built: list[tuple[list[int], list[int], list[bool], list[bool]]],
             pairs: Sequence[Pair], batch: list[int], pad: int, device: str,
             rows_mode: bool) -> tuple[Any, list[torch.Tensor], torch.Tensor, torch.Tensor]:
    """One padded batch through the encoder: outputs, per-layer attention maps, question and context masks."""
    width = max(len(built[i][0]) for i in batch)
    ids = torch.full((len(batch), width), pad, dtype=torch.long)
    types = torch.zeros_like(ids)
    att = torch.zeros_like(ids)
    mq = torch.zeros((len(batch), width), dtype=torch.bool)
    mc = torch.zeros_like(mq)
    for r, i in enumerate(batch):
        b_ids, b_types, b_q, b_c = built[i]
        n = len(b_ids)
        ids[r, :n] = torch.tensor(b_ids)
        types[r, :n] = torch.tensor(b_types)
        att[r, :n] = 1
        mq[r, :n] = torch.tensor(b_q)
        mc[r, :n] = torch.tensor(b_c)
    kw = {"input_ids": ids.to(device), "attention_mask": att.to(device)}
    if getattr(model.config, "type_vocab_size", 1) > 1:
        kw["token_type_ids"] = types.to(device)
    if not rows_mode:
        res = model(**kw, output_hidden_states=True, output_attentions=True)
        return res, list(res.attentions), mq.to(device), mc.to(device)
    rows = len(layout.prefix) + max(len(pairs[i].q) for i in batch)
    maps: list[torch.Tensor] = []
    token = _SINK.set((rows, maps))
    try:
        res = model(**kw, output_hidden_states=True)
    finally:
        _SINK.reset(token)
    if len(maps) != int(model.config.num_hidden_layers):
        raise RuntimeError(f"attention hook saw {len(maps)} layers, expected {model.config.num_hidden_layers}")
    return res, maps, mq.to(device), mc.to(device)
