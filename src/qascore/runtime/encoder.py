"""Loading BERT-style encoders (tokenizer + model) once per process.

A spec is the package default (`defaults.ENCODER`), a local directory or a
Hugging Face id. Models come back in eval mode, on the requested device and
dtype, with eager attention so attentions and hidden states are available.
"""

from __future__ import annotations

from typing import Any

import torch

from qascore.runtime import defaults
from qascore.runtime.cache import shared
from qascore.runtime.delta import base_hash


def pick_device(device: str | None = None) -> str:
    if device:
        return device
    return "cuda" if torch.cuda.is_available() else "cpu"


def pick_dtype(dtype: str | torch.dtype | None, device: str) -> torch.dtype:
    """fp32 on CPU by default; bf16/fp16 only where asked (GPU)."""
    if isinstance(dtype, torch.dtype):
        return dtype
    table = {None: torch.float32, "fp32": torch.float32, "float32": torch.float32,
             "bf16": torch.bfloat16, "bfloat16": torch.bfloat16, "fp16": torch.float16, "float16": torch.float16}
    if dtype not in table:
        raise ValueError(f"unknown dtype '{dtype}' (fp32, bf16, fp16)")
    return table[dtype]


def load_tokenizer(spec: str = defaults.ENCODER) -> Any:
    from transformers import AutoTokenizer

    path = defaults.resolve(spec)
    return shared(("tokenizer", path), lambda: AutoTokenizer.from_pretrained(path))


def load_encoder(spec: str = defaults.ENCODER, *, device: str | None = None,
                 dtype: str | torch.dtype | None = None, model_class: Any = None) -> Any:
    """The shared inference model for `spec` (one per spec/device/dtype/class per process)."""
    from transformers import AutoModel

    cls = model_class or AutoModel
    path = defaults.resolve(spec)
    dev = pick_device(device)
    dt = pick_dtype(dtype, dev)

    def make() -> Any:
        model = cls.from_pretrained(path, attn_implementation="eager", dtype=dt)
        return model.to(dev).eval()

    return shared(("encoder", path, dev, str(dt), cls.__name__), make)


def model_id(spec: str = defaults.ENCODER) -> str:
    """A short name plus weight hash, for signatures."""
    path = defaults.resolve(spec)
    name = spec.rsplit("/", 1)[-1] if not spec.startswith("pkg:") else spec[4:].split("/")[0]
    return f"{name}@{shared(('hash', path), lambda: base_hash(path))}"
