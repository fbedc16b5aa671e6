"""`qascore-lab bench verifier`: verifier scoring throughput on CPU, short answers and sentence answers.

In one run, on the same records: the shipped `ava`, optionally a single-input SQuArE delta (`--square
PATH`; the shipped `square` reads through `ava`, see `bench models`) and a
retired AVA delta (`--old PATH`, e.g. the WikiQA-only `ava-wikiqa`, no longer
shipped: `git show 102ad41:src/qascore/resources/ava/ava-wikiqa.safetensors > ava-wikiqa.safetensors`),
and a reference that does what a naive
scorer does: every input through the full base encoder, padded to max_len,
in input order, no de-duplication. Short answers are answer-equivalence pairs
whose candidate has at most 5 words; sentence answers are WikiQA test AVA
triples (synthetic text stands in where the data are absent).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

import numpy as np

from qascore.runtime import defaults


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--model", default=None, help="AVA delta (default: the shipped `ava` model)")
    p.add_argument("--old", default=None, metavar="PATH",
                   help="a retired AVA delta timed beside the shipped one, e.g. ava-wikiqa.safetensors (module docstring)")
    p.add_argument("--square", default=None, metavar="PATH",
                   help="also time a single-input SQuArE delta (`qascore-lab train verifier --model square`)")
    p.add_argument("--data", default=None, help="folder with wikiqa/ (default: $QASCORE_DATA or ../shared/data; synthetic text if absent)")
    p.add_argument("-n", "--n", type=int, default=256, help="number of (q, r, t) triples")
    p.add_argument("--batch-size", type=int, default=defaults.VERIFIER_BATCH,
                   help=f"pairs per batch (default {defaults.VERIFIER_BATCH}, the metrics' default)")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--seed", type=int, default=13)
    p.add_argument("--dtype", default=None, choices=("bf16", "fp16"),
                   help="also time ava and square at this precision (autocast), against their fp32 runs")


def _data(root: str | None) -> Path:
    """The data root, or a path that does not exist (the bench then uses synthetic text)."""
    from qascore_lab.datasets import DataNotFound, data_root

    try:
        return data_root(root)
    except DataNotFound:
        return Path(root or "/nonexistent")


def _triples(data: Path, n: int, seed: int) -> tuple[list[Any], str]:
    from qascore.records import Record

    wiki = data / "wikiqa"
    if wiki.exists():
        from qascore_lab.datasets.as2 import read_wikiqa
        from qascore_lab.train.ava_data import build_triples, to_records

        tr = build_triples(read_wikiqa(wiki, "test"))
        keep = np.random.default_rng(seed).choice(len(tr), min(n, len(tr)), replace=False)
        return to_records([tr[k] for k in sorted(keep.tolist())])[0], "WikiQA test AVA triples"
    rng = np.random.default_rng(seed)
    words = "the of and to in a is was for on as by with he that at from his it an were are which".split()
    sent = lambda k: " ".join(rng.choice(words, k)) + " ."  # noqa: E731
    return ([Record(question=sent(8), candidate=sent(int(rng.integers(10, 40))),
                    references=[sent(int(rng.integers(10, 40)))]) for _ in range(n)], "synthetic sentences")


def _short(data: Path, n: int, seed: int) -> tuple[list[Any], str]:
    """Short-answer (q, r, t) records: answer-equivalence pairs whose candidate has at most 5 words."""
    from qascore.records import Record

    try:
        from qascore_lab.datasets import answer_equivalence

        pairs = [p for p in answer_equivalence.load(data) if len(p.candidate.split()) <= 5]
        keep = np.random.default_rng(seed).choice(len(pairs), min(n, len(pairs)), replace=False)
        return ([Record(question=pairs[k].question, candidate=pairs[k].candidate, references=[pairs[k].reference])
                 for k in sorted(keep.tolist())], "answer-equivalence pairs, candidate <= 5 words")
    except FileNotFoundError:
        rng = np.random.default_rng(seed)
        words = "paris london the river nile 1945 queen victoria red blue seven".split()
        return ([Record(question="what is the answer to this question ?", candidate=" ".join(rng.choice(words, 2)),
                        references=[" ".join(rng.choice(words, 2))]) for _ in range(n)], "synthetic short answers")


def _rate(predict: Any, recs: list[Any], batch_size: int) -> float:
    predict(recs[:batch_size])  # warm-up
    t0 = time.perf_counter()
    predict(recs)
    return len(recs) / (time.perf_counter() - t0)


def run(args: argparse.Namespace) -> int:
    import torch

    from qascore.metrics.verifiers import AVA_DIR, load_verifier
    from qascore.metrics.square import load_verifier as load_square
    from qascore.runtime.partial import pad_tokens
    from qascore.runtime.verifier import load_base

    torch.set_num_threads(args.threads)
    models = {"ava": load_verifier(Path(args.model) if args.model else AVA_DIR / "ava.safetensors"),
              **({"ava (old)": load_verifier(Path(args.old))} if args.old else {}),
              **({"square": load_square(Path(args.square))} if args.square else {})}
    data = _data(args.data)
    workloads = {"short": _short(data, args.n, args.seed), "sentence": _triples(data, args.n, args.seed)}
    print(f"device cpu, threads {args.threads}, batch size {args.batch_size}")
    ver = models["ava"]
    base = load_base(ver.spec).eval()
    rates: dict[tuple[str, str], float] = {}
    for wname, (recs, source) in workloads.items():
        lengths = [len(t[0][0]) for t in models["ava"].tokens(recs)]
        print(f"\n{wname} answers: {len(recs)} records from {source}; ava input length mean {np.mean(lengths):.1f}, "
              f"max {max(lengths)} tokens")
        runs = [(name, model, None) for name, model in models.items()]
        runs += [(f"{name} ({args.dtype})", models[name], args.dtype) for name in ("ava", "square") if args.dtype and name in models]
        for name, model, dtype in runs:
            rates[wname, name] = _rate(lambda rs: model.predict(rs, batch_size=args.batch_size, dtype=dtype), recs,
                                       args.batch_size)
            print(f"  {name:18s} {rates[wname, name]:8.1f} records/s  (max_len {model.spec.max_len}, "
                  f"train_layers {model.spec.train_layers}, lora_rank {model.spec.lora_rank})")
        toks = [t[0] for t in ver.tokens(recs)]

        def naive(rs: list[Any]) -> None:
            flat = toks[:len(rs)]
            with torch.no_grad():
                for start in range(0, len(flat), args.batch_size):
                    ids, types, mask = pad_tokens(flat[start:start + args.batch_size], 0)
                    pad = ver.spec.max_len - ids.shape[1]
                    if pad > 0:
                        ids, types, mask = (torch.nn.functional.pad(x, (0, pad)) for x in (ids, types, mask))
                    base(input_ids=ids, token_type_ids=types, attention_mask=mask)

        rates[wname, "reference"] = _rate(naive, recs, args.batch_size)
        print(f"  {'reference':18s} {rates[wname, 'reference']:8.1f} records/s  (full encoder, padded to max_len, "
              f"input order)")
        old = f"ava / old ava: {rates[wname, 'ava'] / rates[wname, 'ava (old)']:.2f}x; " if args.old else ""
        print(f"  ratio {old}ava / reference: {rates[wname, 'ava'] / rates[wname, 'reference']:.2f}x")
        if args.dtype:
            print("  ratio " + "; ".join(f"{n} {args.dtype} / fp32: {rates[wname, f'{n} ({args.dtype})'] / rates[wname, n]:.2f}x"
                                         for n in ("ava", "square") if n in models))
    return 0
