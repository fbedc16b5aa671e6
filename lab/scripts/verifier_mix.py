"""lab/scripts/verifier_mix.py OUT --part FILES=K[:TAG][:near] ... [--drop-near HELD] [--probes P] [--probe-rows N]:
the probe folder that continues a trained verifier on written answers (`train verifier --init ... --with-probes
OUT=1000000`; lab/results/judge.md, round 2026-11-30j).

OUT/train.jsonl: each part's rows (FILES: comma-separated `written_probes.py` train files) K times, in the order the
parts are given (copies after the first K=1 keep their ids; with K > 1 ids end in -TAG0 .. -TAGK-1), the rows of parts
marked `near` without the questions near HELD's (`--drop-near`, difflib ratio >= 0.75), then N seeded rows of P outside
the written families, shuffled. dev and test are empty: the verifier selects on the corpus dev split."""
from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

from qascore_lab.datasets.written import read_rows, without_blind


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("out")
    p.add_argument("--part", action="append", required=True, help="FILES=K[:TAG][:near], in order; repeatable")
    p.add_argument("--drop-near", default=None, help="a JSONL set whose questions the `near` parts leave out")
    p.add_argument("--probes", default="runs/probes/train.jsonl")
    p.add_argument("--probe-rows", type=int, default=3000)
    p.add_argument("--seed", type=int, default=13)
    a = p.parse_args()
    rnd = random.Random(a.seed)
    out: list[dict] = []
    for spec in a.part:
        files, _, rest = spec.partition("=")
        copies, *flags = rest.split(":")
        part = read_rows(files.split(","))
        if "near" in flags:
            if not a.drop_near:
                raise SystemExit(f"verifier_mix: part {spec} is marked near but no --drop-near was given")
            part, dropped = without_blind(part, a.drop_near)
            print(f"{files}: left out {dropped} questions near one of {a.drop_near}")
        tag = next((f for f in flags if f != "near"), "c")
        k = int(copies)
        out += part if k == 1 else [{**r, "id": f"{r['id']}-{tag}{i}"} for i in range(k) for r in part]
    others = [r for r in read_rows([a.probes]) if not r["kind"].startswith("written-")]
    out += rnd.sample(others, a.probe_rows)
    rnd.shuffle(out)
    folder = Path(a.out)
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "train.jsonl", "w", encoding="utf-8") as fh:
        for r in out:
            fh.write(json.dumps(r, ensure_ascii=False) + "\n")
    for split in ("dev", "test"):
        (folder / f"{split}.jsonl").write_text("", encoding="utf-8")
    print(f"{folder}: {len(out)} rows")


if __name__ == "__main__":
    main()
