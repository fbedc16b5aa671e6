"""Training the generic cross-encoder verifier (`runtime.verifier`) for AVA and SQuArE.

The trainable part is the top layers (all of them with LoRA adapters, or the
top few in full) and the head, over the frozen lower layers' states computed
once (`runtime.partial`; with every layer trained that is just the
embeddings); the best epoch on the dev figure is kept and saved as a small
delta with the config that reproduces it.
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
from qascore_lab.train.checkpoint import load_training, save_training


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
    select: str = "f1"        # dev figure that picks the epoch: "f1" (the papers) or "auroc"
    bucket: bool = False      # length-bucketed batches (less padding); off keeps the paper configs' batches
    calibrate: bool = False   # fit a temperature on the dev split after the epoch is chosen (the paper configs: off)
    distill: float = 0.0      # weight of a teacher's soft targets in the loss (0: the labels alone)
    device: str = "cpu"
    log_every: int = 0        # progress line every N batches (0: per epoch only)
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


def calibrate(ver: Verifier, dev_logits: np.ndarray, dev_labels: Sequence[int],
              log: Callable[[str], None] = print) -> None:
    """Temperature-scale `ver` on dev logits and move its threshold to the same decisions (best dev F1)."""
    from qascore.meta.classification import fit_temperature, log_loss

    before = log_loss(ver.probabilities(dev_logits), list(dev_labels))
    ver.temperature = fit_temperature(dev_logits, list(dev_labels))
    probs = ver.probabilities(dev_logits)
    ver.threshold = tune_threshold(probs, list(dev_labels), "f1")
    after = log_loss(probs, list(dev_labels))
    ver.info["calibration"] = {"method": "temperature scaling, log loss on the dev split",
                               "temperature": ver.temperature, "dev_rows": len(dev_labels),
                               "dev_log_loss": [before, after]}
    log(f"temperature {ver.temperature:.3f}: dev log loss {before:.4f} -> {after:.4f}, threshold {ver.threshold:.3f}")


def length_batches(lengths: Sequence[int], batch_size: int, rng: np.random.Generator,
                   bucket: int = 50) -> list[list[int]]:
    """Shuffled batches of similar length: shuffle, sort windows of `bucket` batches by length, cut, shuffle.

    Padding (and so wasted compute) stays small while every epoch still sees a new order.
    """
    order = rng.permutation(len(lengths)).tolist()
    window = batch_size * bucket
    batches: list[list[int]] = []
    for w in range(0, len(order), window):
        part = sorted(order[w:w + window], key=lambda i: lengths[i])
        batches.extend(part[b:b + batch_size] for b in range(0, len(part), batch_size))
    rng.shuffle(batches)
    return batches


def dev_figure(probs: np.ndarray, labels: Sequence[int], select: str) -> tuple[float, float]:
    """(selection figure, dev-F1 threshold): `select` is "f1" (best F1 over thresholds) or "auroc"."""
    from qascore.meta.classification import auroc

    thr = tune_threshold(probs, list(labels), "f1")
    if select == "auroc":
        return auroc(probs, list(labels)), thr
    return binary_scores(probs, list(labels), thr).f1, thr


def train(spec: VerifierSpec, layout: Layout, records: Sequence[Record], labels: Sequence[int],
          cfg: TrainConfig, *, dev: tuple[Sequence[Record], Sequence[int]] | None = None,
          log: Callable[[str], None] = print, cache: StateCache | None = None,
          checkpoint: str | Path | None = None, soft: Sequence[float] | None = None) -> Verifier:
    """Fit the trainable part (top stacks or their LoRA adapters) + head; keep the best dev epoch.

    `soft`, one teacher probability per record, turns on distillation: the loss is
    (1 - cfg.distill) x BCE(labels) + cfg.distill x BCE(soft), so a small model learns a larger
    one's graded judgments as well as the labels.

    The dev figure is `cfg.select` (F1 at its best threshold, or AUROC). `cache` shares frozen
    lower-layer states across calls (several layouts over the same data). With `checkpoint`, the
    state after each epoch is written there and a later call with the same file resumes after the
    last finished epoch (same seed, same data: the same result as an uninterrupted run).
    """
    if not 0 <= cfg.distill <= 1:
        raise ValueError(f"distill is the soft targets' weight in the loss, 0..1; got {cfg.distill}")
    if cfg.distill and soft is None:
        raise ValueError("distill > 0 needs the teacher's soft targets")
    if soft is not None and len(soft) != len(records):
        raise ValueError(f"{len(soft)} soft targets for {len(records)} training records")
    torch.set_num_threads(cfg.threads)
    seed_everything(cfg.seed)
    ver = Verifier(spec, layout)
    model, pad = ver.model, ver.tokenizer.pad_token_id
    if cfg.init:
        log(f"initialised from {cfg.init}: {warm_start(model, cfg.init)}")
    model.to(cfg.device)
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
    lengths = [sum(len(t[v][0]) for v in range(spec.n_views)) for t in toks]
    log(f"cached lower layers: {len(records)} examples x {spec.n_views} views, {sum(lengths)} tokens, "
        f"{time.time() - t0:.1f}s")

    y = torch.tensor(list(labels), dtype=torch.float32, device=cfg.device)
    target = y if soft is None else torch.tensor(list(soft), dtype=torch.float32, device=cfg.device)
    trainable = [p for p in model.top.parameters() if p.requires_grad]
    opt = torch.optim.AdamW([{"params": trainable, "lr": cfg.lr},
                             {"params": model.head.parameters(), "lr": cfg.head_lr}],
                            weight_decay=cfg.weight_decay)
    n_batches = math.ceil(len(records) / cfg.batch_size)
    steps = cfg.epochs * n_batches
    warm = max(1, int(cfg.warmup * steps))
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min((s + 1) / warm, max(0.0, (steps - s) / max(1, steps - warm))))
    loss_fn = nn.BCEWithLogitsLoss()
    rng = np.random.default_rng(cfg.seed)
    best: dict[str, Any] | None = None
    history: list[dict[str, Any]] = []
    first = 1
    ckpt = Path(checkpoint) if checkpoint else None
    trained = set(model.trained_names())
    if ckpt is not None and ckpt.exists():
        own, best_state, saved = load_training(ckpt, opt, sched)
        model.load_state_dict(own, strict=False)
        rng.bit_generator.state = saved["rng"]
        best = saved["best"] and {**saved["best"], "state": best_state}
        history, first = saved["history"], saved["epoch"] + 1
        log(f"resumed from {ckpt} after epoch {saved['epoch']}")
    for epoch in range(first, cfg.epochs + 1):
        model.train()
        model.lower.eval()
        total, t1, seen = 0.0, time.time(), 0
        if cfg.bucket:
            batches = length_batches(lengths, cfg.batch_size, rng)
        else:
            order = rng.permutation(len(records))
            batches = [order[s:s + cfg.batch_size].tolist() for s in range(0, len(order), cfg.batch_size)]
        for b, idx in enumerate(batches, 1):
            batch = [pad_states([c[i] for i in idx], torch.float32) for c in states]
            logit = model.upper(batch)
            loss = loss_fn(logit, y[idx])
            if cfg.distill:
                loss = (1 - cfg.distill) * loss + cfg.distill * loss_fn(logit, target[idx])
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            sched.step()
            total += loss.item() * len(idx)
            seen += len(idx)
            if cfg.log_every and b % cfg.log_every == 0:
                rate = seen / max(time.time() - t1, 1e-9)
                log(f"  epoch {epoch} batch {b}/{len(batches)}: loss {total / seen:.4f}, {rate:.1f} ex/s, "
                    f"epoch ETA {(len(records) - seen) / max(rate, 1e-9) / 60:.1f} min")
        secs = time.time() - t1
        entry: dict[str, Any] = {"epoch": epoch, "loss": total / len(records), "seconds": round(secs, 1)}
        msg = f"epoch {epoch}: loss {entry['loss']:.4f} ({secs:.1f}s, {len(records) / secs:.1f} ex/s)"
        if dev_states is not None:
            model.eval()
            with torch.no_grad():
                dp = torch.sigmoid(upper_logits(model, dev_states, 64)).numpy()
            fig, thr = dev_figure(dp, dev[1], cfg.select)
            f1 = binary_scores(dp, list(dev[1]), thr).f1
            entry.update(dev_f1=f1, threshold=thr, **({"dev_auroc": fig} if cfg.select == "auroc" else {}))
            msg += f"; dev {cfg.select} {fig:.4f}, best F1 {f1:.4f} at {thr:.3f}"
            if best is None or fig > best["figure"]:
                best = {"figure": fig, "threshold": thr, "epoch": epoch,
                        "state": {k: v.detach().clone() for k, v in model.state_dict().items() if k in trained}}
        history.append(entry)
        log(msg)
        if ckpt is not None:
            save_training(ckpt, model={k: v for k, v in model.state_dict().items() if k in trained},
                          best=best["state"] if best is not None else {}, opt=opt, sched=sched,
                          meta={"rng": rng.bit_generator.state, "history": history, "epoch": epoch,
                                "best": best and {k: v for k, v in best.items() if k != "state"}})
    if best is not None:
        model.load_state_dict(best["state"], strict=False)
        ver.threshold = best["threshold"]
        log(f"kept epoch {best['epoch']} (dev {cfg.select} {best['figure']:.4f}, threshold {best['threshold']:.3f})")
        if cfg.calibrate and dev_states is not None:
            model.eval()
            with torch.no_grad():
                calibrate(ver, upper_logits(model, dev_states, 64).numpy(), dev[1], log)
    model.eval()
    model.to("cpu")
    ver.info.update({"train_examples": len(records), "train_positives": int(y.sum().item()),
                     "config": asdict(cfg), "history": history, "seconds": round(time.time() - t0, 1),
                     "torch": torch.__version__, "kept_epoch": best["epoch"] if best else cfg.epochs})
    return ver
