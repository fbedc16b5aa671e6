"""The shipped `ava` delta, loaded afresh, gives the probabilities recorded when it was trained (the shipped
`square` is a head over `ava`: tests/test_square_metric.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from qascore.records import Record
from qascore.runtime import defaults

RESULTS = Path(__file__).resolve().parent.parent / "results" / "verifier"


@pytest.mark.slow
@pytest.mark.parametrize("name", ["ava"])
def test_shipped_verifier_reproduces_recorded_probabilities(name):
    from qascore_lab.datasets import DataNotFound, answer_equivalence
    from qascore_lab.train.verifier_run import layout_for, row_key

    check = RESULTS / f"{name}.check.json"
    model = defaults.RESOURCES / name / f"{name}.safetensors"
    if not check.is_file() or not model.is_file():
        pytest.skip(f"{check} or {model} missing")
    try:
        pairs = answer_equivalence.load()
    except (DataNotFound, FileNotFoundError) as err:
        pytest.skip(f"../shared/data absent: {err}")
    by_key = {row_key(p.question, p.reference, p.candidate): p for p in pairs}
    rows = json.loads(check.read_text())["rows"]
    recs = [Record(question=by_key[r["key"]].question, candidate=by_key[r["key"]].candidate,
                   references=[by_key[r["key"]].reference]) for r in rows]
    from qascore.runtime.verifier import Verifier

    ver = Verifier.load(model, layout_for(name), layout_name=None)
    assert list(ver.predict(recs)) == pytest.approx([r["prob"] for r in rows], abs=2e-3)
