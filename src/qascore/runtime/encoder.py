"""BERT-style encoders: loading once per process, and batched, de-duplicated encoding.

A spec is the package default (`defaults.ENCODER`), a local directory or a
Hugging Face id. Models come back in eval mode, on the requested device and
dtype, with eager attention so attentions and hidden states are available.

`Encoder` is what metrics use: it tokenizes, sorts texts by length, encodes
each distinct text once per call, and returns per-text results carrying the
WordPieces the vectors belong to (so token weighters such as IDF or KPW can
weigh exactly those tokens). Inputs longer than the model accepts are
truncated *visibly*: a `TruncationWarning` with the count, and a flag on each
result.
"""

from __future__ import annotations

import contextlib
import warnings
from dataclasses import dataclass, field
from typing import Any, Iterator, Sequence

import torch

from qascore.runtime import defaults
from qascore.runtime.batching import dedup, length_batches, token_cap
from qascore.runtime.cache import shared
from qascore.runtime.delta import base_hash
from qascore.runtime.windows import split_long_words


class TruncationWarning(UserWarning):
    """Some inputs were longer than the model's limit and were cut."""


def pick_device(device: str | None = None) -> str:
    """`device`, else the process default (`--device`), else CUDA when present, else CPU (runtime.devices)."""
    from qascore.runtime.devices import pick_device as pick

    return pick(device)


# Precision names accepted by every model-based metric's `dtype` option.
DTYPES = ("fp32", "bf16", "fp16")


def pick_dtype(dtype: str | torch.dtype | None, device: str) -> torch.dtype:
    """fp32 on CPU by default; bf16/fp16 only where asked (GPU)."""
    if isinstance(dtype, torch.dtype):
        return dtype
    table = {None: torch.float32, "fp32": torch.float32, "float32": torch.float32,
             "bf16": torch.bfloat16, "bfloat16": torch.bfloat16, "fp16": torch.float16, "float16": torch.float16}
    if dtype not in table:
        raise ValueError(f"unknown dtype '{dtype}' (fp32, bf16, fp16)")
    return table[dtype]


def cpu_has_bf16() -> bool:
    """Whether this CPU has bf16 units (AVX512-BF16 or AMX), where bf16 autocast runs 2-3x faster than fp32;
    without them it is emulated and slower. Torch names these checks privately: a torch without them says no."""
    import torch.cpu as tc

    return any(bool(getattr(tc, f, lambda: False)()) for f in ("_is_avx512_bf16_supported", "_is_amx_tile_supported"))


def autocast(device: str, dtype: str | torch.dtype | None) -> Any:
    """Mixed precision for a forward pass: a no-op for None/fp32, else torch.autocast (weights stay fp32)."""
    dt = pick_dtype(dtype, device)
    if dt == torch.float32:
        return contextlib.nullcontext()
    return torch.autocast(device_type=torch.device(device).type, dtype=dt)


def load_tokenizer(spec: str = defaults.ENCODER) -> Any:
    from transformers import AutoTokenizer

    path = defaults.resolve(spec)
    return shared(("tokenizer", path), lambda: quiet_tokenizer(AutoTokenizer.from_pretrained(path)))


def quiet_tokenizer(tok: Any) -> Any:
    """`tok` without transformers' "Token indices sequence length is longer than ..." line: qascore tokenises
    long texts on purpose and cuts or windows them itself, and says so once per metric (docs/long-inputs.md)."""
    flags = getattr(tok, "deprecation_warnings", None)
    if isinstance(flags, dict):
        flags["sequence-length-is-longer-than-the-specified-maximum"] = True  # transformers' "already said"
    return tok


def load_encoder(spec: str = defaults.ENCODER, *, device: str | None = None,
                 dtype: str | torch.dtype | None = None, model_class: Any = None,
                 attn_implementation: str = "eager") -> Any:
    """The shared inference model for `spec` (one per spec/device/dtype/class/attention per process).

    Eager attention by default, so attention maps can be asked for; another
    registered implementation (e.g. "sdpa", or a metric's own) gives a
    separate shared instance.
    """
    from transformers import AutoModel

    cls = model_class or AutoModel
    path = defaults.resolve(spec)
    dev = pick_device(device)
    dt = pick_dtype(dtype, dev)

    def make() -> Any:
        model = cls.from_pretrained(path, attn_implementation=attn_implementation, dtype=dt)
        return model.to(dev).eval()

    key = ("encoder", path, dev, str(dt), cls.__name__)
    return shared(key if attn_implementation == "eager" else (*key, attn_implementation), make)


