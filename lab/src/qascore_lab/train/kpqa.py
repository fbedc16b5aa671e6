"""`qascore-lab train kpqa`: train the KPQA keyphrase tagger (CPU, or a GPU with --device) and save it as a small delta.

Two recipes, one loop:
- whole encoder (default): LoRA adapters (`runtime.lora`, rank 16) on every linear
  layer of all six layers, plus their LayerNorms and the FC/tanh/softmax head; only
  the embeddings are frozen and their output cached. The delta holds the adapters,
  LayerNorms and head (fp16, about 2 MB); loading merges the adapters.
- top layers in full (`--lora-rank 0 --train-layers 2`, the first shipped tagger):
  the lower layers' output is computed once (no grad) and cached, the top
  `--train-layers` layers and the head train over that cache.

Data (`--sources`, any of squad, wikiqa, ae, squad11; `train/kpqa_data.py`): the train/dev
split is made over every source in `--sources` and `--dev-sources` together and
then filtered, so a group is on the same side whichever sources train, and the dev
figures of different source mixes are on the same dev examples. squad11 (SQuAD 1.1
train, a seeded sample of `--squad11-questions`) only ever trains: the dev split with
it is the dev split without it. The epoch with the
lowest dev loss is kept (paper, appendix C: "the minimum evaluation loss"), the loss
over the dev examples of `--select-on` (default squad,wikiqa: the dev split the
first taggers were chosen and reported on), never the derived yes/no examples
(`train/polar.py`: near-perfect from the first epoch, they would only blur the choice).
The card records every epoch's figures, per source.

Seeded: the head's and adapters' initialisation, dropout and batch order follow
--seed; the split follows --split-seed (fixed, so dev figures of different seeds
are comparable). `--checkpoint FILE` (safetensors + JSON, `train/checkpoint.py`)
saves the state after every epoch; the same command run again resumes after the
last finished epoch and ends with the same tensors as an uninterrupted run.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path
from typing import Any, Sequence

import numpy as np
import torch

from qascore.progress import progress
from qascore.runtime import defaults
from qascore.runtime.delta import base_hash, file_sha256, save_delta
from qascore_lab.train import kpqa_data
from qascore_lab.train.checkpoint import load_training, save_training
from qascore.weights.kpw_model import IGNORE, KeyphraseTagger, load_encoder, pad


DEFAULT_SOURCES = "squad,wikiqa,ae"
SELECT_ON = "squad,wikiqa"


# Named settings, so an earlier tagger stays one flag away: `--recipe v1 --seed 1 --epochs 3` writes the
# tensors of the first shipped tagger (`kpqa-tagger@c8226df2b6ff`), `--recipe v1 --no-question` the -KP one.
RECIPES: dict[str, dict[str, Any]] = {
    "v1": {"sources": "squad,wikiqa", "dev_sources": "squad,wikiqa", "train_layers": 2, "lora_rank": 0, "lr": 2e-4},
}


def apply_recipe(args: argparse.Namespace) -> None:
    """Overwrite `args` with the named recipe's settings (if one is named)."""
    for k, v in RECIPES.get(getattr(args, "recipe", None) or "", {}).items():
        setattr(args, k, v)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--seed", type=int, default=1, help="seed of init, dropout and batch order (default 1, as the authors)")
    p.add_argument("--split-seed", type=int, default=0, help="salt of the group-wise train/dev split (default 0)")
    p.add_argument("--dev-percent", type=int, default=10, help="share of passages/questions held out (default 10)")
    p.add_argument("--sources", default=DEFAULT_SOURCES,
                   help=f"training sources, comma-separated, of {','.join(kpqa_data.SOURCES)} (default {DEFAULT_SOURCES})")
    p.add_argument("--squad11-questions", type=int, default=kpqa_data.SQUAD11_QUESTIONS, metavar="N",
                   help=f"SQuAD 1.1 train questions for the squad11 source (default {kpqa_data.SQUAD11_QUESTIONS}): "
                        "the first N by a salted hash of the question id, after dropping QGEval passages, "
                        "evaluation and verifier-dev questions and the other sources' questions; train only")
    p.add_argument("--dev-sources", default=DEFAULT_SOURCES,
                   help="sources whose dev examples are scored (figures per source in the card)")
    p.add_argument("--select-on", default=SELECT_ON,
                   help=f"sources whose dev loss picks the epoch (default {SELECT_ON}; polar examples never)")
    p.add_argument("--recipe", choices=sorted(RECIPES), default=None,
                   help="v1 = the first shipped tagger's settings (top 2 layers in full, lr 2e-4, SQuAD + WikiQA "
                        "only); overrides --sources, --dev-sources, --train-layers, --lora-rank and --lr")
    p.add_argument("--no-question", action="store_true", help="the paper's -KP ablation: tag the answer without the question")
    p.add_argument("--encoder", default=defaults.ENCODER, help="base encoder spec (default: the package MiniLM)")
    p.add_argument("--train-layers", type=int, default=6,
                   help="top encoder layers trained (default 6 = all of MiniLM-L6; the rest frozen and cached)")
    p.add_argument("--lora-rank", type=int, default=16,
                   help="LoRA rank on the trained layers (default 16); 0 = train those layers in full")
    p.add_argument("--lora-alpha", type=float, default=32.0)
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--lr", type=float, default=5e-4,
                   help="lr of the adapters (or of the trained layers with --lora-rank 0: the first tagger used 2e-4)")
    p.add_argument("--head-lr", type=float, default=2e-3, help="lr of the fresh head (default 2e-3)")
    p.add_argument("--max-len", type=int, default=128, help="WordPieces per [CLS] q [SEP] a [SEP] input")
    p.add_argument("--polar-share", type=float, default=kpqa_data.POLAR_SHARE,
                   help="share of derived yes/no examples in the data (default 0 = none; the recipe tried: 0.12; train/polar.py)")
    p.add_argument("--limit", type=int, default=0, help="use only the first N examples (smoke tests)")
    p.add_argument("--threads", type=int, default=1, help="torch CPU threads (default 1)")
    p.add_argument("--device", default="cpu", help="torch device: cpu (default) or cuda; the delta loads on either")
    p.add_argument("--checkpoint", default=None, help="resumable state after each epoch (safetensors); resumes if present")
    p.add_argument("--data-root", default=None, help="folder holding squad_v2_dev/, wikiqa/, answer_equivalence/ (default ../shared/data)")
    p.add_argument("--out", default="kpqa-tagger.safetensors", help="delta file to write; a JSON card goes next to it")
    p.add_argument("--evaluate", default=None, metavar="DELTA",
                   help="train nothing: score this tagger delta on the dev split the other flags define (each "
                        "subset: selection, polar, non-polar, per source), e.g. the shipped tagger on the dev "
                        "examples of a --polar-share run")


