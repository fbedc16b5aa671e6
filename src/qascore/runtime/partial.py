"""Frozen lower layers of a BERT encoder, run once and cached.

Fine-tuning only the top layers of an encoder makes CPU training affordable:
the embeddings and lower layers never change, so their output for each input
is computed once (no grad, de-duplicated, length-sorted batches) and every
epoch trains the top layers over that cache.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any, Callable, Hashable, Sequence

import torch
from torch import nn

Tokens = tuple[tuple[int, ...], tuple[int, ...]]  # (input ids, token type ids)
PositionBias = Callable[[torch.Tensor], torch.Tensor]   # hidden states -> additive attention bias


def position_bias_of(base: nn.Module) -> PositionBias | None:
    """The relative-position bias an encoder adds in every layer (MPNet), or None (BERT: absolute positions only).

    Running layers one by one skips the encoder's forward, where such a bias is made, so it is passed on here.
    """
    return getattr(base.encoder, "compute_position_bias", None)


def _run_layer(layer: nn.Module, h: torch.Tensor, ext: torch.Tensor, bias: torch.Tensor | None) -> torch.Tensor:
    """One transformer layer; BERT's returns the states, MPNet's a tuple that starts with them."""
    kw: dict[str, Any] = {"attention_mask": ext}
    if bias is not None:
        kw["position_bias"] = bias
    out = layer(h, **kw)
    return out[0] if isinstance(out, tuple) else out


def additive_mask(mask: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """(batch, len) 1/0 mask -> the (batch, 1, 1, len) additive mask eager attention expects."""
    return (1.0 - mask[:, None, None, :].to(dtype)) * torch.finfo(dtype).min


def pad_tokens(items: Sequence[Tokens], pad_id: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Right-pad token id / type id sequences into (ids, types, mask)."""
    n = max(len(i) for i, _ in items)
    ids = torch.full((len(items), n), pad_id, dtype=torch.long)
    types = torch.zeros((len(items), n), dtype=torch.long)
    mask = torch.zeros((len(items), n), dtype=torch.long)
    for k, (i, t) in enumerate(items):
        ids[k, :len(i)] = torch.tensor(i)
        types[k, :len(t)] = torch.tensor(t)
        mask[k, :len(i)] = 1
    return ids, types, mask


def pad_states(states: Sequence[torch.Tensor], dtype: torch.dtype) -> tuple[torch.Tensor, torch.Tensor]:
    """Right-pad cached (len, hidden) states into (batch, len, hidden) and a 1/0 mask."""
    n = max(s.shape[0] for s in states)
    dev = states[0].device
    out = torch.zeros((len(states), n, states[0].shape[1]), dtype=dtype, device=dev)
    mask = torch.zeros((len(states), n), dtype=torch.long, device=dev)
    for k, s in enumerate(states):
        out[k, :s.shape[0]] = s.to(dtype)
        mask[k, :s.shape[0]] = 1
    return out, mask


