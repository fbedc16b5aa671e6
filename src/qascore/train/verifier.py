"""Training the generic cross-encoder verifier (`runtime.verifier`) for AVA and SQuArE.

Only the top layers and the head are trained, over the frozen lower layers'
states computed once (`runtime.partial`); the best epoch on dev F1 is kept and
saved as a small delta with the config that reproduces it.
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np
import torch
from torch import nn

from qascore.meta.classification import binary_scores, tune_threshold
from qascore.records import Record
from qascore.runtime.partial import StateCache, lower_states, pad_states
from qascore.runtime.verifier import Layout, Verifier, VerifierModel, VerifierSpec, upper_logits


@dataclass
class TrainConfig:
    """Optimisation settings (stored with the delta so a run can be repeated)."""

    epochs: int = 2
    batch_size: int = 16
    lr: float = 5e-5
    head_lr: float = 1e-3
    weight_decay: float = 0.01
    warmup: float = 0.1
    seed: int = 13
    threads: int = 1
    init: str | None = None   # a saved verifier delta whose top stack (and head, if shapes fit) start the model
    extra: dict[str, Any] = field(default_factory=dict)


def seed_everything(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def warm_start(model: VerifierModel, path: str | Path) -> str:
    """Copy a saved verifier's first top stack into every top stack (and its head when the shape fits).

    Transfer-then-adapt (as TANDA does for AS2): a model trained on a related task, e.g. a (q, t)
    answer-sentence reranker, starts a verifier with another layout.
    """
    from safetensors.torch import load_file

    src = load_file(str(path))
    own = model.state_dict()
    stack = {k[len("top.0."):]: v for k, v in src.items() if k.startswith("top.0.")}
    copied = 0
    with torch.no_grad():
        for name in own:
            if name.startswith("top."):
                inner = name.split(".", 2)[2]
                if inner in stack and stack[inner].shape == own[name].shape:
                    own[name].copy_(stack[inner].to(own[name].dtype))
                    copied += 1
        head = all(k in src and src[k].shape == own[k].shape for k in ("head.weight", "head.bias"))
        if head:
            for k in ("head.weight", "head.bias"):
                own[k].copy_(src[k].to(own[k].dtype))
    return f"{copied} top-stack tensors, head {'copied' if head else 'fresh'}"


def train(spec: VerifierSpec, layout: Layout, records: Sequence[Record], labels: Sequence[int],
          cfg: TrainConfig, *, dev: tuple[Sequence[Record], Sequence[int]] | None = None,
          log: Callable[[str], None] = print, cache: StateCache | None = None) -> Verifier:
    """Fit the top stacks + head; keep the epoch with the best dev F1 (or the last, without dev).

    `cache` shares frozen lower-layer states across calls (several layouts over the same data).
    """
    torch.set_num_threads(cfg.threads)
    seed_everything(cfg.seed)
    ver = Verifier(spec, layout)
    model, pad = ver.model, ver.tokenizer.pad_token_id
    if cfg.init:
        log(f"initialised from {cfg.init}: {warm_start(model, cfg.init)}")
    if cache is not None:
        cache.bind(ver.cache_key())
    t0 = time.time()
    toks = ver.tokens(records)
    states = [lower_states(model.lower, [t[v] for t in toks], pad, cache=cache) for v in range(spec.n_views)]
    dev_states = None
    if dev is not None:
        dtoks = ver.tokens(dev[0])
        dev_states = [lower_states(model.lower, [t[v] for t in dtoks], pad, cache=cache)
                      for v in range(spec.n_views)]
    if cache is not None:
        cache.save()
    n_tok = sum(len(t[v][0]) for t in toks for v in range(spec.n_views))
    log(f"cached lower layers: {len(records)} examples x {spec.n_views} views, {n_tok} tokens, "
        f"{time.time() - t0:.1f}s")

    y = torch.tensor(list(labels), dtype=torch.float32)
    top_params = [p for p in model.top.parameters()]
    opt = torch.optim.AdamW([{"params": top_params, "lr": cfg.lr},
                             {"params": model.head.parameters(), "lr": cfg.head_lr}],
                            weight_decay=cfg.weight_decay)
    steps = cfg.epochs * math.ceil(len(records) / cfg.batch_size)
    warm = max(1, int(cfg.warmup * steps))
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min((s + 1) / warm, max(0.0, (steps - s) / max(1, steps - warm))))
    loss_fn = nn.BCEWithLogitsLoss()
    rng = np.random.default_rng(cfg.seed)
    best: tuple[float, dict[str, torch.Tensor], float, int] | None = None
    history = []
    for epoch in range(1, cfg.epochs + 1):
        model.train()
        model.lower.eval()
        order = rng.permutation(len(records))
        total, t1 = 0.0, time.time()
        for b, start in enumerate(range(0, len(order), cfg.batch_size)):
            idx = order[start:start + cfg.batch_size].tolist()
            batch = [pad_states([c[i] for i in idx], torch.float32) for c in states]
            loss = loss_fn(model.upper(batch), y[idx])
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            sched.step()
            total += loss.item() * len(idx)
        msg = f"epoch {epoch}: loss {total / len(records):.4f} ({time.time() - t1:.1f}s)"
        if dev_states is not None:
            model.eval()
            with torch.no_grad():
                dp = torch.sigmoid(upper_logits(model, dev_states, 64)).numpy()
            thr = tune_threshold(dp, list(dev[1]), "f1")
            f1 = binary_scores(dp, list(dev[1]), thr).f1
            msg += f"; dev best F1 {f1:.4f} at {thr:.3f}"
            history.append({"epoch": epoch, "loss": total / len(records), "dev_f1": f1, "threshold": thr})
            if best is None or f1 > best[0]:
                best = (f1, {k: v.detach().clone() for k, v in model.state_dict().items()
                             if k.startswith(("top.", "head."))}, thr, epoch)
        else:
            history.append({"epoch": epoch, "loss": total / len(records)})
        log(msg)
    if best is not None:
        model.load_state_dict(best[1], strict=False)
        ver.threshold = best[2]
        log(f"kept epoch {best[3]} (dev F1 {best[0]:.4f}, threshold {best[2]:.3f})")
    model.eval()
    ver.info = {"train_examples": len(records), "train_positives": int(y.sum().item()),
                "config": asdict(cfg), "history": history, "seconds": round(time.time() - t0, 1),
                "torch": torch.__version__}
    return ver
