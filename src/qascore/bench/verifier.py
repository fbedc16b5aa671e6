"""`qascore bench verifier`: AVA scoring throughput on CPU, against a plain encoder pass.

The reference, measured in the same run on the same (q, r, t) triples, is
what a naive scorer does: every view of every triple through the full base
encoder, padded to max_len, in input order, no de-duplication. The verifier
runs the same number of transformer layers per view (frozen lower + trained
top), so the ratio shows what length-sorted batches and de-duplication buy.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

import numpy as np


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--model", default=None, help="AVA delta (default: the shipped `ava` model)")
    p.add_argument("--data", default=None, help="folder with wikiqa/ (default: $QASCORE_DATA or ../shared/data; synthetic text if absent)")
    p.add_argument("-n", "--n", type=int, default=256, help="number of (q, r, t) triples")
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--seed", type=int, default=13)


def _data(root: str | None) -> Path:
    """The data root, or a path that does not exist (the bench then uses synthetic text)."""
    from qascore.datasets import DataNotFound, data_root

    try:
        return data_root(root)
    except DataNotFound:
        return Path(root or "/nonexistent")


def _triples(data: Path, n: int, seed: int) -> tuple[list[Any], str]:
    from qascore.records import Record

    wiki = data / "wikiqa"
    if wiki.exists():
        from qascore.datasets.as2 import read_wikiqa
        from qascore.train.ava_data import build_triples, to_records

        tr = build_triples(read_wikiqa(wiki, "test"))
        keep = np.random.default_rng(seed).choice(len(tr), min(n, len(tr)), replace=False)
        return to_records([tr[k] for k in sorted(keep.tolist())])[0], "WikiQA test AVA triples"
    rng = np.random.default_rng(seed)
    words = "the of and to in a is was for on as by with he that at from his it an were are which".split()
    sent = lambda k: " ".join(rng.choice(words, k)) + " ."  # noqa: E731
    return ([Record(question=sent(8), candidate=sent(int(rng.integers(10, 40))),
                    references=[sent(int(rng.integers(10, 40)))]) for _ in range(n)], "synthetic sentences")


def run(args: argparse.Namespace) -> int:
    import torch

    from qascore.metrics.verifiers import AVA_DIR, load_verifier
    from qascore.runtime.partial import pad_tokens
    from qascore.runtime.verifier import load_base

    torch.set_num_threads(args.threads)
    ver = load_verifier(Path(args.model) if args.model else AVA_DIR / "ava.safetensors")
    recs, source = _triples(_data(args.data), args.n, args.seed)
    toks = ver.tokens(recs)
    lengths = [len(t[v][0]) for t in toks for v in range(ver.spec.n_views)]
    print(f"device cpu, threads {args.threads}, batch size {args.batch_size}, max_len {ver.spec.max_len}, "
          f"layout {ver.spec.layout} ({ver.spec.n_views} views{', peer attention' if ver.spec.peer else ''}), "
          f"{len(recs)} triples from {source}; view length mean {np.mean(lengths):.1f}, max {max(lengths)} tokens")

    ver.predict(recs[: args.batch_size], batch_size=args.batch_size)  # warm-up
    t0 = time.perf_counter()
    ver.predict(recs, batch_size=args.batch_size)
    ours = time.perf_counter() - t0

    base = load_base(ver.spec).eval()
    flat = [t[v] for t in toks for v in range(ver.spec.n_views)]
    passes = 2 if ver.spec.peer else 1  # peer attention runs the top layers twice; the naive pass once
    t0 = time.perf_counter()
    with torch.no_grad():
        for start in range(0, len(flat), args.batch_size):
            ids, types, mask = pad_tokens(flat[start:start + args.batch_size], 0)
            pad = ver.spec.max_len - ids.shape[1]
            if pad > 0:
                ids, types, mask = (torch.nn.functional.pad(x, (0, pad)) for x in (ids, types, mask))
            base(input_ids=ids, token_type_ids=types, attention_mask=mask)
    naive = time.perf_counter() - t0
    print(f"verifier (sorted, de-duplicated, {passes} top pass(es)): {len(recs) / ours:8.1f} triples/s  "
          f"{len(flat) / ours:8.1f} pairs/s")
    print(f"reference (full encoder, padded to max_len):        {len(recs) / naive:8.1f} triples/s  "
          f"{len(flat) / naive:8.1f} pairs/s")
    print(f"ratio verifier / reference: {naive / ours:.2f}x")
    return 0
