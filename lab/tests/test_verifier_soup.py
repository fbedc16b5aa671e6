"""lab/scripts/verifier_soup.py on two toy deltas: the soup's update is the weighted mean of the two updates."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest
import torch
from safetensors.torch import save_file

_spec = importlib.util.spec_from_file_location("verifier_soup", Path(__file__).parents[1] / "scripts" / "verifier_soup.py")
assert _spec and _spec.loader
vs = importlib.util.module_from_spec(_spec)
sys.modules["verifier_soup"] = vs
_spec.loader.exec_module(vs)


def toy(path: Path, seed: int, rank: int = 2, alpha: float = 4.0) -> dict[str, torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    t = {"top.0.q.lora_a": torch.randn(rank, 6, generator=g), "top.0.q.lora_b": torch.randn(5, rank, generator=g),
         "top.0.LayerNorm.weight": torch.randn(5, generator=g), "head.weight": torch.randn(1, 5, generator=g)}
    t = {k: v.half() for k, v in t.items()}
    meta = {"spec": {"layout": "r,q+t", "lora_rank": rank, "lora_alpha": alpha}, "temperature": 1.5}
    save_file(t, str(path), metadata={"qascore": json.dumps(meta)})
    return {k: v.float() for k, v in t.items()}


def update(t: dict[str, torch.Tensor], scale: float) -> torch.Tensor:
    return scale * t["top.0.q.lora_b"] @ t["top.0.q.lora_a"]


@pytest.mark.parametrize("weight, rank", [(1.0, 2), (0.5, 4), (0.3, 4)])
def test_soup_update_is_the_weighted_mean_of_the_updates(tmp_path, weight, rank):
    a, b = toy(tmp_path / "a.safetensors", 1), toy(tmp_path / "b.safetensors", 2)
    out, meta = vs.soup(str(tmp_path / "a.safetensors"), str(tmp_path / "b.safetensors"), rank, weight)
    want = weight * update(a, 2.0) + (1 - weight) * update(b, 2.0)  # alpha 4 / rank 2
    got = update({k: v.float() for k, v in out.items()}, 1.0)  # the soup's alpha equals its rank
    assert torch.allclose(got, want, atol=2e-2)
    assert torch.allclose(out["head.weight"].float(), weight * a["head.weight"] + (1 - weight) * b["head.weight"], atol=1e-3)
    assert meta["spec"]["lora_rank"] == rank and meta["spec"]["lora_alpha"] == rank
    assert meta["temperature"] == 1.5  # kept from the first: recalibrate before use


def test_soup_refuses_deltas_of_other_layouts(tmp_path):
    toy(tmp_path / "a.safetensors", 1)
    other = {"x.lora_a": torch.zeros(1, 2).half()}
    save_file(other, str(tmp_path / "b.safetensors"), metadata={"qascore": json.dumps({"spec": {"layout": "square"}})})
    with pytest.raises(SystemExit, match="differ"):
        vs.soup(str(tmp_path / "a.safetensors"), str(tmp_path / "b.safetensors"), 2, 0.5)