class LowerStack(nn.Module):
    """Embeddings + the first `n_layers` transformer layers of a BERT model, frozen."""

    def __init__(self, embeddings: nn.Module, layers: Sequence[nn.Module], bias: PositionBias | None = None) -> None:
        super().__init__()
        self.embeddings = embeddings
        self.layers = nn.ModuleList(layers)
        self.bias = bias
        for p in self.parameters():
            p.requires_grad_(False)

    @torch.no_grad()
    def forward(self, ids: torch.Tensor, types: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return run_stack(self.layers, self.embeddings(input_ids=ids, token_type_ids=types), mask, self.bias)


def run_stack(layers: Sequence[nn.Module] | nn.ModuleList, h: torch.Tensor, mask: torch.Tensor,
              bias: PositionBias | None = None) -> torch.Tensor:
    """Apply transformer layers to hidden states under a 1/0 padding mask. MPNet's position bias depends
    only on the length, so it is made once for the whole stack (as MPNet's own forward does)."""
    ext = additive_mask(mask, h.dtype)
    position = bias(h) if bias is not None and len(layers) else None
    for layer in layers:
        h = _run_layer(layer, h, ext, position)
    return h


class StateCache:
    """Lower-stack outputs kept across calls (e.g. several configurations trained in one process).

    Valid only for one frozen lower stack: `key` names it (encoder + number of
    lower layers) and a lookup under another key is refused.
    """

    def __init__(self, path: str | Path | None = None) -> None:
        self.key: Hashable | None = None
        self.states: dict[Tokens, torch.Tensor] = {}
        self.path = Path(path) if path else None
        self._stored: dict[str, torch.Tensor] = {}
        self._saved = 0

    def bind(self, key: Hashable) -> None:
        if self.key is None:
            self.key = key
            if self.path is not None:
                self._load()
        elif self.key != key:
            raise ValueError(f"state cache holds {self.key}, not {key}")

    @staticmethod
    def digest(tokens: Tokens) -> str:
        return hashlib.sha1(repr(tokens).encode()).hexdigest()

    def get(self, tokens: Tokens) -> torch.Tensor | None:
        hit = self.states.get(tokens)
        if hit is None and self._stored:
            hit = self._stored.pop(self.digest(tokens), None)
            if hit is not None:
                self.states[tokens] = hit
        return hit

    def _file(self) -> Path:
        assert self.path is not None
        tag = hashlib.sha1(repr(self.key).encode()).hexdigest()[:10]
        return self.path / f"lower-{tag}.safetensors"

    def _load(self) -> None:
        from safetensors.torch import load_file

        f = self._file()
        if f.exists():
            self._stored = load_file(str(f))

    def save(self) -> None:
        """Write every state to disk (safetensors keyed by a digest of the tokens), for a later run."""
        if self.path is None or self.key is None or len(self.states) == self._saved:
            return
        from safetensors.torch import save_file

        self.path.mkdir(parents=True, exist_ok=True)
        tensors = dict(self._stored)
        tensors.update({self.digest(t): v.contiguous() for t, v in self.states.items()})
        save_file(tensors, str(self._file()))
        self._saved = len(self.states)


def lower_states(lower: LowerStack, items: Sequence[Tokens], pad_id: int, *, batch_size: int = 64,
                 store_dtype: torch.dtype = torch.float16, cache: StateCache | None = None,
                 tick: Callable[[int], None] | None = None) -> list[torch.Tensor]:
    """Lower-stack output for each distinct input, unpadded, in the input order.

    Inputs are run longest-first in batches so padding stays small; identical
    inputs (a question-reference pair shared by many triples) are run once,
    and inputs already in `cache` are not run again.
    """
    known = cache.states if cache is not None else {}
    index: dict[Tokens, int] = {}
    uniq: list[Tokens] = []
    for it in items:
        if it not in index and (cache is None or cache.get(it) is None):
            index[it] = len(uniq)
            uniq.append(it)
    order = sorted(range(len(uniq)), key=lambda k: -len(uniq[k][0]))
    out: list[torch.Tensor | None] = [None] * len(uniq)
    lower.eval()
    dev = next(lower.parameters()).device
    for start in range(0, len(order), batch_size):
        chunk = order[start:start + batch_size]
        ids, types, mask = (t.to(dev) for t in pad_tokens([uniq[k] for k in chunk], pad_id))
        h = lower(ids, types, mask)
        for row, k in enumerate(chunk):
            out[k] = h[row, :len(uniq[k][0])].to(store_dtype).clone()
        if tick:
            tick(len(chunk))
    if cache is not None:
        for it, k in index.items():
            known[it] = out[k].to(torch.float16)  # type: ignore[union-attr]
        return [known[it].to(store_dtype) for it in items]
    return [out[index[it]] for it in items]  # type: ignore[misc]
