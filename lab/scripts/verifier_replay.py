"""lab/scripts/verifier_replay.py NEW OLD PROBES OUT [--probe-rows N] [--seed S]: the probe folder that continues a
trained verifier on new written answers without forgetting the rest (`train verifier --init ... --with-probes
OUT/mix=1000000`; lab/results/judge.md, round 2026-11-30c).

OUT/mix/train.jsonl: every train row of NEW (a `written_probes.py` folder, its copies kept), one copy (ids ending -x0)
of OLD's train rows (the written answers the verifier already learned) and N seeded rows of PROBES' train split
outside the written families, shuffled. OUT/mixA and OUT/mixB: the same without the written rows of that half
(`judge_crossfit.half`), for the two half verifiers that read the judge's training answers. dev and test are empty:
the verifier selects on the corpus dev split."""
from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from judge_crossfit import half  # noqa: E402


def lines(folder: str) -> list[str]:
    with open(Path(folder, "train.jsonl"), encoding="utf-8") as fh:  # by "\n" only: texts hold U+2028
        return list(fh)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("new", help="written_probes.py folder of answers the verifier never saw (all its train rows)")
    p.add_argument("old", help="written_probes.py folder (written with --copies) of answers it learned: one copy")
    p.add_argument("probes", help="the verifier's probe folder: N rows outside the written families")
    p.add_argument("out")
    p.add_argument("--probe-rows", type=int, default=3000)
    p.add_argument("--seed", type=int, default=13)
    a = p.parse_args()
    rnd = random.Random(a.seed)
    old = [x for x in lines(a.old) if json.loads(x)["id"].endswith("-x0")]
    others = [x for x in lines(a.probes) if not json.loads(x)["kind"].startswith("written-")]
    rows = lines(a.new) + old + rnd.sample(others, a.probe_rows)
    rnd.shuffle(rows)
    for name, held in (("mix", None), ("mixA", "A"), ("mixB", "B")):
        out = Path(a.out, name)
        out.mkdir(parents=True, exist_ok=True)
        kept = [x for x in rows if held is None or not (json.loads(x)["kind"].startswith("written-")
                                                         and half(json.loads(x)) == held)]
        (out / "train.jsonl").write_text("".join(kept), encoding="utf-8")
        for split in ("dev", "test"):
            (out / f"{split}.jsonl").write_text("", encoding="utf-8")
        print(f"{out}: {len(kept)} rows")


if __name__ == "__main__":
    main()