def run(args: argparse.Namespace) -> int:
    if args.evaluate:
        print(json.dumps(evaluate_delta(args, args.evaluate), indent=1))
        return 0
    card = train(args, command="qascore-lab train kpqa " + " ".join(sys.argv[3:]))
    print(json.dumps(card["dev"], indent=1))
    print(f"wrote {args.out} ({card['delta_bytes'] / 1e6:.1f} MB) and {card_path(args.out)}")
    return 0


def evaluate_delta(args: argparse.Namespace, delta: str | Path) -> dict[str, dict[str, float]]:
    """Dev figures of a saved tagger on this run's dev split, by the code that scores every epoch."""
    from qascore.weights.kpw import Tagger

    apply_recipe(args)
    torch.set_num_threads(args.threads)
    tagger = Tagger(delta, device=args.device)
    _, _, dev_ex, _ = load_data(args)
    enc = kpqa_data.encode_all(tagger.tokenizer, dev_ex, max_len=args.max_len, use_question=tagger.use_question)
    hidden = cache_lower(tagger.model, enc, 0, "encode dev")
    return subsets(tagger.model, hidden, enc, 0, _names(args.select_on) or None)


def card_path(out: str | Path) -> Path:
    return Path(out).with_suffix(".json")


def _names(text: str) -> list[str]:
    return [x.strip() for x in str(text).split(",") if x.strip()]


def base_source(source: str) -> str:
    """"squad-polar" -> "squad": a derived example belongs to its source."""
    return source[:-len("-polar")] if source.endswith("-polar") else source