def model_id(spec: str = defaults.ENCODER) -> str:
    """A short name plus weight hash, for signatures."""
    path = defaults.resolve(spec)
    name = spec.rsplit("/", 1)[-1] if not spec.startswith("pkg:") else spec[4:].split("/")[0]
    return f"{name}@{shared(('hash', path), lambda: base_hash(path))}"


# ---------------------------------------------------------------------------
# Encoding
# ---------------------------------------------------------------------------

@dataclass
class Tokenized:
    """One input as the model sees it.

    ids/tokens include the special tokens the tokenizer adds ([CLS], [SEP]);
    `special[i]` marks those. `segments` is 0/1 per token (pairs: 0 for the
    first text, 1 for the second). `truncated` is True when the input was cut
    to the model's limit; `length` is the token count before cutting.
    """

    text: str | tuple[str, str]
    ids: list[int]
    tokens: list[str]
    special: list[bool]
    segments: list[int]
    truncated: bool = False
    length: int = 0

    def content(self) -> list[int]:
        """Positions of the non-special tokens (what a TokenWeighter weighs)."""
        return [i for i, s in enumerate(self.special) if not s]


@dataclass
class Encoded(Tokenized):
    """A tokenized input with its vectors (float32, on the encoder's device).

    hidden: [T, d] states of the requested layer (0 = embeddings output).
    layers: [L+1, T, d] every layer's states, when asked for (`all_layers`).
    attentions: [L, H, T, T] attention probabilities, when asked for.
    """

    hidden: torch.Tensor = field(default=None, repr=False)  # type: ignore[assignment]
    layers: torch.Tensor | None = field(default=None, repr=False)
    attentions: torch.Tensor | None = field(default=None, repr=False)


class _Stop(Exception):
    """Raised by a forward hook to end the forward pass after the needed layer."""

    def __init__(self, output: torch.Tensor) -> None:
        super().__init__()
        self.output = output


@contextlib.contextmanager
def _quiet_transformers() -> Iterator[None]:
    """Silence transformers' own 'sequence too long' message: we report truncation ourselves."""
    from transformers.utils import logging as hf_logging

    level = hf_logging.get_verbosity()
    hf_logging.set_verbosity_error()
    try:
        yield
    finally:
        hf_logging.set_verbosity(level)


