"""Pack a GPU round's data (lab/scripts/gpu_round.sh, gpu_verifiers.sh): the rows `--mix` and `--with-probes`
would draw, drawn here with the same seeds, gzipped; corpus v3's dev/test and the probe dev sample and test
split beside them.
Usage, from the repo root:
  python lab/scripts/gpu_pack.py [OUT (default .gpu/b/data)] [--mix SPEC|all] [--probes N|FAMILY:N+...]...
      [--styles DIR=FAMILY:N+...]... [--probe-folder DIR] [--corpus DIR]
Each --probes draw goes to OUT/probes/train.jsonl.gz (the first) or OUT/probesK/train.jsonl.gz (the K-th);
--styles adds a draw of a composed-probe folder's train split (`train probe-styles`, `train probe-dates`) to
every one of them; repeatable, one draw per folder. --probe-folder names the folder the --probes draws read
(default runs/probes; the dev sample and test split always come from runs/probes): with a verifier's own
--mix and --with-probes spec, the pack holds exactly the rows that command trains on (docs/devices.md)."""

from __future__ import annotations

import argparse
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


def main(out: Path, corpus_mix: str, probe_draws: list[str], styles: list[str] | None = None,
         probe_folder: str = "runs/probes", corpus: str = "runs/vd3") -> None:
    sys.path[:0] = ["src", "lab/src"]
    from qascore_lab.train.probes import by_questions, read
    from qascore_lab.train.verifier_corpus import read_split
    from qascore_lab.train.verifier_run import mix, probe_sample

    for sub in ("vd3m", "probes"):
        (out / sub).mkdir(parents=True, exist_ok=True)
    train = read_split(corpus, "train")
    write(out / "vd3m/train.jsonl", train if corpus_mix == "all" else mix(train, corpus_mix, 13))
    for split in ("dev", "test"):
        write(out / f"vd3m/{split}.jsonl", read_split(corpus, split))
    shutil.copy(f"{corpus}/report.json", out / "vd3m/report.json")
    probe_train = read(probe_folder, "train")
    extra = []
    for draw in styles or []:
        folder_s, _, spec_s = draw.rpartition("=")
        extra += probe_sample(read(folder_s, "train"), spec_s, 13)
    for k, spec in enumerate(probe_draws, 1):
        folder = out / ("probes" if k == 1 else f"probes{k}")
        folder.mkdir(parents=True, exist_ok=True)
        write(folder / "train.jsonl", probe_sample(probe_train, spec, 13) + extra)
    write(out / "probes/dev.jsonl", by_questions(read("runs/probes", "dev"), 500, 13))
    write(out / "probes/test.jsonl", read("runs/probes", "test"))


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("out", nargs="?", default=".gpu/b/data")
    ap.add_argument("--mix", default=V3_MIX, help="corpus v3's --mix, or 'all' for every training row")
    ap.add_argument("--probes", action="append", default=None, help="a --with-probes draw (N or FAMILY:N+...)")
    ap.add_argument("--styles", action="append", default=None, metavar="DIR=FAMILY:N+...",
                    help="a draw of a composed-probe folder's train split (probe-styles, probe-dates), added to "
                         "every --probes draw; repeatable")
    ap.add_argument("--probe-folder", default="runs/probes",
                    help="the probe folder the --probes draws read (e.g. a verifier's --with-probes DIR)")
    ap.add_argument("--corpus", default="runs/vd3",
                    help="the corpus folder (e.g. a half of `judge_crossfit.py split`, for a half verifier)")
    a = ap.parse_args()
    main(Path(a.out), a.mix, a.probes or ["20000"], a.styles, a.probe_folder, a.corpus)
