"""`qascore-lab train reopens`: which units are examples, and a fit that finds the reopening it was shown."""

from __future__ import annotations

import argparse
import json

import pytest

from qascore.metrics import reopens
from qascore_lab.train.reopens import best_f1, examples, run


@pytest.mark.parametrize("row, changes, expected", [
    ({"candidate": "Hobart. Edit: Launceston.", "reopens_at": "Edit:", "kind": "wrong_revised"}, False,
     [("Edit: Launceston.", False, True)]),
    ({"candidate": "Hobart. Let me check. Yes.", "reopens_at": "Let me", "kind": "right_steady"}, False,
     [("Let me check.", False, True), ("Yes.", False, False)]),
    # with `changes`, a re-check that stands by the answer is no reopening
    ({"candidate": "Hobart. Let me check. Yes.", "reopens_at": "Let me", "kind": "right_steady"}, True,
     [("Let me check.", False, False), ("Yes.", False, False)]),
    ({"candidate": "Hobart.\nIt is in Tasmania.", "reopens_at": None, "kind": "right_verbose"}, False,
     [("It is in Tasmania.", True, False)]),
])
def test_examples(row, changes, expected):
    assert examples(row, changes) == expected


def test_reopens_at_must_be_in_the_candidate():
    with pytest.raises(ValueError, match="not in its candidate"):
        examples({"id": "x", "candidate": "Hobart.", "reopens_at": "Edit:"})


def test_best_f1_by_hand():
    import numpy as np
    # at 0.6: one of two found, nothing wrong: F1 = 2 * 1 / (1 + 2); at 0.3: both, one wrong: 2 * 2 / (3 + 2)
    assert best_f1(np.array([1, 1, 0]), np.array([0.6, 0.3, 0.4])) == pytest.approx((0.8, 0.3))


def test_a_fit_finds_the_reopening_it_was_taught(tmp_path):
    names = ["Hobart", "Perth", "Darwin", "Cairns", "Sydney", "Adelaide", "Brisbane", "Geelong"]
    rows = [{"candidate": f"{a}. {cue} {b}.", "reopens_at": cue, "kind": "wrong_revised"}
            for a, b in zip(names, names[1:] + names[:1]) for cue in ("Edit:", "Correction:")]
    rows += [{"candidate": f"{a}. It is a city in Australia.", "reopens_at": None, "kind": "right_verbose"}
             for a in names]
    train, dev = tmp_path / "train.jsonl", tmp_path / "dev.jsonl"
    train.write_text("".join(json.dumps(r) + "\n" for r in rows))
    dev.write_text("".join(json.dumps(r) + "\n" for r in rows[::3]))
    out = tmp_path / "out"
    run(argparse.Namespace(rows=[str(train)], negatives=[], negative_kinds="", dev=[str(dev)], c="1", min_count=2,
                           seed=13, out=str(out), ship=False, changes=True, threshold=None, drop_near=None))
    path = str(out / "reopens.json.gz")
    assert reopens.reopening("Perth. Correction: Darwin.", path) == len("Perth. ")
    assert reopens.reopening("Perth. It is a city in Australia.", path) is None
    assert reopens.load(path)["dev"]["dev_f1"] == pytest.approx(1.0)


def test_drop_near_leaves_out_the_questions_of_a_held_set(tmp_path):
    """`--drop-near`: rows whose question matches one of the held file's (difflib ratio >= 0.75 on lower-cased
    words) are not read, so a check set's questions stay out of the reading's training rows."""
    from qascore_lab.train.reopens import read

    held, rows = tmp_path / "held.jsonl", tmp_path / "rows.jsonl"
    held.write_text(json.dumps({"question": "Which river flows through Budapest?"}) + "\n")
    rows.write_text("".join(json.dumps({"question": q, "candidate": "x"}) + "\n" for q in (
        "Which river flows through Budapest ?", "What river flows through Budapest?", "Who wrote Middlemarch?")))
    assert [r["question"] for r in read([str(rows)], held=str(held))] == ["Who wrote Middlemarch?"]
    assert len(read([str(rows)])) == 3
