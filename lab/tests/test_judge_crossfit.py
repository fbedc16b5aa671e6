"""lab/scripts/judge_crossfit.py split: each half's verifier data leaves out exactly that half's EVOUNA-TQ and
written training questions, and keeps everything else."""

import importlib.util
import json
import zlib
from pathlib import Path

_spec = importlib.util.spec_from_file_location("judge_crossfit", Path(__file__).parents[1] / "scripts" / "judge_crossfit.py")
assert _spec and _spec.loader
crossfit = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(crossfit)


def _write(folder: Path, rows: list[dict]) -> None:
    folder.mkdir(parents=True)
    (folder / "train.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    for name in ("dev.jsonl", "test.jsonl"):
        (folder / name).write_text("", encoding="utf-8")


def _read(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_split_halves_evouna_and_written_rows(tmp_path):
    qids = [f"q{i}" for i in range(12)]
    corpus = [{"id": f"c{i}", "qid": q, "source": src, "question": "Q?", "candidate": "a", "references": ["a"], "label": 1}
              for i, (q, src) in enumerate((q, s) for q in qids for s in ("evouna", "wikiqa"))]
    probes = [{"qid": f"written-{q}", "kind": kind, "question": "Q?"} for q in qids for kind in ("written-right_plain", "probe-swap")]
    _write(tmp_path / "corpus", corpus)
    (tmp_path / "corpus" / "report.json").write_text("{}", encoding="utf-8")
    _write(tmp_path / "probes", probes)
    crossfit.split(tmp_path / "corpus", tmp_path / "xf", tmp_path / "probes")

    half = {q: "A" if zlib.crc32(q.encode()) % 2 == 0 else "B" for q in qids + [f"written-{q}" for q in qids]}
    assert set(half.values()) == {"A", "B"}   # the twelve questions fall in both halves
    for h in "AB":
        kept = _read(tmp_path / "xf" / f"corpus{h}" / "train.jsonl")
        assert [r for r in corpus if not (r["source"] == "evouna" and half[r["qid"]] == h)] == kept
        kept = _read(tmp_path / "xf" / f"probes{h}" / "train.jsonl")
        assert [r for r in probes if not (r["kind"].startswith("written-") and half[r["qid"]] == h)] == kept
    evtrain = _read(tmp_path / "xf" / "evtrain" / "train.jsonl")
    assert [r["qid"] for r in evtrain] == qids and all(r["source"] == "probes" for r in evtrain)
