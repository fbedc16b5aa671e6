"""`qascore-lab train int8-ranges --delta`: a candidate reader's ranges are written beside it, not the shipped one's."""

from __future__ import annotations

import argparse
import json
import shutil

from qascore.metrics import asserted
from qascore.runtime.delta import file_sha256
from qascore.runtime.int8 import ranges_file, read_ranges
from qascore_lab.train.int8_ranges import run


def test_a_candidate_delta_is_calibrated_beside_itself(tmp_path):
    delta = tmp_path / "candidate.safetensors"
    shutil.copy(asserted.DELTA, delta)
    rows = tmp_path / "rows.jsonl"
    rows.write_text("\n".join(json.dumps({"question": q, "candidate": c}) for q, c in [
        ("Who wrote Hamlet?", "Shakespeare wrote it, around 1600."),
        ("What is the capital of Peru?", "Lima, though Cusco was the Inca capital.")]) + "\n")
    shipped = ranges_file(asserted.DELTA).read_text(encoding="utf-8")
    run(argparse.Namespace(model="asserted", rows=[str(rows)], limit=400, margin=1.1, delta=str(delta)))
    written = json.loads(ranges_file(delta).read_text(encoding="utf-8"))
    assert written["model"] == "candidate.safetensors" and written["texts"] == 2
    assert written["model_sha256"] == file_sha256(delta)
    # every linear layer of the reader's encoder has a range that holds 0, read back as the runtime reads it
    ranges = read_ranges(delta)
    assert ranges is not None and set(ranges) == set(json.loads(shipped)["ranges"])
    assert all(lo <= 0.0 <= hi for lo, hi in ranges.values())
    assert ranges_file(asserted.DELTA).read_text(encoding="utf-8") == shipped  # the shipped ranges untouched
