"""Low-rank adapters (LoRA) on the linear layers of a transformer stack.

Whole-model fine-tuning on CPU, shipped small: every linear layer of every
trained transformer layer gets W + (alpha / r) * B @ A, with W frozen and
only A (r x in) and B (out x r) trained. The delta then holds A and B (about
0.7 M numbers for MiniLM-L6 at r=16) instead of the layers themselves.
B starts at zero, so an untrained adapter leaves the model unchanged.

Written here rather than taken from `peft` because the verifier's top stacks
are plain `nn.ModuleList`s of BERT layers run by `runtime.partial.run_stack`,
and the adapter needs no more than this class; the parameter names
(`lora_a`, `lora_b`) are the delta's format.
"""

from __future__ import annotations

import math

import torch
from torch import nn


class LoRALinear(nn.Module):
    """A frozen `nn.Linear` plus a trainable low-rank update."""

    def __init__(self, base: nn.Linear, rank: int, alpha: float) -> None:
        super().__init__()
        self.base = base
        for p in base.parameters():
            p.requires_grad_(False)
        self.scale = alpha / rank
        self.lora_a = nn.Parameter(torch.empty(rank, base.in_features))
        self.lora_b = nn.Parameter(torch.zeros(base.out_features, rank))
        nn.init.kaiming_uniform_(self.lora_a, a=math.sqrt(5))
        self.merged = False

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = self.base(x)
        if self.merged:
            return out
        return out + (x @ self.lora_a.t() @ self.lora_b.t()) * self.scale

    @torch.no_grad()
    def merge(self) -> None:
        """Fold the update into W for inference (no extra matmuls); training must not follow."""
        if not self.merged:
            self.base.weight += (self.lora_b @ self.lora_a).to(self.base.weight.dtype) * self.scale
            self.merged = True


def add_lora(module: nn.Module, rank: int, alpha: float) -> int:
    """Wrap every `nn.Linear` below `module` in place; returns how many were wrapped."""
    count = 0
    for name, child in list(module.named_children()):
        if isinstance(child, nn.Linear):
            setattr(module, name, LoRALinear(child, rank, alpha))
            count += 1
        else:
            count += add_lora(child, rank, alpha)
    return count


def merge_lora(module: nn.Module) -> None:
    for m in module.modules():
        if isinstance(m, LoRALinear):
            m.merge()
