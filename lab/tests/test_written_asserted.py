"""lab/scripts/written_asserted.py: helper-written answers as asserted-reader rows (span of the gold in a right
answer, none in a refusal, a non-gold span in a wrong one), split as written_probes.py splits, blind kept out."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).parents[2] / "lab" / "scripts" / "written_asserted.py"
Q = "Which planet is known as the Red Planet?"


def _split(question: str) -> str:
    h = int(hashlib.sha1(f"written:{question}".encode()).hexdigest()[:8], 16) / 2**32
    return "train" if h < 0.8 else "dev"


@pytest.mark.slow
def test_rows_mark_what_each_written_answer_asserts(tmp_path: Path) -> None:
    rows = [
        {"id": "a", "question": Q, "references": ["Mars"], "label": 1, "kind": "right_verbose",
         "candidate": "It is **Mars**, whose iron oxide dust gives it the colour."},
        {"id": "b", "question": Q, "references": ["Mars"], "label": 1, "kind": "right_format",
         "candidate": "The fourth planet from the Sun."},
        {"id": "c", "question": Q, "references": ["Mars"], "label": 0, "kind": "wrong_refusal",
         "candidate": "I am not sure which one it is."},
        {"id": "d", "question": Q, "references": ["Mars"], "label": 0, "kind": "wrong_siderole",
         "candidate": "Jupiter is the Red Planet; Mars is only called the Morning Star."},
        {"id": "e", "question": "Who wrote Hamlet?", "references": ["Shakespeare"], "label": 1,
         "kind": "right_plain", "candidate": "Shakespeare."},
    ]
    src = tmp_path / "written.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    blind = tmp_path / "blind.jsonl"
    blind.write_text(json.dumps({"question": "Who wrote the play Hamlet?"}) + "\n", encoding="utf-8")
    run = subprocess.run([sys.executable, str(SCRIPT), str(src), str(tmp_path / "out"), "--drop-near", str(blind)],
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    out = [json.loads(line) for s in ("train", "dev") for line in open(tmp_path / "out" / f"{s}.jsonl")]
    by = {r["id"]: r for r in out}
    assert set(by) == {"written-a", "written-c", "written-d"}   # b: no reference occurs; e: near the blind set
    assert all(r["split"] == _split(Q) for r in out)
    a, c, d = by["written-a"], by["written-c"], by["written-d"]
    assert a["text"][a["start"]:a["end"]] == "Mars" and "**" not in a["text"] and a["label"] == 1
    assert c["start"] is None and c["end"] is None
    span = d["text"][d["start"]:d["end"]]
    assert span and "Mars" not in span and d["label"] == 0
