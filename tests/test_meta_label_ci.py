"""`qascore meta --label`: bootstrap CIs for AUROC and accuracy, and --human's small-sample warning
(issue 63 item 4). The resampled statistics are checked on hand-picked resamples first."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from qascore.cli import main
from qascore.meta.classification import accuracy_resampled, auroc, auroc_resampled
from qascore.meta.correlation import SMALL_N, bootstrap_indices


def test_auroc_on_hand_picked_resamples():
    scores, labels = [0.8, 0.4, 0.4, 0.2], [1, 1, 0, 0]
    idx = np.array([[0, 1, 2, 3],   # as test_auroc_hand_case: 3 wins and a tie of 4 pairs -> 0.875
                    [0, 0, 2, 3],   # positives .8 .8 over negatives .4 .2: 1.0
                    [1, 2, 2, 3],   # positive .4 against .4 .4 .2: (0.5 + 0.5 + 1) / 3
                    [0, 1, 1, 1]])  # one class only: undefined
    got = auroc_resampled(scores, labels, idx)
    assert got[:3] == pytest.approx([0.875, 1.0, 2 / 3]) and math.isnan(got[3])


def test_auroc_resampled_is_auroc_of_each_resample():
    rng = np.random.default_rng(4)
    y = rng.integers(0, 2, 40)
    s = np.round(y * 0.4 + rng.uniform(size=40), 1)  # ties
    idx = bootstrap_indices(40, 50, 7)
    expected = [auroc(s[row], y[row]) if 0 < y[row].sum() < 40 else math.nan for row in idx]
    assert auroc_resampled(s, y, idx) == pytest.approx(expected, nan_ok=True)


def test_accuracy_on_hand_picked_resamples():
    # at 0.5: predicted 1, 0, 1, 0 against labels 1, 1, 0, 0 -> right, wrong, wrong, right
    idx = np.array([[0, 0, 0, 0], [1, 2, 1, 2], [0, 1, 2, 3], [0, 3, 3, 1]])
    assert accuracy_resampled([0.9, 0.4, 0.6, 0.1], [1, 1, 0, 0], 0.5, idx) == pytest.approx([1.0, 0.0, 0.5, 0.75])


def _file(tmp_path, rows) -> str:
    path = tmp_path / "labelled.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return str(path)


def _rows(n: int, score=lambda i, y: 0.9 if y else 0.1) -> list[dict]:
    return [{"candidate": "x", "correct": i % 2, "s": score(i, i % 2), "split": "dev" if i < 4 else "test"}
            for i in range(n)]


def test_label_table_has_auroc_and_accuracy_cis(tmp_path, capsys):
    # perfectly separated: every resample with both classes has AUROC 1 and accuracy 1 at threshold 0.5;
    # a constant score ties every pair: AUROC 0.5 on every resample
    rows = [{**r, "flat": 0.5} for r in _rows(40)]
    assert main(["meta", _file(tmp_path, rows), "--label", "correct", "--score-field", "s", "--score-field", "flat",
                 "--threshold", "0.5", "--format", "json", "--resamples", "200"]) == 0
    res = json.loads(capsys.readouterr().out)["classification"]
    assert res["ci"] == {"level": 0.95, "n_resamples": 200, "seed": 12345}
    good, flat = res["metrics"]["s"], res["metrics"]["flat"]
    assert (good["auroc"], good["auroc_ci"], good["accuracy"], good["accuracy_ci"]) == (1.0, [1.0, 1.0], 1.0, [1.0, 1.0])
    assert flat["auroc"] == 0.5 and flat["auroc_ci"] == [0.5, 0.5]
    assert flat["accuracy"] == 0.5 and flat["accuracy_ci"][0] < 0.5 < flat["accuracy_ci"][1]  # all called correct


def test_label_cis_are_the_percentiles_of_the_same_draws_as_human(tmp_path, capsys):
    rows = _rows(40, score=lambda i, y: round(0.3 * y + (i * 37 % 11) / 11, 3))
    assert main(["meta", _file(tmp_path, rows), "--label", "correct", "--split", "split", "--score-field", "s",
                 "--format", "json", "--resamples", "300", "--seed", "3", "--level", "0.9"]) == 0
    row = json.loads(capsys.readouterr().out)["classification"]["metrics"]["s"]
    test = [r for r in rows if r["split"] == "test"]
    s, y = np.array([r["s"] for r in test]), np.array([r["correct"] for r in test])
    idx = bootstrap_indices(len(test), 300, 3)  # the draws --human's CIs use, on the test items
    aucs = auroc_resampled(s, y, idx)
    assert row["auroc_ci"] == pytest.approx(list(np.quantile(aucs[~np.isnan(aucs)], [0.05, 0.95])))
    accs = accuracy_resampled(s, y, row["threshold"], idx)  # the dev-tuned threshold, held fixed
    assert row["accuracy_ci"] == pytest.approx(list(np.quantile(accs, [0.05, 0.95])))


def test_label_table_prints_the_intervals(tmp_path, capsys):
    assert main(["meta", _file(tmp_path, _rows(40)), "--label", "correct", "--score-field", "s", "--threshold",
                 "0.5", "--resamples", "100"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert "95% percentile bootstrap CIs over the test items (100 resamples, seed 12345" in out[0]
    assert out[2].split() == ["s", "1.000", "[1.000,", "1.000]", "0.5", "1.000", "[1.000,", "1.000]", "1.000", "1.000",
                              "1.000"]


def test_no_ci_leaves_them_out(tmp_path, capsys):
    assert main(["meta", _file(tmp_path, _rows(8)), "--label", "correct", "--score-field", "s", "--threshold", "0.5",
                 "--format", "json", "--no-ci"]) == 0
    out = capsys.readouterr()
    row = json.loads(out.out)["classification"]["metrics"]["s"]
    assert "auroc_ci" not in row and "accuracy_ci" not in row and "warning" not in out.err


def test_few_test_items_warn_as_human_does(tmp_path, capsys):
    # 12 records, 4 of them dev: 8 test items
    assert main(["meta", _file(tmp_path, _rows(12)), "--label", "correct", "--split", "split", "--score-field", "s",
                 "--resamples", "50"]) == 0
    err = capsys.readouterr().err
    assert f"qascore: warning: only 8 test items: bootstrap CIs are unreliable below {SMALL_N} items" in err
    many = _rows(SMALL_N + 4)  # 30 test items: no warning
    assert main(["meta", _file(tmp_path, many), "--label", "correct", "--split", "split", "--score-field", "s",
                 "--resamples", "50"]) == 0
    assert "warning" not in capsys.readouterr().err


def test_human_and_label_on_the_same_items_warn_once(tmp_path, capsys):
    rows = [{**r, "human": r["correct"] * 4 + 1} for r in _rows(10)]
    assert main(["meta", _file(tmp_path, rows), "--human", "human", "--label", "correct", "--score-field", "s",
                 "--threshold", "0.5", "--resamples", "50"]) == 0
    assert capsys.readouterr().err.count("warning: only 10 items") == 1
