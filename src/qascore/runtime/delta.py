"""Trained parts shipped as a small delta on a pinned base model.

A delta is a safetensors file holding only the tensors that training changed
(top layers, heads, adapters), plus JSON metadata naming the base model and
its hash, so loading checks it is applied to the same base it was trained on.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Iterable, Mapping

import torch
from safetensors.torch import load_file, save_file


def file_sha256(path: str | Path, length: int = 12) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()[:length]


def base_hash(model_dir: str | Path) -> str:
    """Hash of a model directory's weight files (what a delta must be applied to)."""
    p = Path(model_dir)
    files = sorted(p.glob("*.safetensors")) + sorted(p.glob("*.bin")) if p.is_dir() else [p]
    if not files:
        return "unknown"
    return hashlib.sha256("".join(file_sha256(f) for f in files).encode()).hexdigest()[:12]


def save_delta(model: torch.nn.Module, path: str | Path, names: Iterable[str], meta: Mapping[str, object],
               dtype: torch.dtype = torch.float16) -> None:
    """Save the named parameters (and buffers) of `model`; `meta` is stored as JSON."""
    state = model.state_dict()
    tensors = {n: state[n].detach().to("cpu", dtype if state[n].is_floating_point() else state[n].dtype).contiguous()
               for n in names}
    save_file(tensors, str(path), metadata={"qascore": json.dumps(dict(meta), sort_keys=True)})


def read_meta(path: str | Path) -> dict:
    from safetensors import safe_open

    with safe_open(str(path), framework="pt") as fh:
        return json.loads((fh.metadata() or {}).get("qascore", "{}"))


def update_meta(path: str | Path, updates: Mapping[str, object]) -> None:
    """Rewrite a delta's metadata, its tensors byte for byte as they were (e.g. a calibration added later)."""
    meta = read_meta(path)
    meta.update(updates)
    tensors = load_file(str(path))
    save_file(tensors, str(path), metadata={"qascore": json.dumps(meta, sort_keys=True)})


def apply_delta(model: torch.nn.Module, path: str | Path, *, expect_base: str | None = None,
                required: Iterable[str] = ()) -> dict:
    """Load a delta into `model` in place; returns its metadata.

    Refused, naming the file: tensors the model lacks, `required` names the delta lacks (a head without its
    bias would keep the base's random one), and NaN or infinite values (every score would be NaN)."""
    meta = read_meta(path)
    if expect_base and meta.get("base_hash") not in (None, expect_base):
        raise ValueError(f"{path} was trained on base {meta.get('base_hash')}, not {expect_base}")
    tensors = load_file(str(path))
    own = model.state_dict()
    missing = [n for n in tensors if n not in own]
    if missing:
        raise ValueError(f"{path}: tensors {missing[:3]} do not exist in the model")
    absent = [n for n in required if n not in tensors]
    if absent:
        raise ValueError(f"{path}: holds no {', '.join(absent[:3])}{', ...' if len(absent) > 3 else ''}; a delta "
                         f"holds every weight that was trained (the file is damaged or cut short)")
    bad = next((n for n, t in tensors.items() if t.is_floating_point() and not bool(torch.isfinite(t).all())), None)
    if bad is not None:
        raise ValueError(f"{path}: tensor {bad} holds NaN or infinite values (the file is damaged)")
    with torch.no_grad():
        for n, t in tensors.items():
            own[n].copy_(t.to(own[n].dtype))
    return meta
