"""EVOUNA-TQ's and the written training answers in the judge's fit, read by verifiers that never trained on them
(lab/results/judge.md, rounds 2026-11-28g and h; the commands in lab/NOTES.md).

  python lab/scripts/judge_crossfit.py split CORPUS OUT_DIR [PROBES]
      CORPUS's EVOUNA-TQ training rows in two halves by question (crc32 of the qid, even: A, odd: B):
      OUT_DIR/corpusA and corpusB (CORPUS without that half's rows: train a verifier on each with the judge
      verifier's command) and OUT_DIR/evtrain (every EVOUNA-TQ training row as an unseen probe folder, for
      `train judge --unseen-probes OUT_DIR/evtrain=5280`, N = its row count). With PROBES (the verifier's
      probe folder), also OUT_DIR/probesA and probesB: PROBES without that half's written rows (kind
      `written-*`, halved by the same crc32), for the same command's --with-probes.
  python lab/scripts/judge_crossfit.py plant OUT_DIR DELTA_A DELTA_B FIT_DIR [FOLDER] [--pass asserted | --verifier FILE]
      each half's `verifier` column read by the delta trained without it, written into FIT_DIR as the cache
      `train judge` reads for that folder (named by the installed judge verifier's hash, as if it had read them);
      FOLDER (an unseen probe folder, e.g. the written rows) in place of OUT_DIR/evtrain, all its train rows.
      `--pass asserted`: the same for the asserted-answer reader's columns (DELTA_A, DELTA_B: half readers, the
      installed reader's hash; round 2026-11-29p of lab/results/judge.md). `--verifier FILE`: the cache named by
      FILE's hash, for a fit with `train judge --verifier FILE` (round 2026-11-30a).
"""

from __future__ import annotations

import json
import sys
import zlib
from pathlib import Path
from typing import Callable

import numpy as np


def half(row: dict) -> str:
    return "A" if zlib.crc32(row["qid"].encode()) % 2 == 0 else "B"


def _without_half(src: Path, dst: Path, held_out: Callable[[dict], bool], files: tuple[str, ...]) -> None:
    """dst/train.jsonl = src's train lines but those `held_out` marks; the other `files` copied as they are."""
    dst.mkdir(parents=True, exist_ok=True)
    with open(src / "train.jsonl", encoding="utf-8") as lines, open(dst / "train.jsonl", "w", encoding="utf-8") as fh:
        fh.writelines(line for line in lines if not held_out(json.loads(line)))
    for name in files:
        (dst / name).write_bytes((src / name).read_bytes())


def split(corpus: Path, out: Path, probes: Path | None = None) -> None:
    for h in "AB":
        _without_half(corpus, out / f"corpus{h}", lambda r, h=h: r["source"] == "evouna" and half(r) == h,
                      ("dev.jsonl", "test.jsonl", "report.json"))
        if probes is not None:
            _without_half(probes, out / f"probes{h}", lambda r, h=h: r["kind"].startswith("written-") and half(r) == h,
                          ("dev.jsonl", "test.jsonl"))
    ev = out / "evtrain"
    ev.mkdir(parents=True, exist_ok=True)
    with open(corpus / "train.jsonl", encoding="utf-8") as lines, open(ev / "train.jsonl", "w", encoding="utf-8") as fh:
        for r in map(json.loads, lines):
            if r["source"] == "evouna":
                fh.write(json.dumps({"id": f"evtrain-{r['id']}", "qid": r["qid"], "question": r["question"],
                                     "candidate": r["candidate"], "references": r["references"],
                                     "label": r["label"], "source": "probes", "kind": "evouna-train",
                                     "family": "evouna-train", "pair": r["qid"],
                                     "member": "right" if r["label"] else "wrong"}, ensure_ascii=False) + "\n")
    for name in ("dev.jsonl", "test.jsonl"):
        (ev / name).write_text("", encoding="utf-8")


def plant(out: Path, delta_a: str, delta_b: str, fit_dir: Path, folder: Path | None = None,
          model: str = "verifier", keyed_by: str | None = None) -> None:
    sys.path[:0] = ["src", "lab/src"]
    import qascore.metrics.asserted as asserted
    import qascore.metrics.judge as judge
    from qascore_lab.train.judge import cached_column, model_hashes
    from qascore_lab.train.verifier_rows import to_records

    folder = folder or out / "evtrain"
    rows = [json.loads(line) for line in open(folder / "train.jsonl", encoding="utf-8")]
    recs, _ = to_records(rows)
    owner, attr = (asserted, "DELTA") if model == "asserted" else (judge, "VERIFIER")
    shipped = getattr(owner, attr)
    names = list(judge.MODEL_PASSES[model])
    name = f"unseen-{folder.name}-train{len(rows)}"   # N as many as the rows: every pair drawn
    if keyed_by:  # the verifier the fit names with `train judge --verifier`, not the installed one
        from qascore.runtime.delta import file_sha256

        installed = file_sha256(Path(keyed_by))
    else:
        installed = model_hashes()[model]
    col = np.zeros((len(recs), len(names)))
    try:
        for h, delta in (("A", delta_a), ("B", delta_b)):
            setattr(owner, attr, Path(delta))
            idx = [i for i, r in enumerate(rows) if half(r) == h]
            if idx:  # a small folder's questions may all fall in one half
                col[idx] = judge.features([recs[i] for i in idx], names)
    finally:
        setattr(owner, attr, shipped)
    fit_dir.mkdir(parents=True, exist_ok=True)
    path, digest = cached_column(fit_dir, name, model, str(installed), recs)
    np.save(path, col)
    path.with_suffix(".rows").write_text(digest)
    print(f"wrote {path} ({len(recs)} rows); fit with --unseen-probes {folder}={len(rows)}")


if __name__ == "__main__":
    if len(sys.argv) in (4, 5) and sys.argv[1] == "split":
        split(Path(sys.argv[2]), Path(sys.argv[3]), Path(sys.argv[4]) if len(sys.argv) == 5 else None)
    elif sys.argv[1:2] == ["plant"] and len(sys.argv) in (6, 7, 8, 9):
        args, model, keyed_by = sys.argv[2:], "verifier", None
        if args[-2:-1] == ["--pass"]:
            args, model = args[:-2], args[-1]
        elif args[-2:-1] == ["--verifier"]:
            args, keyed_by = args[:-2], args[-1]
        if len(args) not in (4, 5) or model not in ("verifier", "asserted"):
            raise SystemExit(__doc__)
        plant(Path(args[0]), args[1], args[2], Path(args[3]), Path(args[4]) if len(args) == 5 else None, model,
              keyed_by)
    else:
        raise SystemExit(__doc__)
