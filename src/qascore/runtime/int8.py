"""Dynamic int8 inference on CPU: a model's linear layers with int8 weights (one scale per output channel),
through torch's dynamic quantisation, with activations scaled one of two ways.

- Per batch (`int8_linears`): torch's own; a window's result moves with the windows read beside it, so a model
  read this way reads one window per batch (`runtime.reader.Reader.window_per_batch`).
- Per layer, fixed (`fixed_range_linears`): each linear layer's input is clamped to a range recorded once on
  calibration texts (`record_ranges`; `qascore-lab train int8-ranges` writes it beside the model,
  `ranges_file`) and quantised with that range's one scale, so a window reads the same alone and in any
  batch, and windows are batched (the judge's reader on short answers: about 2x one window per batch; its
  tagger 1.4-1.8x fp32; one thread; lab/results/judge.md round 2026-12-01c).

Why per channel: with one scale per weight matrix the reader's dev check lost 0.008 AUROC; with one per
output channel it kept it (lab/results/reader.md). torch marks its quantised-tensor constructors as
deprecated; the project pins torch, and tests/test_answerability.py runs this path, so a torch that
drops it fails there first.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any, Callable

import torch
from torch import nn

from qascore.runtime.delta import file_sha256

DTYPE = "int8"  # the models' CPU-only precision beside runtime.encoder.DTYPES
RANGES_SUFFIX = ".int8.json"
READING = "int8-ranges"  # how a card names a model read in int8 over its calibrated ranges


def require_cpu(device: str) -> None:
    """Refuse int8 on any device but the CPU (torch's dynamic int8 kernels are CPU-only)."""
    if torch.device(device).type != "cpu":
        raise ValueError(f"dtype int8 runs on the CPU only, not on {device}: use bf16 or fp16 there")


def int8_linears(module: nn.Module) -> nn.Module:
    """A copy of `module` whose nn.Linear layers run in int8 (CPU only; the copy is for inference)."""
    from torch.ao.quantization import per_channel_dynamic_qconfig, quantize_dynamic

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r".*quantiz.*deprecated", category=UserWarning)
        warnings.filterwarnings("ignore", message=r".*torch\.ao\.quantization.*", category=DeprecationWarning)
        return quantize_dynamic(module, {nn.Linear: per_channel_dynamic_qconfig})


class FixedRangeLinear(nn.Module):
    """A dynamic int8 linear layer whose input is quantised over a fixed range [lo, hi]: the input is clamped to
    it and one row holding lo and hi is read with it (then dropped), so torch's per-batch range is that range
    whatever else the batch holds."""

    def __init__(self, quantized: nn.Module, lo: float, hi: float) -> None:
        super().__init__()
        self.quantized, self.lo, self.hi = quantized, lo, hi
        bounds = torch.full((1, int(getattr(quantized, "in_features"))), hi)
        bounds[0, 0] = lo
        self.bounds = bounds

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        flat = torch.clamp(x.reshape(-1, x.shape[-1]), self.lo, self.hi)
        out = self.quantized(torch.cat([flat, self.bounds]))[:-1]
        return out.reshape(*x.shape[:-1], out.shape[-1])


def fixed_range_linears(module: nn.Module, ranges: dict[str, tuple[float, float]]) -> nn.Module:
    """`int8_linears(module)` with every linear layer's input quantised over its range in `ranges` (by the layer's
    name under `module`); a linear layer without a range is an error, not a silent per-batch scale."""
    from torch.ao.nn.quantized.dynamic import Linear as DynamicLinear

    out = int8_linears(module)
    for name, parent in list(out.named_modules()):
        for child_name, child in list(parent.named_children()):
            if not isinstance(child, DynamicLinear):
                continue
            full = f"{name}.{child_name}" if name else child_name
            if full not in ranges:
                raise KeyError(f"int8: no calibrated range for the linear layer {full}")
            setattr(parent, child_name, FixedRangeLinear(child, *ranges[full]))
    return out


def record_ranges(module: nn.Module, run: Callable[[], Any], margin: float) -> dict[str, tuple[float, float]]:
    """The least and greatest input of each linear layer under `module` while `run()` reads the calibration texts
    (one window per batch: no padding is read), each widened by `margin` (and always holding 0)."""
    seen: dict[str, list[float]] = {}

    def hook(name: str) -> Callable[..., None]:
        def record(_: nn.Module, args: tuple[torch.Tensor, ...]) -> None:
            lo, hi = seen.setdefault(name, [0.0, 0.0])
            seen[name] = [min(lo, float(args[0].min())), max(hi, float(args[0].max()))]
        return record

    handles = [m.register_forward_pre_hook(hook(n)) for n, m in module.named_modules() if isinstance(m, nn.Linear)]
    try:
        with torch.no_grad():
            run()
    finally:
        for h in handles:
            h.remove()
    return {n: (lo * margin, hi * margin) for n, (lo, hi) in seen.items()}


def ranges_file(model: str | Path) -> Path:
    """Where a model file's calibrated int8 ranges lie: beside it (`asserted.safetensors` -> `asserted.int8.json`)."""
    path = Path(model)
    return path.with_name(path.stem + RANGES_SUFFIX)


def reading(model: str | Path) -> str | None:
    """How a model reads in int8 over the ranges beside it, as cards and signatures name it (`READING@hash`); None
    where it has none."""
    path = ranges_file(model)
    return f"{READING}@{file_sha256(path)}" if path.is_file() else None


def read_ranges(model: str | Path) -> dict[str, tuple[float, float]] | None:
    """The calibrated ranges beside `model`, None where it has none; refused where they were recorded for
    another file (another model's activations)."""
    path = ranges_file(model)
    if not path.is_file():
        return None
    data = json.loads(path.read_text(encoding="utf-8"))
    if data["model_sha256"] != file_sha256(model):
        raise ValueError(f"int8: {path} was calibrated for another {Path(model).name} "
                         f"({data['model_sha256']}); rerun `qascore-lab train int8-ranges`")
    return {name: (float(lo), float(hi)) for name, (lo, hi) in data["ranges"].items()}