class Encoder:
    """Batched, de-duplicated inference with a shared BERT-style encoder.

    layer: which hidden state `embed` returns (0 = embeddings output,
    num_layers = last; negative counts from the end; default last).
    all_layers / attentions: also return every layer's states / attentions.
    batch_size: sequences per forward pass (texts are sorted by length first);
    max_tokens: also cap padded tokens per batch (default: batching.CPU_BATCH_TOKENS on a CPU, none elsewhere).
    max_length: token limit (default: the smaller of the tokenizer's and the
    model's position limit). Longer inputs are cut and reported.
    """

    def __init__(self, spec: str = defaults.ENCODER, *, layer: int | None = None, batch_size: int = 64,
                 device: str | None = None, dtype: str | torch.dtype | None = None,
                 max_length: int | None = None, max_tokens: int | None = None, all_layers: bool = False,
                 attentions: bool = False) -> None:
        self.spec = spec
        self.device = pick_device(device)
        self.dtype = pick_dtype(dtype, self.device)
        self.tokenizer = load_tokenizer(spec)
        self.model = load_encoder(spec, device=self.device, dtype=self.dtype)
        self.num_layers = int(self.model.config.num_hidden_layers)
        self.hidden_size = int(self.model.config.hidden_size)
        self.layer = self.check_layer(self.num_layers if layer is None else layer)
        if batch_size < 1:
            raise ValueError("batch_size must be >= 1")
        self.batch_size = batch_size
        self.max_tokens = max_tokens if max_tokens is not None else token_cap(self.device, None)
        self.all_layers = all_layers
        self.attentions = attentions
        limits = [getattr(self.model.config, "max_position_embeddings", None),
                  getattr(self.tokenizer, "model_max_length", None)]
        limit = min([x for x in limits if isinstance(x, int) and 0 < x < 1_000_000] or [512])
        self.max_length = min(max_length, limit) if max_length else limit
        tok = self.tokenizer
        self._special_ids = {i for i in (tok.cls_token_id, tok.sep_token_id, tok.bos_token_id, tok.eos_token_id,
                                         tok.pad_token_id) if i is not None}
        self.pad_id = tok.pad_token_id if tok.pad_token_id is not None else 0
        self.last_truncated = 0  # how many distinct inputs the last call cut

    # -- identity -------------------------------------------------------
    @property
    def model_id(self) -> str:
        return model_id(self.spec)

    def check_layer(self, layer: int) -> int:
        if layer < 0:
            layer = self.num_layers + 1 + layer
        if not 0 <= layer <= self.num_layers:
            raise ValueError(f"layer must be in 0..{self.num_layers} for {self.spec} (got {layer})")
        return layer

    # -- tokenization -----------------------------------------------------
    def tokenize(self, texts: Sequence[str], *, warn: bool = True) -> list[Tokenized]:
        """WordPieces (with special tokens) of each text, cut to max_length (reported unless warn=False)."""
        return self._tokenize(list(texts), None, warn)

    def tokenize_pairs(self, firsts: Sequence[str], seconds: Sequence[str]) -> list[Tokenized]:
        """Segment A + segment B inputs; when too long, the second text is cut."""
        if len(firsts) != len(seconds):
            raise ValueError("tokenize_pairs needs as many first as second texts")
        return self._tokenize(list(firsts), list(seconds))

    def _tokenize(self, firsts: list[str], seconds: list[str] | None, warn: bool = True) -> list[Tokenized]:
        tok = self.tokenizer
        if not firsts:
            self.last_truncated = 0
            return []
        # A word over the tokenizer's 100 characters (a DNA string, a hash) is read in pieces it knows, not as
        # one [UNK] that matches any other unknown word; texts without one are tokenised as they are.
        read_a = [split_long_words(tok, t)[0] for t in firsts]
        read_b = None if seconds is None else [split_long_words(tok, t)[0] for t in seconds]
        with _quiet_transformers():
            args = (read_a,) if read_b is None else (read_a, read_b)
            enc = tok(*args, add_special_tokens=True, truncation=False, return_attention_mask=False,
                      return_token_type_ids=True)
            out: list[Tokenized] = []
            cut = 0
            for i, ids in enumerate(enc["input_ids"]):
                segs = enc["token_type_ids"][i] if enc.get("token_type_ids") else [0] * len(ids)
                length = len(ids)
                truncated = length > self.max_length
                if truncated:
                    cut += 1
                    ids, segs = self._cut(read_a[i], None if read_b is None else read_b[i], ids, segs)
                text: str | tuple[str, str] = firsts[i] if seconds is None else (firsts[i], seconds[i])
                out.append(Tokenized(text, list(ids), tok.convert_ids_to_tokens(list(ids)),
                                     [t in self._special_ids for t in ids], list(segs), truncated, length))
        self.last_truncated = cut
        if cut and warn:
            warnings.warn(f"{cut} of {len(firsts)} inputs were longer than {self.max_length} tokens "
                          f"({self.spec}) and were truncated", TruncationWarning, stacklevel=3)
        return out

    def _cut(self, first: str, second: str | None, ids: list[int], segs: list[int]) -> tuple[list[int], list[int]]:
        if second is None:  # keep [CLS] + the first tokens + the closing special token
            return ids[: self.max_length - 1] + ids[-1:], segs[: self.max_length - 1] + segs[-1:]
        for strategy in ("only_second", "longest_first"):
            try:
                enc = self.tokenizer(first, second, add_special_tokens=True, truncation=strategy,
                                     max_length=self.max_length, return_token_type_ids=True)
            except Exception:  # the first text alone is too long for only_second
                continue
            if len(enc["input_ids"]) <= self.max_length:
                return list(enc["input_ids"]), list(enc.get("token_type_ids") or [0] * len(enc["input_ids"]))
        raise ValueError(f"cannot fit the pair into {self.max_length} tokens")

    # -- encoding ---------------------------------------------------------
    def embed(self, texts: Sequence[str], *, layer: int | None = None, all_layers: bool | None = None,
              attentions: bool | None = None) -> list[Encoded]:
        """Encode texts; the result is aligned with `texts` (duplicates share one object)."""
        unique, where = dedup(list(texts))
        done = self._encode(self.tokenize(unique), layer, all_layers, attentions)
        return [done[k] for k in where]

    def embed_pairs(self, firsts: Sequence[str], seconds: Sequence[str], *, layer: int | None = None,
                    all_layers: bool | None = None, attentions: bool | None = None) -> list[Encoded]:
        """Encode (A, B) pairs jointly (cross-attention); `segments` tells A from B."""
        pairs = list(zip(firsts, seconds))
        if len(pairs) != len(firsts) or len(firsts) != len(seconds):
            raise ValueError("embed_pairs needs as many first as second texts")
        unique, where = dedup(pairs)
        toks = self.tokenize_pairs([a for a, _ in unique], [b for _, b in unique])
        done = self._encode(toks, layer, all_layers, attentions)
        return [done[k] for k in where]

    def _encode(self, items: list[Tokenized], layer: int | None, all_layers: bool | None,
                attentions: bool | None) -> list[Encoded]:
        from qascore.progress import progress

        layer = self.layer if layer is None else self.check_layer(layer)
        want_all = self.all_layers if all_layers is None else all_layers
        want_att = self.attentions if attentions is None else attentions
        batches = length_batches([len(x.ids) for x in items], self.batch_size, self.max_tokens)
        out: list[Encoded | None] = [None] * len(items)
        with torch.inference_mode():
            for idx in progress(batches, total=len(batches), desc="encoding", min_total=8):
                batch = [items[i] for i in idx]
                hidden, layers, atts = self._forward(batch, layer, want_all, want_att)
                for j, item in enumerate(batch):
                    n = len(item.ids)
                    out[idx[j]] = Encoded(
                        item.text, item.ids, item.tokens, item.special, item.segments, item.truncated, item.length,
                        hidden=hidden[j, :n],
                        layers=None if layers is None else layers[:, j, :n],
                        attentions=None if atts is None else atts[:, j, :, :n, :n])
        return out  # type: ignore[return-value]

    def _forward(self, batch: list[Tokenized], layer: int, want_all: bool, want_att: bool
                 ) -> tuple[torch.Tensor, torch.Tensor | None, torch.Tensor | None]:
        width = max(len(b.ids) for b in batch)
        ids = torch.full((len(batch), width), self.pad_id, dtype=torch.long)
        segs = torch.zeros((len(batch), width), dtype=torch.long)
        mask = torch.zeros((len(batch), width), dtype=torch.long)
        for j, b in enumerate(batch):
            ids[j, : len(b.ids)] = torch.tensor(b.ids)
            segs[j, : len(b.ids)] = torch.tensor(b.segments)
            mask[j, : len(b.ids)] = 1
        kwargs: dict[str, Any] = {"input_ids": ids.to(self.device), "attention_mask": mask.to(self.device)}
        if getattr(self.model.config, "type_vocab_size", 0) and self.model.config.type_vocab_size > 1:
            kwargs["token_type_ids"] = segs.to(self.device)
        if want_all or want_att:
            out = self.model(**kwargs, output_hidden_states=True, output_attentions=want_att)
            stack = torch.stack(tuple(out.hidden_states), 0).float()
            atts = torch.stack(tuple(out.attentions), 0).float() if want_att else None
            return stack[layer], (stack if want_all else None), atts
        return self._one_layer(kwargs, layer).float(), None, None

    def _one_layer(self, kwargs: dict[str, Any], layer: int) -> torch.Tensor:
        """Hidden states of one layer, stopping the forward pass there (as bert_score drops upper layers)."""
        module = self._layer_module(layer) if layer < self.num_layers else None
        if module is None:
            return self.model(**kwargs, output_hidden_states=True).hidden_states[layer]

        def hook(_mod: Any, _inp: Any, output: Any) -> None:
            raise _Stop(output[0] if isinstance(output, (tuple, list)) else output)

        handle = module.register_forward_hook(hook)
        try:
            out = self.model(**kwargs)
        except _Stop as stop:
            return stop.output
        finally:
            handle.remove()
        return out.last_hidden_state  # pragma: no cover - the hook always fires

    def _layer_module(self, layer: int) -> torch.nn.Module | None:
        """The module whose output is hidden_states[layer], for known BERT-like layouts."""
        m = self.model
        if layer == 0:
            return getattr(m, "embeddings", None)
        for path in ("encoder.layer", "layers", "transformer.layer", "encoder.layers"):
            obj: Any = m
            for part in path.split("."):
                obj = getattr(obj, part, None)
            if isinstance(obj, torch.nn.ModuleList) and len(obj) == self.num_layers:
                return obj[layer - 1]
        return None


def get_encoder(spec: str = defaults.ENCODER, **options: Any) -> Encoder:
    """A shared Encoder per (spec, options): metrics that agree on settings share one."""
    key = ("Encoder", spec, tuple(sorted((k, str(v)) for k, v in options.items())))
    return shared(key, lambda: Encoder(spec, **options))
