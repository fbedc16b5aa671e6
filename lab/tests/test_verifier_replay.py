"""`lab/scripts/verifier_replay.py`: a continuation's probe folder holds every new written row, one copy of the old
ones and N rows of the other families; each half folder lacks exactly its own half's written rows."""

from __future__ import annotations

import json
import subprocess
import sys
import zlib
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _folder(path: Path, rows: list[dict]) -> None:
    path.mkdir()
    (path / "train.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def _row(rid: str, qid: str, kind: str) -> dict:
    # U+2028 inside a text: a folder is read line by line on "\n" only
    return {"id": rid, "qid": qid, "kind": kind, "candidate": "It is A.\u2028Really."}


def test_the_mix_and_its_halves(tmp_path):
    new = [_row(f"n{i}-x{k}", f"q-new{i}", "written-right_plain") for i in range(6) for k in range(2)]
    old = [_row(f"o{i}-x{k}", f"q-old{i}", "written-wrong_plain") for i in range(5) for k in range(4)]
    probes = [_row(f"p{i}", f"q-p{i}", "plain") for i in range(20)] + old
    for name, rows in (("new", new), ("old", old), ("probes", probes)):
        _folder(tmp_path / name, rows)
    for out in ("out", "again"):
        subprocess.run([sys.executable, "lab/scripts/verifier_replay.py", *(str(tmp_path / n) for n in ("new", "old", "probes")),
                        str(tmp_path / out), "--probe-rows", "7"], cwd=REPO, check=True, capture_output=True)

    def ids(name: str) -> list[str]:
        return [json.loads(x)["id"] for x in (tmp_path / "out" / name / "train.jsonl").open(encoding="utf-8")]

    mix = ids("mix")
    assert sorted(i for i in mix if i.startswith("n")) == sorted(r["id"] for r in new)
    assert sorted(i for i in mix if i.startswith("o")) == [f"o{i}-x0" for i in range(5)]
    assert len([i for i in mix if i.startswith("p")]) == 7 and len(mix) == 12 + 5 + 7
    by_id = {r["id"]: r for r in new + old + probes}
    for h in "AB":
        half = ids(f"mix{h}")
        dropped = set(mix) - set(half)
        assert dropped == {i for i in mix if by_id[i]["kind"].startswith("written-")
                           and ("A" if zlib.crc32(by_id[i]["qid"].encode()) % 2 == 0 else "B") == h}
    # the same seed draws the same folder, byte for byte
    assert (tmp_path / "again/mix/train.jsonl").read_bytes() == (tmp_path / "out/mix/train.jsonl").read_bytes()
