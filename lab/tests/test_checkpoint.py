"""Training checkpoints: safetensors + JSON, no pickle; an optimizer's state survives the round trip."""

from __future__ import annotations

import numpy as np
import torch

from qascore_lab.train.checkpoint import load_checkpoint, pack_optimizer, save_checkpoint, unpack_optimizer


def test_optimizer_and_rng_round_trip(tmp_path):
    torch.manual_seed(0)
    w = torch.nn.Parameter(torch.randn(3, 2))
    opt = torch.optim.AdamW([w], lr=0.1, betas=(0.8, 0.9))
    for _ in range(3):
        opt.zero_grad()
        (w ** 2).sum().backward()
        opt.step()
    rng = np.random.default_rng(5)
    rng.random(7)
    tensors, rest = pack_optimizer(opt.state_dict())
    save_checkpoint(tmp_path / "c.safetensors", {**tensors, "w": w}, {"opt": rest, "rng": rng.bit_generator.state})
    loaded, meta = load_checkpoint(tmp_path / "c.safetensors")
    w2 = torch.nn.Parameter(loaded["w"].clone())
    opt2 = torch.optim.AdamW([w2], lr=0.1, betas=(0.8, 0.9))
    opt2.load_state_dict(unpack_optimizer(loaded, meta["opt"]))
    rng2 = np.random.default_rng(0)
    rng2.bit_generator.state = meta["rng"]
    assert rng2.random() == rng.random()
    for o, p in ((opt, w), (opt2, w2)):            # the next step is the same from either state
        o.zero_grad()
        (p ** 2).sum().backward()
        o.step()
    assert torch.equal(w, w2)
