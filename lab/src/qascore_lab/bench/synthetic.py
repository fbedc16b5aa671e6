"""Synthetic QA records for scale runs: `python -m qascore_lab.bench.synthetic N OUT.jsonl [--seed S]`.

Why synthetic: a million records with the shape of real ones (a question, a
candidate of 3-25 words, 1-3 references, an id and a pass-through field),
reproducible from a seed, without shipping or downloading data. Words come
from a fixed 2,000-word vocabulary with a Zipf-like frequency, so texts repeat
about as often as in real answer sets; candidates share some words with their
references so lexical scores spread between 0 and 1.
"""

from __future__ import annotations

import argparse
import json
import random
from itertools import accumulate
from pathlib import Path

_SYLLABLES = ("ka", "lo", "mi", "ten", "ra", "su", "vo", "ne", "di", "pa", "sho", "gri", "an", "el", "ur")


def vocabulary(size: int = 2000, seed: int = 0) -> list[str]:
    rng = random.Random(seed)
    words: dict[str, None] = {}
    while len(words) < size:
        words["".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(1, 3)))] = None
    return list(words)


def records(n: int, seed: int = 0):
    """Yield `n` record dicts (ids s0..s{n-1}); the same seed gives the same records."""
    rng = random.Random(seed)
    vocab = vocabulary(seed=seed)
    cum = list(accumulate(1.0 / (r + 1) for r in range(len(vocab))))

    def words(k: int) -> list[str]:
        return rng.choices(vocab, cum_weights=cum, k=k)

    for i in range(n):
        answer = words(rng.randint(3, 25))
        refs = []
        for _ in range(rng.randint(1, 3)):
            keep = [w for w in answer if rng.random() < 0.6]
            refs.append(" ".join(keep + words(rng.randint(1, 10))))
        yield {"id": f"s{i}", "question": " ".join(words(rng.randint(4, 12))) + "?",
               "candidate": " ".join(answer), "references": refs, "system": f"sys{i % 7}"}


def write(n: int, path: str | Path, seed: int = 0) -> Path:
    path = Path(path)
    with path.open("w", encoding="utf-8") as fh:
        for rec in records(n, seed):
            fh.write(json.dumps(rec) + "\n")
    return path


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("n", type=int, help="number of records")
    p.add_argument("out", help="JSONL file to write")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    write(args.n, args.out, args.seed)


if __name__ == "__main__":
    main()
