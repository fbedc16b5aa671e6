"""Resumable training state as one safetensors file: tensors as tensors, the rest as JSON metadata.

No pickle: a checkpoint may be handed from one machine to another, and loading
one must not run code. Optimizer state is split into its tensors
(`opt/<param>/<key>`) and its JSON-able parts (param groups, scalar entries).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import torch
from safetensors.torch import load_file, save_file

_META = "qascore_checkpoint"


def save_checkpoint(path: str | Path, tensors: dict[str, torch.Tensor], meta: dict[str, Any]) -> None:
    """Write `tensors` and the JSON-able `meta` to `path` (written to a temporary file, then renamed)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    save_file({k: v.detach().to("cpu").contiguous() for k, v in tensors.items()}, str(tmp),
              metadata={_META: json.dumps(meta)})
    tmp.replace(path)


def load_checkpoint(path: str | Path) -> tuple[dict[str, torch.Tensor], dict[str, Any]]:
    from safetensors import safe_open

    with safe_open(str(path), framework="pt") as fh:
        meta = json.loads((fh.metadata() or {})[_META])
    return load_file(str(path)), meta


def save_training(path: str | Path, *, model: dict[str, torch.Tensor], best: dict[str, torch.Tensor],
                  opt: torch.optim.Optimizer, sched: Any, meta: dict[str, Any]) -> None:
    """One epoch's resumable state: the trained tensors, the best epoch's, optimizer, schedule, torch RNG,
    and the trainer's own JSON-able `meta` (epoch, history, its Python/NumPy generator state)."""
    opt_tensors, opt_rest = pack_optimizer(opt.state_dict())
    tensors = {f"model/{k}": v for k, v in model.items()}
    tensors.update({f"best/{k}": v for k, v in best.items()})
    tensors.update(opt_tensors, torch_rng=torch.get_rng_state())
    save_checkpoint(path, tensors, {**meta, "opt": opt_rest, "sched": sched.state_dict()})


def load_training(path: str | Path, opt: torch.optim.Optimizer, sched: Any
                  ) -> tuple[dict[str, torch.Tensor], dict[str, torch.Tensor], dict[str, Any]]:
    """Restore what `save_training` wrote into `opt`, `sched` and the torch RNG; returns the trained
    tensors, the best epoch's tensors and the trainer's meta."""
    tensors, meta = load_checkpoint(path)
    opt.load_state_dict(unpack_optimizer(tensors, meta["opt"]))
    sched.load_state_dict(meta["sched"])
    torch.set_rng_state(tensors["torch_rng"])
    return _prefixed(tensors, "model/"), _prefixed(tensors, "best/"), meta


def _prefixed(tensors: dict[str, torch.Tensor], prefix: str) -> dict[str, torch.Tensor]:
    return {k[len(prefix):]: v for k, v in tensors.items() if k.startswith(prefix)}


def pack_optimizer(state: dict[str, Any]) -> tuple[dict[str, torch.Tensor], dict[str, Any]]:
    """An optimizer `state_dict()` as (tensors, JSON-able rest)."""
    tensors: dict[str, torch.Tensor] = {}
    scalars: dict[str, dict[str, Any]] = {}
    for pid, entries in state["state"].items():
        for key, value in entries.items():
            if isinstance(value, torch.Tensor):
                tensors[f"opt/{pid}/{key}"] = value
            else:
                scalars.setdefault(str(pid), {})[key] = value
    return tensors, {"param_groups": state["param_groups"], "scalars": scalars}


def unpack_optimizer(tensors: dict[str, torch.Tensor], rest: dict[str, Any]) -> dict[str, Any]:
    """The inverse of `pack_optimizer`: a state dict `Optimizer.load_state_dict` accepts."""
    state: dict[int, dict[str, Any]] = {}
    for name, value in tensors.items():
        if name.startswith("opt/"):
            _, pid, key = name.split("/", 2)
            state.setdefault(int(pid), {})[key] = value
    for pid, entries in rest["scalars"].items():
        state.setdefault(int(pid), {}).update(entries)
    return {"state": state, "param_groups": rest["param_groups"]}
