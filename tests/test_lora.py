"""LoRA adapters: an untrained adapter changes nothing, merging is exact, counts are right."""

from __future__ import annotations

import torch
from torch import nn

from qascore.runtime.lora import LoRALinear, add_lora, merge_lora


def test_untrained_adapter_is_identity():
    torch.manual_seed(0)
    lin = nn.Linear(6, 4)
    x = torch.randn(3, 6)
    ref = lin(x)
    assert torch.equal(LoRALinear(lin, rank=2, alpha=4)(x), ref)


def test_update_and_merge_match_hand_computation():
    torch.manual_seed(0)
    lin = nn.Linear(3, 2, bias=False)
    w = lin.weight.detach().clone()
    ada = LoRALinear(lin, rank=1, alpha=2)          # scale = alpha / rank = 2
    with torch.no_grad():
        ada.lora_a.copy_(torch.tensor([[1.0, 0.0, -1.0]]))
        ada.lora_b.copy_(torch.tensor([[0.5], [2.0]]))
    x = torch.tensor([[1.0, 2.0, 3.0]])
    # B A = [[0.5, 0, -0.5], [2, 0, -2]]; (B A) x = [-1, -4]; times 2 -> [-2, -8]
    expected = x @ w.t() + torch.tensor([[-2.0, -8.0]])
    assert torch.allclose(ada(x), expected, atol=1e-6)
    merge_lora(ada)
    assert ada.merged
    assert torch.allclose(ada(x), expected, atol=1e-6)


def test_add_lora_wraps_every_linear_and_freezes_base():
    net = nn.Sequential(nn.Linear(4, 4), nn.ReLU(), nn.Sequential(nn.Linear(4, 2), nn.LayerNorm(2)))
    assert add_lora(net, rank=2, alpha=4) == 2
    trainable = [n for n, p in net.named_parameters() if p.requires_grad]
    lora = [n for n in trainable if n.endswith(("lora_a", "lora_b"))]
    assert len(lora) == 4
    assert all("base" not in n for n in lora)
    assert not any(p.requires_grad for n, p in net.named_parameters() if ".base." in n)
