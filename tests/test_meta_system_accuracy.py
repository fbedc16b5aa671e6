"""System-wise accuracy estimation from a metric's decisions, by hand."""

import math

import pytest

from qascore.meta.system import accuracy_by_system


def test_accuracy_by_system_by_hand():
    systems = ["a", "a", "a", "a", "b", "b", "c", "c"]
    decisions = [True, True, False, True, False, False, True, True]
    labels = [1, 1, 0, 0, 0, 1, 1, 1]
    est, gold, agree = accuracy_by_system(systems, decisions, labels)
    assert dict(est) == {"a": 0.75, "b": 0.0, "c": 1.0}
    assert dict(gold) == {"a": 0.5, "b": 0.5, "c": 1.0}
    assert agree.rmse == pytest.approx(math.sqrt((0.25 ** 2 + 0.5 ** 2) / 3))
    assert agree.max_abs_error == pytest.approx(0.5)
    # ranks: est a > b, c highest; gold a == b tie, c highest -> tau-b of (0.75, 0, 1) vs (0.5, 0.5, 1)
    assert agree.kendall_tau_b == pytest.approx(2 / math.sqrt(3 * 2))


def test_meta_system_flag_by_hand(tmp_path, capsys):
    """`qascore meta --label --system` on a file: token F1 decisions at 0.5 give each system's estimated accuracy."""
    import json

    from qascore.cli import main

    rows = [("a", "paris", 1), ("a", "paris", 1), ("a", "paris", 0), ("a", "paris", 0),
            ("b", "paris", 1), ("b", "rome", 0), ("b", "rome", 0), ("b", "rome", 0)]
    path = tmp_path / "sys.jsonl"
    path.write_text("".join(json.dumps({"question": "capital of france?", "candidate": c, "references": ["paris"],
                                        "label": y, "system": s}) + "\n" for s, c, y in rows), encoding="utf-8")
    assert main(["meta", str(path), "--label", "label", "--system", "system", "-m", "f1", "--threshold", "0.5",
                 "--format", "json"]) == 0
    sy = json.loads(capsys.readouterr().out)["classification"]["metrics"]["f1"]["systems"]
    assert sy["estimated"] == {"a": 1.0, "b": 0.25} and sy["human"] == {"a": 0.5, "b": 0.25}
    assert sy["rmse"] == pytest.approx(math.sqrt(0.5 ** 2 / 2))
    assert sy["kendall"] == pytest.approx(1.0)


def test_classification_table_mixes_rows_with_and_without_a_threshold(capsys):
    """A metric judged at its stored threshold beside one with none: both rows print, the second says why it
    has no accuracy (the table used to end in `error: threshold`)."""
    from types import SimpleNamespace

    from qascore.cli.meta import _print_classification

    res = {"label": "label", "n_test": 4, "n_dev": 0, "objective": None, "metrics": {
        "ava": {"auroc": 0.75, "threshold": 0.5, "accuracy": 0.5, "precision": 1.0, "recall": 0.5, "f1": 2 / 3,
                "threshold_from": "stored with the model"},
        "f1": {"auroc": 1.0}}}
    args = SimpleNamespace(format="table", threshold=None, system=None, input="x")
    assert _print_classification(res, None, args) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[2].split()[:3] == ["ava", "0.750", "0.5"]
    assert out[3].split()[:3] == ["f1", "1.000", "-"] and "no stored threshold" in out[3]
