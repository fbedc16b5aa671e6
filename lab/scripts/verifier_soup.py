"""Average two verifier deltas trained from the same starting delta (a "model soup", Wortsman et al. 2022).

The merged weights of each delta are W + (alpha / r) * B @ A on every adapted linear layer; the soup's
update is the mean of the two updates, written back as one LoRA of rank --rank by a truncated SVD (exact
when --rank is at least the sum of the two ranks). LayerNorms and the head, trained in full, are averaged.
The soup keeps the first delta's metadata with its rank changed; calibrate it afterwards
(`qascore-lab train verifier --model ava --calibrate SOUP`), since its temperature and threshold are not
either parent's.

Usage, from the repo root: python lab/scripts/verifier_soup.py FIRST SECOND OUT [--rank R] [--weight W]
(W: the first delta's share, default 0.5)."""

from __future__ import annotations

import argparse
import json

import torch
from safetensors import safe_open
from safetensors.torch import save_file


def read(path: str) -> tuple[dict[str, torch.Tensor], dict]:
    with safe_open(path, "pt") as fh:
        meta = json.loads(fh.metadata()["qascore"])
        return {k: fh.get_tensor(k).float() for k in fh.keys()}, meta


def soup(first: str, second: str, rank: int, weight: float) -> tuple[dict[str, torch.Tensor], dict]:
    (ta, ma), (tb, mb) = read(first), read(second)
    if set(ta) != set(tb) or ma["spec"].get("layout") != mb["spec"].get("layout"):
        raise SystemExit("the two deltas differ in layout or tensors")
    scale_a = ma["spec"]["lora_alpha"] / ma["spec"]["lora_rank"]
    scale_b = mb["spec"]["lora_alpha"] / mb["spec"]["lora_rank"]
    out: dict[str, torch.Tensor] = {}
    for name in sorted(ta):
        if name.endswith("lora_a"):
            stem = name[: -len("lora_a")]
            upd = weight * scale_a * ta[stem + "lora_b"] @ ta[name] + \
                (1 - weight) * scale_b * tb[stem + "lora_b"] @ tb[name]
            u, s, vh = torch.linalg.svd(upd, full_matrices=False)
            k = min(rank, s.numel())
            out[stem + "lora_b"] = (u[:, :k] * s[:k]).half().contiguous()  # alpha = rank: scale 1
            out[name] = vh[:k].half().contiguous()
        elif not name.endswith("lora_b"):
            out[name] = (weight * ta[name] + (1 - weight) * tb[name]).half()
    meta = dict(ma)
    meta["spec"] = {**ma["spec"], "lora_rank": rank, "lora_alpha": float(rank)}
    meta["info"] = {"soup": {"first": first, "second": second, "weight": weight, "rank": rank}}
    return out, meta


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("first")
    ap.add_argument("second")
    ap.add_argument("out")
    ap.add_argument("--rank", type=int, default=96)
    ap.add_argument("--weight", type=float, default=0.5)
    a = ap.parse_args()
    tensors, meta = soup(a.first, a.second, a.rank, a.weight)
    save_file(tensors, a.out, metadata={"qascore": json.dumps(meta, sort_keys=True)})
    print(f"wrote {a.out}")


if __name__ == "__main__":
    main()
