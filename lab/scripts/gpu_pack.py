"""Pack the GPU round's data (lab/scripts/gpu_round.sh): the rows `--mix` and `--with-probes` would draw, drawn
here with the same seeds, gzipped; corpus v3's dev/test and the probe dev sample and test split beside them.
Usage, from the repo root: python lab/scripts/gpu_pack.py [OUT (default .gpu/b/data)]."""

from __future__ import annotations

import gzip
import json
import shutil
import sys
from pathlib import Path

V3_MIX = "evouna=all,selqa=all,trecqa-all=3000,squad11=3500,squad=1500,squad-sentref=1500,ae=2000,wikiqa=all"


def write(path: Path, rows: list[dict]) -> None:
    with gzip.open(f"{path}.gz", "wt", encoding="utf-8") as fh:
        for r in rows:
            fh.write(json.dumps(r, ensure_ascii=False) + "\n")


def main(out: Path) -> None:
    sys.path[:0] = ["src", "lab/src"]
    from qascore_lab.train.probes import by_questions, read
    from qascore_lab.train.verifier_corpus import read_split
    from qascore_lab.train.verifier_run import mix, sample

    for sub in ("vd3m", "probes"):
        (out / sub).mkdir(parents=True, exist_ok=True)
    write(out / "vd3m/train.jsonl", mix(read_split("runs/vd3", "train"), V3_MIX, 13))
    for split in ("dev", "test"):
        write(out / f"vd3m/{split}.jsonl", read_split("runs/vd3", split))
    shutil.copy("runs/vd3/report.json", out / "vd3m/report.json")
    write(out / "probes/train.jsonl", sample(read("runs/probes", "train"), 20000, 13))
    write(out / "probes/dev.jsonl", by_questions(read("runs/probes", "dev"), 500, 13))
    write(out / "probes/test.jsonl", read("runs/probes", "test"))


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else ".gpu/b/data"))
