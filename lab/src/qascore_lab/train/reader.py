"""`qascore-lab train reader`: the extractive QA reader behind `answerability` (runtime/reader.py).

Data (from `--data-root`, default ../shared/data):
- SQuAD 1.1 train, split by ARTICLE: `--dev-percent` of the articles (by a salted hash of the title) are
  held out for EM/F1, the rest train. Questions on QGEval's passages are dropped (QGEval is for reporting).
- SQuAD 2.0 dev, split by article into halves: the first half's unanswerable questions train the no-answer
  score (with its answerable ones), the second half (answerable and unanswerable) is dev. QGEval's
  passages (SQuAD 1.1 dev = SQuAD 2.0 dev articles) are dropped from both.
- `--wrong-passage-share`: that share of the SQuAD 1.1 training questions is added once more with another
  paragraph of the same article that does not contain the answer, labelled no-answer.

Training: LoRA (`--lora-rank`, all linear layers) + LayerNorms + the start/end head, AdamW, linear warm-up
and decay, cross-entropy of start and end over [CLS] and the passage's WordPieces; bf16 autocast on CUDA.
Windows are tokenised once, in batches, by the fast tokenizer and kept as tensors (on the GPU with
`--device cuda`); each batch is cut to its longest window.

At the end: EM/F1 (SQuAD normalisation) on the held-out SQuAD 1.1 articles, no-answer accuracy and AUROC on
the SQuAD 2.0 dev half, and two checks of the metric's main-score rules on the held-out answerable
questions. The rule check: each question with its own passage and answer against the same question with a
wrong passage of the same article or another question's answer from its passage (AUROCs, reported). The
bad-question check (`qg_check`, which chooses): own questions against the QG faults `qg_corruptions`
makes of them; the `logistic` rule is fitted there (cross-fitted by article for its AUROCs), and the rule
with the best mean AUROC over the five faults (the simpler within 0.005) is stored in the delta with the
logistic weights. Writes OUT/reader.safetensors (the delta, saved before the evaluation and completed after
it) and OUT/report.json.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import math
import os
import random
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Sequence

import numpy as np
import torch

from qascore.runtime import defaults
from qascore.runtime.delta import base_hash, read_meta, update_meta
from qascore.runtime.reader import (JUDGED, LOGISTIC, RULES, VERIFIED, Logistic, Reader, ReaderModel, ReaderSpec,
                                    load_base, log_odds, rule_score, verify, window_arrays)
from qascore.text.squad import normalize_answer, squad_em, squad_f1
from qascore_lab.datasets import benchmark_dir, data_root
from qascore_lab.datasets import squad
from qascore_lab.train import qg_corruptions as qc


@dataclass(frozen=True)
class Example:
    question: str
    context: str
    answer: tuple[int, int] | None   # char span [start, end) in context; None: no answer
    answers: tuple[str, ...] = ()     # gold texts (evaluation)
    title: str = ""
    qid: str = ""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--out", required=True, help="folder for reader.safetensors (the delta) and report.json")
    p.add_argument("--seed", type=int, default=13, help="seed of init, dropout, batch order, negatives (default 13)")
    p.add_argument("--split-salt", default="reader", help="salt of the article-wise splits (default 'reader')")
    p.add_argument("--dev-percent", type=float, default=5.0, help="SQuAD 1.1 articles held out (default 5)")
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--micro-batch", type=int, default=0,
                   help="windows per forward pass, gradients summed over a batch (0: the whole batch on CUDA, 8 on CPU, "
                        "where a batch of 64 long windows needs ~10 GB)")
    p.add_argument("--lr", type=float, default=5e-4, help="lr of the adapters and LayerNorms (default 5e-4)")
    p.add_argument("--head-lr", type=float, default=1e-3, help="lr of the start/end head (default 1e-3)")
    p.add_argument("--weight-decay", type=float, default=0.01)
    p.add_argument("--warmup", type=float, default=0.06, help="share of steps with a linear warm-up (default 0.06)")
    p.add_argument("--lora-rank", type=int, default=64, help="LoRA rank on every linear layer (default 64; 0: full)")
    p.add_argument("--lora-alpha", type=float, default=128.0)
    p.add_argument("--max-len", type=int, default=384)
    p.add_argument("--stride", type=int, default=128)
    p.add_argument("--wrong-passage-share", type=float, default=0.1,
                   help="share of SQuAD 1.1 training questions added with a wrong passage as no-answer (default 0.1)")
    p.add_argument("--max-questions", type=int, default=0,
                   help="use at most N training questions (and N//4 per dev set): smoke tests (default 0 = all)")
    p.add_argument("--check-questions", type=int, default=2000,
                   help="held-out questions in the rule check (each with two negatives; default 2000)")
    p.add_argument("--qg-questions", type=int, default=1000,
                   help="held-out questions in the bad-question check that chooses the rule (default 1000)")
    p.add_argument("--no-judge-rules", action="store_true",
                   help="leave the rules that run the `judge` on every span (judge_expected) out of the checks: they "
                        "take longer than the rest of the evaluation (a GPU round's time limit)")
    p.add_argument("--rule-checks-only", action="store_true",
                   help="with --evaluate: only the two rule checks (the delta's other stored figures kept)")
    p.add_argument("--device", default="cpu", help="cpu (default) or cuda")
    p.add_argument("--threads", type=int, default=0, help="torch CPU threads (0: torch's default)")
    p.add_argument("--workers", type=int, default=0, help="tokenising processes (0: one per CPU core)")
    p.add_argument("--eval-batch-size", type=int, default=0, help="windows per evaluation batch (0: 4x batch size on CUDA, 16 on CPU)")
    p.add_argument("--log-every", type=int, default=50, help="progress line every N steps (default 50)")
    p.add_argument("--data-root", default=None, help="folder holding squad_v1_train/, squad_v2_dev/ (default ../shared/data)")
    p.add_argument("--evaluate", default=None, metavar="DELTA",
                   help="train nothing: evaluate this reader delta as training ends (OUT/evaluation.json)")
    p.add_argument("--store", action="store_true", help="with --evaluate: write the figures and rule into the delta")


def run(args: argparse.Namespace) -> int:
    if args.evaluate:
        return evaluate_delta(args)
    report = train(args, command="qascore-lab train reader " + " ".join(sys.argv[3:]))
    print(json.dumps(report["metrics"], indent=1))
    print(f"wrote {report['delta']} ({report['delta_bytes'] / 1e6:.2f} MB) and {Path(args.out) / 'report.json'}")
    return 0


def evaluate_delta(args: argparse.Namespace) -> int:
    """`--evaluate DELTA`: the end-of-training evaluation of a saved reader on the dev sets the other flags
    define; writes OUT/evaluation.json, and with `--store` the figures and chosen rule into the delta."""
    reader = Reader.load(args.evaluate)
    reader.model.to(args.device)
    if args.threads:
        torch.set_num_threads(args.threads)
    data = load_data(args)
    t0 = time.time()
    if args.rule_checks_only:
        metrics = {**read_meta(args.evaluate).get("metrics", {}), **rule_checks(reader, data, args)}
    else:
        metrics = evaluate(reader, data, args)
    metrics["eval_seconds"] = round(time.time() - t0, 1)
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    with open(out_dir / "evaluation.json", "w", encoding="utf-8") as fh:
        json.dump({"delta": str(args.evaluate), "counts": data["counts"], "metrics": metrics}, fh, indent=1)
    if args.store:
        update_meta(args.evaluate, {"metrics": metrics, **chosen_rule(metrics)})
    print(json.dumps(metrics, indent=1))
    return 0


# -- data ------------------------------------------------------------------------

def _bucket(salt: str, key: str) -> float:
    """A stable number in [0, 1) per key (article title)."""
    return int(hashlib.sha1(f"{salt}:{key}".encode()).hexdigest()[:8], 16) / 2**32


def qgeval_passages(root: str | None) -> set[str]:
    """Normalised QGEval passages (empty when the folder is absent)."""
    try:
        path = benchmark_dir("qgeval_squad", root) / "original_data.csv"
    except FileNotFoundError:
        return set()
    if not path.is_file():
        return set()
    with open(path, newline="", encoding="utf-8") as fh:
        return {" ".join(row["passage"].split()) for row in csv.DictReader(fh)}


def word_start(context: str, text: str, start: int) -> int:
    """The answer's offset moved to its first occurrence that stands as whole words, when `start` lies inside a
    longer word. SQuAD 1.1 here carries the FIRST occurrence of the answer text (its README), which for
    about 0.5% of questions is inside another word ('2' in '280', 'four' in 'fourth')."""
    def whole(i: int) -> bool:
        return (i == 0 or not context[i - 1].isalnum()) and \
            (i + len(text) >= len(context) or not context[i + len(text)].isalnum())

    if not text or whole(start):
        return start
    i = context.find(text)
    while i >= 0:
        if whole(i):
            return i
        i = context.find(text, i + 1)
    return start


def _example(q: squad.SquadQuestion, v11: bool = False) -> Example:
    if q.answers and not q.is_impossible:
        a = q.answers[0]
        start = word_start(q.context, a.text, a.start) if v11 else a.start
        return Example(q.question, q.context, (start, start + len(a.text)), tuple(x.text for x in q.answers),
                       q.title, q.id)
    return Example(q.question, q.context, None, (), q.title, q.id)


def load_data(args: argparse.Namespace) -> dict[str, Any]:
    """Train examples and the dev sets, with counts (what the report's `data` says)."""
    root = args.data_root
    rng = random.Random(args.seed)
    drop = qgeval_passages(root)
    v11 = [q for q in squad.load_v11(root) if " ".join(q.context.split()) not in drop]
    v2 = [q for q in squad.load(root=root) if " ".join(q.context.split()) not in drop]
    dev_titles = {q.title for q in v11 if _bucket(args.split_salt, q.title) < args.dev_percent / 100}
    train11 = [q for q in v11 if q.title not in dev_titles]
    dev11 = [q for q in v11 if q.title in dev_titles]
    v2_titles = sorted({q.title for q in v2}, key=lambda t: _bucket(args.split_salt, t))
    v2_train_titles = set(v2_titles[:len(v2_titles) // 2])
    train2 = [q for q in v2 if q.title in v2_train_titles]
    dev2 = [q for q in v2 if q.title not in v2_train_titles]

    rng.shuffle(train11)
    rng.shuffle(dev11)
    rng.shuffle(train2)
    rng.shuffle(dev2)
    if args.max_questions:
        n = args.max_questions
        train11, train2 = train11[:n - n // 8], train2[:n // 8]
        dev11, dev2 = dev11[:max(8, n // 4)], dev2[:max(8, n // 4)]
    train = [_example(q, v11=True) for q in train11] + [_example(q) for q in train2]
    wrong = wrong_passages(train11, args.wrong_passage_share, rng)
    train += wrong
    rng.shuffle(train)
    data = {
        "train": train, "dev11": [_example(q, v11=True) for q in dev11], "dev2": [_example(q) for q in dev2],
        "counts": {
            "squad11_train_questions": len(train11), "squad11_heldout_questions": len(dev11),
            "squad11_heldout_articles": len({q.title for q in dev11}),
            "squad2_train_questions": len(train2),
            "squad2_train_unanswerable": sum(q.is_impossible for q in train2),
            "squad2_dev_questions": len(dev2), "squad2_dev_unanswerable": sum(q.is_impossible for q in dev2),
            "wrong_passage_negatives": len(wrong), "qgeval_passages_dropped": len(drop),
        },
    }
    return data


def wrong_passages(questions: Sequence[squad.SquadQuestion], share: float, rng: random.Random) -> list[Example]:
    """For `share` of the questions: the question with another paragraph of its article that does not hold
    its answer (after SQuAD normalisation), as a no-answer example."""
    if share <= 0:
        return []
    contexts: dict[str, set[str]] = {}
    for q in questions:
        contexts.setdefault(q.title, set()).add(q.context)
    by_title: dict[str, dict[str, str]] = {}   # title -> context -> normalised context
    out = []
    for q in questions:
        if rng.random() >= share or not q.answers:
            continue
        if q.title not in by_title:
            by_title[q.title] = {c: normalize_answer(c) for c in sorted(contexts[q.title])}
        other = wrong_context(q.context, q.answers[0].text, by_title[q.title], rng)
        if other is not None:
            out.append(Example(q.question, other, None, (), q.title, q.id + ":wrong"))
    return out


def wrong_context(context: str, answer: str, contexts: dict[str, str], rng: random.Random) -> str | None:
    """A random context of `contexts` (context -> its normalised text), other than `context`, without `answer`."""
    target = normalize_answer(answer)
    pool = [c for c, norm in contexts.items() if c != context and target not in norm]
    return rng.choice(pool) if pool else None


# -- tensors ---------------------------------------------------------------------

@dataclass
class Tensors:
    input_ids: torch.Tensor       # (N, max_len) padded
    token_type_ids: torch.Tensor
    lengths: torch.Tensor         # (N,)
    mask: torch.Tensor            # (N, max_len) bool: [CLS] + passage WordPieces
    start: torch.Tensor
    end: torch.Tensor

    def __len__(self) -> int:
        return int(self.lengths.shape[0])

    def to(self, device: str) -> "Tensors":
        return Tensors(*(t.to(device) for t in (self.input_ids, self.token_type_ids, self.lengths, self.mask,
                                                 self.start, self.end)))


_TOKENIZER: Any = None   # the tokenizer forked worker processes use


def _arrays(job: tuple[list[str], list[str], list[tuple[int, int] | None], ReaderSpec]) -> dict[str, np.ndarray]:
    arr = window_arrays(_TOKENIZER, *job)
    # Compact for the trip back from a worker: ids fit int32, segment ids int8.
    return {**arr, "input_ids": arr["input_ids"].astype(np.int32), "token_type_ids": arr["token_type_ids"].astype(np.int8)}


def tensorize(tokenizer: Any, examples: Sequence[Example], spec: ReaderSpec, chunk: int = 2048,
              workers: int = 0) -> Tensors:
    """Every window of every example (no window limit), padded to max_len, with span labels.

    Chunks are tokenised in `workers` forked processes (0: one per CPU core), each a single-threaded fast
    tokenizer: the conversion of its output to arrays is Python work that one process would do serially.
    """
    global _TOKENIZER
    jobs = [([e.question for e in part], [e.context for e in part], [e.answer for e in part], spec)
            for part in (examples[c0:c0 + chunk] for c0 in range(0, len(examples), chunk))]
    _TOKENIZER = tokenizer
    workers = min(workers or os.cpu_count() or 1, len(jobs))
    if workers > 1:
        import multiprocessing

        before = os.environ.get("TOKENIZERS_PARALLELISM")
        os.environ["TOKENIZERS_PARALLELISM"] = "false"   # the processes are the parallelism
        try:
            with multiprocessing.get_context("fork").Pool(workers) as pool:
                parts = pool.map(_arrays, jobs)
        finally:
            if before is None:
                os.environ.pop("TOKENIZERS_PARALLELISM", None)
            else:
                os.environ["TOKENIZERS_PARALLELISM"] = before
    else:
        parts = [_arrays(job) for job in jobs]
    cat = {k: torch.from_numpy(np.concatenate([p[k] for p in parts])) for k in parts[0]}
    return Tensors(cat["input_ids"], cat["token_type_ids"], cat["lengths"], cat["mask"], cat["start"], cat["end"])


# -- training --------------------------------------------------------------------

def fit(model: ReaderModel, tens: Tensors, args: argparse.Namespace) -> float:
    """Train `model`'s trainable parameters on span-labelled windows (AdamW, linear warm-up and decay; `args`:
    device, lr, head_lr, weight_decay, batch_size, micro_batch, epochs, warmup, seed, log_every); seconds taken."""
    device = args.device
    cuda = device.startswith("cuda")
    head = [p for n, p in model.named_parameters() if n.startswith("qa.")]
    body = [p for n, p in model.named_parameters() if p.requires_grad and not n.startswith("qa.")]
    opt = torch.optim.AdamW([{"params": body, "lr": args.lr}, {"params": head, "lr": args.head_lr}],
                            weight_decay=args.weight_decay, fused=cuda)
    steps_per_epoch = math.ceil(len(tens) / args.batch_size)
    total = steps_per_epoch * args.epochs
    warm = max(1, int(total * args.warmup))
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: (s + 1) / warm if s < warm else max(0.0, (total - s) / max(1, total - warm)))
    gpu = tens.to(device)
    gen = torch.Generator().manual_seed(args.seed)
    micro = args.micro_batch or (args.batch_size if cuda else 8)
    step, seen, losses = 0, 0, []
    t_train = time.time()
    model.train()
    for epoch in range(args.epochs):
        perm = torch.randperm(len(tens), generator=gen)
        t_ep = time.time()
        for b0 in range(0, len(tens), args.batch_size):
            cpu_idx = perm[b0:b0 + args.batch_size]
            opt.zero_grad(set_to_none=True)
            total_loss = torch.zeros((), device=device)
            for m0 in range(0, len(cpu_idx), micro):      # micro-batches: the gradient of the whole batch
                part = cpu_idx[m0:m0 + micro]
                width = int(tens.lengths[part].max())       # from the CPU copy: no wait for the GPU
                idx = part.to(device, non_blocking=True)
                ids = gpu.input_ids[idx, :width].long()
                att = (torch.arange(width, device=device)[None, :] < gpu.lengths[idx][:, None]).long()
                mask = gpu.mask[idx, :width]
                with torch.autocast(device_type="cuda", dtype=torch.bfloat16, enabled=cuda):
                    s, e = model(ids, att, gpu.token_type_ids[idx, :width].long())
                s = s.float().masked_fill(~mask, -1e4)
                e = e.float().masked_fill(~mask, -1e4)
                loss = (torch.nn.functional.cross_entropy(s, gpu.start[idx])
                        + torch.nn.functional.cross_entropy(e, gpu.end[idx])) / 2 * (len(part) / len(cpu_idx))
                loss.backward()
                total_loss += loss.detach()
            torch.nn.utils.clip_grad_norm_([*body, *head], 1.0)
            opt.step()
            sched.step()
            step += 1
            seen += len(cpu_idx)
            losses.append(total_loss)
            if step % args.log_every == 0 or b0 + args.batch_size >= len(tens):
                mean = torch.stack(losses).mean().item()
                losses = []
                el = time.time() - t_train
                print(f"epoch {epoch + 1}/{args.epochs} step {step}/{total} loss {mean:.4f} "
                      f"lr {sched.get_last_lr()[0]:.2e} {seen / el:.1f} windows/s elapsed {el:.0f} s", flush=True)
        if cuda:
            torch.cuda.synchronize()
        print(f"epoch {epoch + 1} done in {time.time() - t_ep:.1f} s", flush=True)
    return time.time() - t_train


def train(args: argparse.Namespace, command: str) -> dict[str, Any]:
    t_all = time.time()
    torch.manual_seed(args.seed)
    random.seed(args.seed)
    np.random.seed(args.seed)
    if args.threads:
        torch.set_num_threads(args.threads)
    device = args.device
    cuda = device.startswith("cuda")
    if cuda:
        torch.backends.cuda.matmul.allow_tf32 = True
        torch.backends.cudnn.allow_tf32 = True
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    spec = ReaderSpec(max_len=args.max_len, stride=args.stride, lora_rank=args.lora_rank, lora_alpha=args.lora_alpha)

    t0 = time.time()
    data = load_data(args)
    print(f"data: {json.dumps(data['counts'])} ({time.time() - t0:.1f} s)", flush=True)
    from qascore.runtime.encoder import load_tokenizer

    tokenizer = load_tokenizer(spec.encoder)
    t0 = time.time()
    tens = tensorize(tokenizer, data["train"], spec, workers=args.workers)
    print(f"tokenised {len(data['train'])} training examples into {len(tens)} windows "
          f"({time.time() - t0:.1f} s)", flush=True)

    model = ReaderModel(spec, load_base(spec)).to(device)
    train_s = fit(model, tens, args)

    model.eval()
    reader = Reader(spec, model, tokenizer)
    delta = out_dir / "reader.safetensors"
    data_info = {
        "squad11": f"{squad.V11_FOLDER}/{squad.V11_FILE}", "squad2": f"{squad.FOLDER}/{squad.FILE}",
        "split": f"articles by sha1('{args.split_salt}:' + title): {args.dev_percent}% of SQuAD 1.1 held out; "
                 "SQuAD 2.0 dev articles halved (train half / dev half); QGEval passages dropped",
        **data["counts"],
    }
    meta: dict[str, Any] = {"command": command, "seed": args.seed, "data": data_info,
                            "data_root": str(data_root(args.data_root)),
                            "license": "trained on SQuAD 1.1 / 2.0 (CC BY-SA 4.0)", "train_seconds": round(train_s, 1)}
    reader.info = {"command": command, "seed": args.seed}
    reader.save(delta, extra=meta)   # saved before evaluating: a failure there loses no training
    print(f"saved {delta} ({delta.stat().st_size / 1e6:.2f} MB; evaluating: `--evaluate {delta}` repeats this)",
          flush=True)
    t0 = time.time()
    metrics = evaluate(reader, data, args)
    metrics["train_seconds"] = round(train_s, 1)
    metrics["eval_seconds"] = round(time.time() - t0, 1)
    stored = chosen_rule(metrics)
    reader.rule, reader.logistic = stored["rule"], Logistic.from_dict(stored["rule_weights"])
    print(f"evaluated ({metrics['eval_seconds']} s)", flush=True)
    meta["metrics"] = metrics
    update_meta(delta, {"metrics": metrics, **stored})
    report = {**meta, "spec": asdict(spec), "rule": reader.rule,
              "base_hash": base_hash(defaults.resolve(spec.encoder)), "delta": str(delta),
              "delta_bytes": delta.stat().st_size, "wall_seconds": round(time.time() - t_all, 1),
              "args": {k: v for k, v in vars(args).items() if not k.startswith("_")}}
    with open(out_dir / "report.json", "w", encoding="utf-8") as fh:
        json.dump(report, fh, indent=1, sort_keys=True)
    if report["delta_bytes"] > 10 * 2**20:
        print(f"warning: the delta is {report['delta_bytes'] / 2**20:.1f} MiB, over the 10 MiB the package ships",
              file=sys.stderr)
    return report


# -- evaluation ------------------------------------------------------------------

def _auroc(pos: Sequence[float], neg: Sequence[float]) -> float:
    """P(a positive scores above a negative), ties counting half (Mann-Whitney)."""
    if not pos or not neg:
        return float("nan")
    s = np.asarray(list(pos) + list(neg), dtype=np.float64)
    order = s.argsort(kind="mergesort")
    ranks = np.empty(len(s))
    sorted_s = s[order]
    i = 0
    while i < len(s):          # average ranks over ties
        j = i
        while j + 1 < len(s) and sorted_s[j + 1] == sorted_s[i]:
            j += 1
        ranks[order[i:j + 1]] = (i + j) / 2 + 1
        i = j + 1
    r_pos = ranks[:len(pos)].sum()
    return float((r_pos - len(pos) * (len(pos) + 1) / 2) / (len(pos) * len(neg)))


def evaluate(reader: Reader, data: dict[str, Any], args: argparse.Namespace) -> dict[str, Any]:
    kw = _kw(args)
    out: dict[str, Any] = {}

    dev11: list[Example] = data["dev11"]
    reads = reader.read([e.question for e in dev11], [e.context for e in dev11], **kw)
    em = [max(squad_em(r.best[0], g) for g in e.answers) for r, e in zip(reads, dev11)]
    f1 = [max(squad_f1(r.best[0], g) for g in e.answers) for r, e in zip(reads, dev11)]
    out["squad11_heldout"] = {"questions": len(dev11), "em": _pct(em), "f1": _pct(f1)}

    dev2: list[Example] = data["dev2"]
    reads2 = reader.read([e.question for e in dev2], [e.context for e in dev2], **kw)
    has = [e.answer is not None for e in dev2]
    p_ans = [r.p_answer for r in reads2]
    acc = [float((p >= 0.5) == h) for p, h in zip(p_ans, has)]
    pos = [p for p, h in zip(p_ans, has) if h]
    neg = [p for p, h in zip(p_ans, has) if not h]
    has_f1 = [max(squad_f1(r.best[0], g) for g in e.answers) for r, e in zip(reads2, dev2) if e.answer is not None]
    out["squad2_dev_half"] = {"questions": len(dev2), "unanswerable": len(neg),
                              "noans_accuracy_at_0.5": _pct(acc), "noans_auroc": round(_auroc(pos, neg), 4),
                              "answerable_f1": _pct(has_f1)}
    out.update(rule_checks(reader, data, args))
    return out


def _kw(args: argparse.Namespace) -> dict[str, Any]:
    """How the evaluation reads: big batches and bf16 on CUDA, every window."""
    cuda = args.device.startswith("cuda")
    return {"batch_size": args.eval_batch_size or (4 * args.batch_size if cuda else 16),
            "dtype": "bf16" if cuda else None, "max_windows": None}


def rule_checks(reader: Reader, data: dict[str, Any], args: argparse.Namespace) -> dict[str, Any]:
    """The two checks of the main-score rules on the held-out answerable questions; `qg_check` chooses."""
    held = data["dev11"] + [e for e in data["dev2"] if e.answer is not None]
    kw = _kw(args)
    return {"rule_check": rule_check(reader, held, args, kw), "qg_check": qg_check(reader, held, args, kw)}


def chosen_rule(metrics: dict[str, Any]) -> dict[str, Any]:
    """What a delta stores of the checks: the rule the bad-question check chose and the logistic weights."""
    return {"rule": metrics["qg_check"]["chosen"], "rule_weights": metrics["qg_check"]["logistic_weights"]}


def _or(value: float, fallback: float) -> float:
    return fallback if math.isnan(value) else value


def _pct(values: Sequence[float]) -> float:
    return round(100 * float(np.mean(values)), 2) if len(values) else float("nan")


def rule_check(reader: Reader, examples: Sequence[Example], args: argparse.Namespace,
               kw: dict[str, Any]) -> dict[str, Any]:
    """AUROC of each main-score rule: held-out questions with their own passage and answer against the same
    questions with a wrong passage (another paragraph of the article, without the answer) and with a wrong
    answer (another question's answer from the same passage, token F1 < 0.5 with the own answer); the rule
    with the best mean of the two AUROCs is chosen. A rule that reads the answer tells a wrong passage by the
    answer's absence alone, so `p_answer`'s wrong-passage AUROC is the one that says how well the reader
    judges a question's answerability."""
    rng = random.Random(args.seed + 1)
    by_title: dict[str, dict[str, str]] = {}
    by_context: dict[str, list[str]] = {}
    for e in examples:
        ctxs = by_title.setdefault(e.title, {})
        if e.context not in ctxs:
            ctxs[e.context] = normalize_answer(e.context)
        by_context.setdefault(e.context, []).append(e.answers[0])
    pool = list(examples)
    rng.shuffle(pool)
    rows: list[tuple[str, str, str, str]] = []   # kind, question, context, answer
    for e in pool[:args.check_questions]:
        own = e.answers[0]
        rows.append(("pos", e.question, e.context, own))
        other = wrong_context(e.context, own, dict(sorted(by_title[e.title].items())), rng)
        if other is not None:
            rows.append(("wrong_passage", e.question, other, own))
        others = sorted({a for a in by_context[e.context] if squad_f1(a, own) < 0.5})
        if others:
            rows.append(("wrong_answer", e.question, e.context, rng.choice(others)))
    scores = rule_scores(reader, [r[1:] for r in rows], args, kw)
    out: dict[str, Any] = {"counts": {k: sum(r[0] == k for r in rows) for k in ("pos", "wrong_passage", "wrong_answer")}}
    for rule, vals in scores.items():
        pos = [v for v, r in zip(vals, rows) if r[0] == "pos"]
        out[rule] = {k: round(_auroc(pos, [v for v, r in zip(vals, rows) if r[0] in kinds]), 4)
                     for k, kinds in (("wrong_passage", ("wrong_passage",)), ("wrong_answer", ("wrong_answer",)),
                                      ("both", ("wrong_passage", "wrong_answer")))}
        out[rule]["balanced"] = round((_or(out[rule]["wrong_passage"], 0.5) + _or(out[rule]["wrong_answer"], 0.5)) / 2, 4)
    return out


def rule_scores(reader: Reader, rows: Sequence[tuple[str, str, str]], args: argparse.Namespace,
                kw: dict[str, Any]) -> dict[str, list[float]]:
    """Every rule's score of (question, passage, answer) rows: one reading each, and the verifier's and the
    judge's judgments of the spans (for the VERIFIED and JUDGED rules) made once."""
    from qascore.metrics.answerability import span_judge, verifier_path
    from qascore.runtime.ava_layouts import load_verifier

    questions, answers = [r[0] for r in rows], [r[2] for r in rows]
    reads = reader.read(questions, [r[1] for r in rows], **kw)
    ver = load_verifier(verifier_path(), args.device)
    judged = verify(lambda recs: ver.predict(recs, batch_size=kw["batch_size"], dtype=kw["dtype"]), questions, reads,
                    answers)
    judge = None if getattr(args, "no_judge_rules", False) else verify(span_judge(args.device, kw["dtype"]),
                                                                       questions, reads, answers)
    return scores_of(reads, answers, judged, judge)


def scores_of(reads: Sequence[Any], answers: Sequence[str], judged: Sequence[Any], judge: Sequence[Any] | None
              ) -> dict[str, list[float]]:
    """Every rule's score from readings, answers and the span judgments (`verify`'s, for the verifier and the
    judge; without the judge's, the JUDGED rules are left out)."""
    judges = [None] * len(reads) if judge is None else judge
    matches = [rd.match(a, j, g) for rd, a, j, g in zip(reads, answers, judged, judges)]  # read by every rule
    return {rule: [rule_score(rd, m, rule) for rd, m in zip(reads, matches)] for rule in RULES
            if judge is not None or rule not in JUDGED}


def qg_check(reader: Reader, examples: Sequence[Example], args: argparse.Namespace,
             kw: dict[str, Any]) -> dict[str, Any]:
    """AUROC of each rule: `--qg-questions` held-out questions with their own passage and answer against the
    bad-question look-alikes made from them (`qg_corruptions`), per kind; the rule with the best mean over
    the five negative kinds is chosen (`choose`). `copied_cut` is reported only."""
    rows = qg_rows(examples, args.qg_questions)
    return qg_figures(rows, rule_scores(reader, [(r.question, r.context, r.answer) for r in rows], args, kw))


def qg_rows(examples: Sequence[Example], questions: int) -> list[qc.Row]:
    """The bad-question check's rows: `questions` own questions of `examples` and their look-alikes."""
    sources = [qc.Source(e.question, e.context, e.context[e.answer[0]:e.answer[1]], e.title) for e in examples
               if e.answer is not None]
    return qc.build(sources, questions)


def qg_figures(rows: Sequence[qc.Row], scores: dict[str, list[float]]) -> dict[str, Any]:
    """`qg_check`'s figures from every rule's scores of its rows (the logistic rule fitted here)."""
    scores = dict(scores)
    kinds = [r.kind for r in rows]
    titles = sorted({r.title for r in rows})
    even = set(titles[::2])
    half = np.array([r.title in even for r in rows])
    use = np.array([k in ("own", *qc.NEGATIVE_KINDS) for k in kinds])
    y = np.array([k == "own" for k in kinds], dtype=int)
    x = np.array([[scores[s][i] for s in LOGISTIC_SIGNALS] for i in range(len(rows))])
    crossed = np.zeros(len(rows))
    for fold in (half, ~half):   # the logistic's AUROCs: each half of the articles scored by a fit on the other
        lg = fit_logistic(x[~fold & use], y[~fold & use])
        crossed[fold] = [lg.combine(v) for v in x[fold]]
    scores[LOGISTIC] = crossed.tolist()
    out: dict[str, Any] = {"counts": {k: kinds.count(k) for k in qc.KINDS},
                           "logistic_weights": fit_logistic(x[use], y[use]).to_dict()}
    for rule, vals in scores.items():
        pos = [v for v, k in zip(vals, kinds) if k == "own"]
        out[rule] = {kind: round(_auroc(pos, [v for v, k in zip(vals, kinds) if k == kind]), 4)
                     for kind in (*qc.NEGATIVE_KINDS, "copied_cut")}
        out[rule]["mean"] = round(float(np.mean([_or(out[rule][k], 0.5) for k in qc.NEGATIVE_KINDS])), 4)
    out["chosen"] = choose({rule: out[rule]["mean"] for rule in scores})
    return out


# The logistic rule's signals: P(answerable) and the expected F1 with the answer (chosen on the bad-question
# check among wider sets, lab/results/reader.md).
LOGISTIC_SIGNALS = ("p_answer", "expected_f1")
# Simpler and faster first: the fixed rules, the fitted one, those that run the verifier too, then the judge.
ORDER = (*[r for r in RULES if r not in VERIFIED | JUDGED], LOGISTIC, *[r for r in RULES if r in VERIFIED],
         *[r for r in RULES if r in JUDGED])


def fit_logistic(x: np.ndarray, y: np.ndarray) -> Logistic:
    """The logistic rule fitted on rows of LOGISTIC_SIGNALS' scores (x) and own/not-own labels (y): sklearn's
    L2-regularised (C = 1) logistic regression on their log-odds."""
    from sklearn.linear_model import LogisticRegression

    z = np.vectorize(log_odds)(x)
    m = LogisticRegression(C=1.0, max_iter=1000).fit(z, y)
    return Logistic(LOGISTIC_SIGNALS, tuple(round(float(c), 6) for c in m.coef_[0]), round(float(m.intercept_[0]), 6))


def choose(means: dict[str, float], margin: float = 0.005) -> str:
    """The rule with the best mean AUROC; of those within `margin` of it, the first in ORDER (simpler and
    faster first)."""
    best = max(means.values())
    return next(r for r in ORDER if r in means and means[r] >= best - margin)


__all__ = ["add_arguments", "run", "train", "load_data", "tensorize", "evaluate", "rule_check", "qg_check", "choose",
           "Example"]
