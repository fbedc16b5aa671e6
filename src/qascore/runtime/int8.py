"""Dynamic int8 inference on CPU: a model's linear layers with int8 weights (one scale per output channel)
and activations quantised per batch, through torch's dynamic quantisation.

Why per channel: with one scale per weight matrix the reader's dev check lost 0.008 AUROC; with one per
output channel it kept it (lab/results/reader.md). torch marks its quantised-tensor constructors as
deprecated; the project pins torch, and tests/test_answerability.py runs this path, so a torch that
drops it fails there first.
"""

from __future__ import annotations

import warnings

from torch import nn


def int8_linears(module: nn.Module) -> nn.Module:
    """A copy of `module` whose nn.Linear layers run in int8 (CPU only; the copy is for inference)."""
    from torch.ao.quantization import per_channel_dynamic_qconfig, quantize_dynamic

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r".*quantiz.*deprecated", category=UserWarning)
        warnings.filterwarnings("ignore", message=r".*torch\.ao\.quantization.*", category=DeprecationWarning)
        return quantize_dynamic(module, {nn.Linear: per_channel_dynamic_qconfig})