def load_data(args: argparse.Namespace) -> tuple[list[kpqa_data.Example], list[kpqa_data.Example],
                                                 list[kpqa_data.Example], dict[str, Any]]:
    """(all examples, train, dev, data report): the split is made over every source in use, then filtered."""
    train_src, dev_src = _names(getattr(args, "sources", "squad,wikiqa")), _names(getattr(args, "dev_sources", ""))
    wanted = [s for s in kpqa_data.SOURCES if s in train_src or s in dev_src]
    report: dict[str, Any] = {}
    examples = kpqa_data.load_examples(args.data_root, sources=wanted, polar_share=_polar_share(args), report=report,
                                       squad11_questions=getattr(args, "squad11_questions", kpqa_data.SQUAD11_QUESTIONS))
    if args.limit:
        examples = examples[:args.limit]
    train_all, dev_all = kpqa_data.split(examples, args.dev_percent, args.split_seed)
    train_ex = [e for e in train_all if base_source(e.source) in train_src]
    dev_ex = [e for e in dev_all if base_source(e.source) in (dev_src or train_src)]
    return examples, train_ex, dev_ex, report


def train(args: argparse.Namespace, command: str = "") -> dict[str, Any]:
    apply_recipe(args)
    torch.set_num_threads(args.threads)
    t0 = time.time()
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    use_q = not args.no_question
    rank = int(getattr(args, "lora_rank", 0))

    from transformers import AutoTokenizer

    base = defaults.resolve(args.encoder)
    tok = AutoTokenizer.from_pretrained(base)
    examples, train_ex, dev_ex, data_report = load_data(args)
    train_enc = kpqa_data.encode_all(tok, train_ex, max_len=args.max_len, use_question=use_q)
    dev_enc = kpqa_data.encode_all(tok, dev_ex, max_len=args.max_len, use_question=use_q)
    print(f"data: {len(train_enc)} train / {len(dev_enc)} dev encoded examples; train by source "
          f"{_count(train_ex)}, dev by source {_count(dev_ex)}; AE {data_report.get('ae', 'not used')}"
          + (f"; SQuAD 1.1 {data_report['squad11']}" if "squad11" in data_report else ""),
          file=sys.stderr, flush=True)

    model = KeyphraseTagger(load_encoder(base))
    n_frozen = model.n_layers - args.train_layers
    if not 0 <= n_frozen < model.n_layers:
        raise ValueError(f"--train-layers must be 1..{model.n_layers}")
    if rank:
        model.add_adapters(n_frozen, rank, args.lora_alpha)
    names = model.trained_names(n_frozen, lora=bool(rank))
    for n, p in model.named_parameters():
        p.requires_grad = n in names
    model.to(args.device)

    t_cache = time.time()
    train_h = cache_lower(model, train_enc, n_frozen, "cache train")
    dev_h = cache_lower(model, dev_enc, n_frozen, "cache dev")
    t_cache = time.time() - t_cache

    params = [p for p in model.parameters() if p.requires_grad]
    # The head starts from scratch, the layers from pre-training: the head learns faster.
    head = [p for n, p in model.named_parameters() if n.startswith("head.")]
    layers = [p for n, p in model.named_parameters() if p.requires_grad and not n.startswith("head.")]
    opt = torch.optim.AdamW([{"params": layers, "lr": args.lr},
                             {"params": head, "lr": getattr(args, "head_lr", args.lr * 10)}],
                            weight_decay=0.01)
    batches = bucket(train_enc, args.batch_size)
    total = len(batches) * args.epochs
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min(1.0, (s + 1) / max(1, total // 10)) * max(0.0, (total - s) / total))
    rng = random.Random(args.seed)
    best: dict[str, Any] = {}
    best_key = float("inf")
    best_state: dict[str, torch.Tensor] = {}
    history: list[dict[str, Any]] = []
    first = 1
    ckpt = Path(args.checkpoint) if getattr(args, "checkpoint", None) else None
    if ckpt is not None and ckpt.exists():
        first, batches, best, best_key, best_state, history = _resume(ckpt, model, opt, sched, rng)
        print(f"resumed from {ckpt} after epoch {first - 1}", file=sys.stderr, flush=True)
    select = _names(getattr(args, "select_on", "")) or None
    card: dict[str, Any] = {}
    for epoch in range(first, args.epochs + 1):
        model.train()
        rng.shuffle(batches)
        losses = []
        t_epoch = time.time()
        for k, b in enumerate(progress(batches, desc=f"epoch {epoch}"), 1):
            logits, labels = _upper(model, [train_h[i] for i in b], [train_enc[i] for i in b], n_frozen)
            loss = torch.nn.functional.cross_entropy(logits.reshape(-1, 2), labels.reshape(-1), ignore_index=IGNORE)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(params, 1.0)
            opt.step()
            sched.step()
            opt.zero_grad()
            losses.append(float(loss.detach()))
            if k % 50 == 0:
                el = time.time() - t_epoch
                print(f"  epoch {epoch} batch {k}/{len(batches)} loss {np.mean(losses[-50:]):.4f} "
                      f"{el:.0f}s, epoch ETA {el / k * (len(batches) - k) / 60:.1f} min", file=sys.stderr, flush=True)
        dev = evaluate(model, dev_h, dev_enc, n_frozen)
        dev["epoch"], dev["train_loss"] = epoch, float(np.mean(losses))
        dev["epoch_seconds"] = round(time.time() - t_epoch, 1)
        dev["subsets"] = subsets(model, dev_h, dev_enc, n_frozen, select)
        history.append(dev)
        sel = dev["subsets"].get("select", dev)
        print(f"epoch {epoch}: train loss {dev['train_loss']:.4f} dev loss {dev['loss']:.4f} "
              f"dev token F1 {dev['f1']:.4f} (P {dev['precision']:.4f} R {dev['recall']:.4f}); "
              f"selection dev ({','.join(select or ['all'])}) loss {sel['loss']:.4f} F1 {sel['f1']:.4f}; "
              + "; ".join(f"{k} F1 {v['f1']:.4f}" for k, v in dev["subsets"].items() if k.startswith("source:"))
              + f"; epoch {dev['epoch_seconds']:.0f}s, total {time.time() - t0:.0f}s", file=sys.stderr, flush=True)
        key = selection_loss(dev)
        if key < best_key:
            best, best_key = dict(dev), key
            best_state = {n: p.detach().clone() for n, p in model.named_parameters() if n in names}
        # written at every epoch (the best delta so far, every epoch's figures), so a run
        # stopped early still leaves its best delta and a card that tells all
        card = _save(model, names, best_state, args, command, n_frozen, use_q, base, t0, t_cache,
                     examples, train_ex, dev_ex, train_enc, dev_enc, best, history, data_report)
        if ckpt is not None:
            _checkpoint(ckpt, model, names, opt, sched, rng, epoch, batches, best, best_key, best_state, history)
    return card


def _checkpoint(path: Path, model: KeyphraseTagger, names: list[str], opt: torch.optim.Optimizer,
                sched: Any, rng: random.Random, epoch: int, batches: list[list[int]], best: dict[str, Any],
                best_key: float, best_state: dict[str, torch.Tensor], history: list[dict[str, Any]]) -> None:
    """Everything a resumed run needs to go on exactly as if never stopped (no pickle)."""
    own = dict(model.named_parameters())
    version, state, gauss = rng.getstate()
    save_training(path, model={n: own[n] for n in names}, best=best_state, opt=opt, sched=sched,
                  meta={"epoch": epoch, "batches": batches, "best": best, "best_key": best_key,
                        "history": history, "rng": [version, list(state), gauss]})


def _resume(path: Path, model: KeyphraseTagger, opt: torch.optim.Optimizer, sched: Any, rng: random.Random
            ) -> tuple[int, list[list[int]], dict[str, Any], float, dict[str, torch.Tensor], list[dict[str, Any]]]:
    saved_model, best_state, meta = load_training(path, opt, sched)
    own = dict(model.named_parameters())
    with torch.no_grad():
        for k, v in saved_model.items():
            own[k].copy_(v)
    version, state, gauss = meta["rng"]
    rng.setstate((version, tuple(state), gauss))
    return meta["epoch"] + 1, meta["batches"], meta["best"], float(meta["best_key"]), best_state, meta["history"]


def selection_loss(dev: dict[str, Any]) -> float:
    """The dev loss an epoch is chosen by: over the `--select-on` sources' non-polar examples when given,
    else over the non-polar examples when there are polar ones, else over all."""
    sub = dev.get("subsets", {})
    if "select" in sub:
        return float(sub["select"]["loss"])
    return float(sub["non_polar"]["loss"] if "non_polar" in sub and "polar" in sub else dev["loss"])


def _save(model: KeyphraseTagger, names: list[str], best_state: dict[str, torch.Tensor], args: argparse.Namespace,
          command: str, n_frozen: int, use_q: bool, base: str, t0: float, t_cache: float,
          examples: Sequence[kpqa_data.Example], train_ex: Sequence[kpqa_data.Example],
          dev_ex: Sequence[kpqa_data.Example], train_enc: Sequence[kpqa_data.Encoded],
          dev_enc: Sequence[kpqa_data.Encoded], best: dict[str, Any], history: list[dict[str, Any]],
          data_report: dict[str, Any] | None = None) -> dict[str, Any]:
    """Write the delta of the best state so far and its JSON card; returns the card."""
    live = {n: p.detach().clone() for n, p in model.named_parameters() if n in names}
    with torch.no_grad():
        for n, p in model.named_parameters():
            if n in best_state:
                p.copy_(best_state[n])
    seconds = time.time() - t0
    meta = {
        "kind": "kpqa-tagger", "labels": ["O", "K"], "use_question": use_q, "encoder": args.encoder,
        "base_hash": base_hash(base), "n_frozen": n_frozen, "train_layers": args.train_layers,
        "max_len": args.max_len, "seed": args.seed, "split_seed": args.split_seed,
        "dev_percent": args.dev_percent, "epochs": args.epochs, "batch_size": args.batch_size, "lr": args.lr,
        "threads": args.threads, "command": command,
    }
    # absent on the first recipe's runs, so its delta is byte for byte what it was before these existed
    if int(getattr(args, "lora_rank", 0)):
        meta.update(lora_rank=args.lora_rank, lora_alpha=args.lora_alpha)
    if getattr(args, "head_lr", args.lr * 10) != args.lr * 10:
        meta.update(head_lr=args.head_lr)
    if _names(getattr(args, "sources", "squad,wikiqa")) != ["squad", "wikiqa"]:
        meta.update(sources=getattr(args, "sources"))
    if "squad11" in _names(getattr(args, "sources", "")):
        meta.update(squad11_questions=args.squad11_questions)
    if _names(getattr(args, "select_on", SELECT_ON)) != _names(SELECT_ON):
        meta.update(select_on=args.select_on)
    if args.device != "cpu":   # where it trained (a GPU run is not bit-reproducible on the CPU)
        meta.update(device=args.device)
    if _polar_share(args) > 0:   # absent otherwise: a run without them writes the same delta as before they existed
        meta.update(polar_share=_polar_share(args), selected_by="dev loss of the non-polar examples")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    save_delta(model, out, names, meta)
    card = {
        **meta,
        "data": {"examples": len(examples), "train_examples": len(train_ex), "dev_examples": len(dev_ex),
                 "train_encoded": len(train_enc), "dev_encoded": len(dev_enc),
                 "train_by_source": _count(train_ex), "dev_by_source": _count(dev_ex),
                 "train_groups": len({e.group for e in train_ex}), "dev_groups": len({e.group for e in dev_ex}),
                 **(data_report or {})},
        "dev": best, "history": list(history), "epochs_done": len(history), "train_seconds": round(seconds, 1),
        "cache_seconds": round(t_cache, 1), "torch": torch.__version__,
        "delta_sha256": file_sha256(out), "delta_bytes": out.stat().st_size,
    }
    card_path(out).write_text(json.dumps(card, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    with torch.no_grad():  # training goes on from where it was
        for n, p in model.named_parameters():
            if n in live:
                p.copy_(live[n])
    return card


def _polar_share(args: argparse.Namespace) -> float:
    return getattr(args, "polar_share", kpqa_data.POLAR_SHARE)


def _count(ex: Sequence[kpqa_data.Example]) -> dict[str, int]:
    out: dict[str, int] = {}
    for e in ex:
        out[e.source] = out.get(e.source, 0) + 1
    return out


def bucket(enc: Sequence[kpqa_data.Encoded], size: int) -> list[list[int]]:
    """Batches of similar length (little padding); order within is by length."""
    order = sorted(range(len(enc)), key=lambda i: (len(enc[i].input_ids), i))
    return [order[i:i + size] for i in range(0, len(order), size)]


@torch.no_grad()
def cache_lower(model: KeyphraseTagger, enc: Sequence[kpqa_data.Encoded], n_frozen: int, desc: str
                ) -> list[torch.Tensor]:
    """Frozen part's output per example (unpadded [len, hidden]), computed once."""
    model.eval()
    out: list[torch.Tensor | None] = [None] * len(enc)
    where = next(model.parameters()).device
    for b in progress(bucket(enc, 64), desc=desc):
        ids, types, mask = (t.to(where) for t in _batch([enc[i] for i in b]))
        h = model.lower(ids, types, mask, n_frozen)
        for j, i in enumerate(b):
            out[i] = h[j, :len(enc[i].input_ids)].clone()
    return out  # type: ignore[return-value]


def _batch(rows: Sequence[kpqa_data.Encoded]) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    ids = pad([r.input_ids for r in rows], 0)
    types = pad([r.token_type_ids for r in rows], 0)
    mask = pad([[1] * len(r.input_ids) for r in rows], 0)
    return ids, types, mask


def _upper(model: KeyphraseTagger, hidden: Sequence[torch.Tensor], rows: Sequence[kpqa_data.Encoded],
           n_frozen: int) -> tuple[torch.Tensor, torch.Tensor]:
    where = hidden[0].device
    width = max(h.shape[0] for h in hidden)
    h = torch.zeros(len(hidden), width, hidden[0].shape[1], device=where)
    for j, x in enumerate(hidden):
        h[j, :x.shape[0]] = x
    mask = pad([[1] * len(r.input_ids) for r in rows], 0).to(where)
    labels = pad([r.labels for r in rows], IGNORE).to(where)
    return model.upper(h, mask, n_frozen), labels


def subsets(model: KeyphraseTagger, hidden: Sequence[torch.Tensor], enc: Sequence[kpqa_data.Encoded],
            n_frozen: int, select: Sequence[str] | None = None) -> dict[str, dict[str, float]]:
    """Dev figures apart: derived yes/no examples and the others, each source, and `select`
    (the non-polar examples of those sources: what picks the epoch)."""
    out = {}
    src = [e.extra.get("source", "") for e in enc]
    groups: list[tuple[str, Any]] = [("polar", lambda s: s.endswith("-polar")),
                                     ("non_polar", lambda s: not s.endswith("-polar"))]
    groups += [(f"source:{name}", lambda s, name=name: s == name) for name in sorted({*src} - {""})
               if not name.endswith("-polar")]
    if select:
        groups.append(("select", lambda s: s in select))
    for name, keep in groups:
        idx = [i for i, s in enumerate(src) if keep(s)]
        if idx:
            out[name] = evaluate(model, [hidden[i] for i in idx], [enc[i] for i in idx], n_frozen)
    return out


@torch.no_grad()
def evaluate(model: KeyphraseTagger, hidden: Sequence[torch.Tensor], enc: Sequence[kpqa_data.Encoded],
             n_frozen: int) -> dict[str, float]:
    """Dev loss and token-level P/R/F1 of the K class over answer WordPieces."""
    model.eval()
    tp = fp = fn = 0
    loss_sum, n = 0.0, 0
    for b in bucket(enc, 64):
        logits, labels = _upper(model, [hidden[i] for i in b], [enc[i] for i in b], n_frozen)
        flat, lab = logits.reshape(-1, 2), labels.reshape(-1)
        keep = lab != IGNORE
        loss_sum += float(torch.nn.functional.cross_entropy(flat[keep], lab[keep], reduction="sum"))
        n += int(keep.sum())
        pred = flat[keep].argmax(-1)
        gold = lab[keep]
        tp += int(((pred == 1) & (gold == 1)).sum())
        fp += int(((pred == 1) & (gold == 0)).sum())
        fn += int(((pred == 0) & (gold == 1)).sum())
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    return {"loss": loss_sum / max(n, 1), "precision": p, "recall": r,
            "f1": 2 * p * r / (p + r) if p + r else 0.0, "tokens": n}
