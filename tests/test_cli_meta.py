"""`qascore meta` on a tiny hand-written fixture with precomputed score fields (no model)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from qascore.cli import main

FIXTURE = Path(__file__).parent / "fixtures" / "meta_small.jsonl"


def _column(key: str) -> np.ndarray:
    rows = [json.loads(line) for line in FIXTURE.read_text().splitlines()]
    out = []
    for row in rows:
        value = row
        for part in key.split("."):
            value = value[part]
        out.append(value)
    return np.array(out, dtype=float)


def test_table_lists_every_metric(capsys):
    rc = main(["meta", str(FIXTURE), "--human", "human", "--score-field", "good", "--score-field", "scores.mine", "--resamples", "300"])
    out = capsys.readouterr().out
    assert rc == 0
    assert "n=12" in out and "seed 12345" in out
    lines = {line.split()[0]: line for line in out.splitlines() if line.startswith(("good", "scores.mine"))}
    r = stats.pearsonr(_column("human"), _column("good")).statistic
    assert f"{r:.3f}" in lines["good"]


def test_json_values_agree_with_scipy(capsys):
    rc = main(["meta", str(FIXTURE), "--human", "human", "--score-field", "weak", "--format", "json",
               "--resamples", "200", "--seed", "5"])
    assert rc == 0
    res = json.loads(capsys.readouterr().out)
    h, w = _column("human"), _column("weak")
    got = res["metrics"]["weak"]
    assert got["pearson"]["value"] == pytest.approx(stats.pearsonr(h, w).statistic)
    assert got["spearman"]["p_value"] == pytest.approx(stats.spearmanr(h, w).pvalue)
    assert got["kendall"]["value"] == pytest.approx(stats.kendalltau(h, w).statistic)
    assert got["pearson"]["n_resamples"] == 200 and got["pearson"]["seed"] == 5
    assert got["pearson"]["ci_low"] < got["pearson"]["value"] < got["pearson"]["ci_high"]
    assert res["n"] == 12


def test_compare_prints_both_tests(capsys):
    rc = main(["meta", str(FIXTURE), "--human", "human", "--score-field", "good", "--score-field", "weak",
               "--compare", "good", "weak", "--no-ci", "--resamples", "200"])
    out = capsys.readouterr().out
    assert rc == 0
    assert "Williams t(9)" in out and "paired bootstrap" in out
    rc = main(["meta", str(FIXTURE), "--human", "human", "--score-field", "good", "--score-field", "weak",
               "--compare", "good", "weak", "--test", "williams", "--format", "json"])
    comp = json.loads(capsys.readouterr().out)["compare"]
    assert [c["test"] for c in comp] == ["williams"] and comp[0]["significant"] is True


def test_compare_is_repeatable(capsys):
    """Each --compare pair is tested, in the order given, as it would be alone (a second pair used to
    replace the first)."""
    base = ["meta", str(FIXTURE), "--human", "human", "--score-field", "good", "--score-field", "weak",
            "--test", "williams", "--format", "json"]
    alone = []
    for pair in (["good", "weak"], ["weak", "good"]):
        assert main([*base, "--compare", *pair]) == 0
        alone += json.loads(capsys.readouterr().out)["compare"]
    assert main([*base, "--compare", "good", "weak", "--compare", "weak", "good"]) == 0
    both = json.loads(capsys.readouterr().out)["compare"]
    assert [(c["a"], c["b"]) for c in both] == [("good", "weak"), ("weak", "good")]
    assert both == alone


def test_methods_option_and_no_ci(capsys):
    rc = main(["meta", str(FIXTURE), "--human", "human", "--score-field", "good", "--methods", "kendall",
               "--no-ci", "--format", "json"])
    res = json.loads(capsys.readouterr().out)
    assert rc == 0 and list(res["metrics"]["good"]) == ["kendall"]
    assert res["metrics"]["good"]["kendall"]["ci_low"] is None


def test_csv_input_with_mapping(tmp_path, capsys):
    path = tmp_path / "scores.csv"
    path.write_text("q,answer,gold,judge,m\na,x,y,1,0.1\nb,x,y,3,0.5\nc,x,y,2,0.2\nd,x,y,5,0.9\n")
    rc = main(["meta", str(path), "--map", "question=q", "--map", "candidate=answer", "--human", "judge",
               "--score-field", "m", "--format", "json", "--no-ci"])
    assert rc == 0
    got = json.loads(capsys.readouterr().out)["metrics"]["m"]["spearman"]["value"]
    assert got == pytest.approx(1.0)


def _bad(tmp_path, transform) -> Path:
    rows = [json.loads(line) for line in FIXTURE.read_text().splitlines()]
    transform(rows)
    path = tmp_path / "bad.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


@pytest.mark.parametrize("transform,field,line,message", [
    (lambda rows: rows[3].pop("human"), "human", 4, "missing"),
    (lambda rows: rows[6].update(human="good"), "human", 7, "must be a number"),
    (lambda rows: rows[1].pop("good"), "good", 2, "missing"),
    (lambda rows: rows[8].update(good=None), "good", 9, "missing"),
    (lambda rows: rows[0]["scores"].pop("mine"), "scores.mine", 1, "missing"),
])
def test_bad_input_names_line_and_field(tmp_path, capsys, transform, field, line, message):
    path = _bad(tmp_path, transform)
    rc = main(["meta", str(path), "--human", "human", "--score-field", "good", "--score-field", "scores.mine"])
    err = capsys.readouterr().err
    assert rc == 2
    assert f"{path}:{line}:" in err and f"field '{field}'" in err and message in err


@pytest.mark.parametrize("argv,message", [
    (["--score-field", "good"], "--human"),
    (["--human", "human"], "--metric or --score-field"),
    (["--human", "human", "--score-field", "good", "--compare", "good", "nope"], "'nope'"),
    (["--human", "human", "--score-field", "good", "--methods", "cosine"], "unknown method"),
    (["--human", "human", "--score-field", "good", "--score-field", "good"], "named twice"),
])
def test_usage_errors(capsys, argv, message):
    rc = main(["meta", str(FIXTURE), *argv])
    assert rc == 2 and message in capsys.readouterr().err


def test_no_input_and_no_benchmark(capsys):
    assert main(["meta", "--human", "h", "--score-field", "x"]) == 2
    assert "INPUT" in capsys.readouterr().err


def test_metric_computed_by_qascore(capsys):
    pytest.importorskip("qascore.metrics.lexical")
    rc = main(["meta", str(FIXTURE), "--human", "human", "--metric", "f1", "--format", "json", "--no-ci"])
    res = json.loads(capsys.readouterr().out)
    assert rc == 0 and "f1" in res["metrics"] and res["signatures"]["f1"].startswith("metric:f1")


def test_labels_give_auroc_and_dev_tuned_threshold(capsys):
    from sklearn.metrics import roc_auc_score

    from qascore.meta import binary_scores, tune_threshold
    rc = main(["meta", str(FIXTURE), "--label", "correct", "--score-field", "weak", "--split", "split",
               "--objective", "f1", "--format", "json"])
    assert rc == 0
    res = json.loads(capsys.readouterr().out)["classification"]
    y, s = _column("correct"), _column("weak")
    dev = np.arange(12) < 6  # the fixture's first six records are marked dev
    got = res["metrics"]["weak"]
    assert got["auroc"] == pytest.approx(roc_auc_score(y[~dev], s[~dev]))
    t = tune_threshold(s[dev], y[dev], "f1")
    assert got["threshold"] == pytest.approx(t)
    assert got["f1"] == pytest.approx(binary_scores(s[~dev], y[~dev], t).f1)
    assert (res["n_dev"], res["n_test"]) == (6, 6)


def test_labels_with_human_and_fixed_threshold(capsys):
    rc = main(["meta", str(FIXTURE), "--human", "human", "--label", "correct", "--score-field", "good",
               "--threshold", "0.6", "--no-ci"])
    out = capsys.readouterr().out
    assert rc == 0 and "AUROC" in out and "threshold 0.6" in out
    # with the fixture's labels (human >= 3.5), `good` >= 0.6 separates them exactly
    row = [line for line in out.splitlines() if line.startswith("good ") and "0.6" in line][0]
    assert [float(v) for v in row.split()[1:]] == [1.0, 0.6, 1.0, 1.0, 1.0, 1.0]


def test_bad_label_names_line_and_field(tmp_path, capsys):
    path = _bad(tmp_path, lambda rows: rows[4].update(correct=3))
    assert main(["meta", str(path), "--label", "correct", "--score-field", "good"]) == 2
    err = capsys.readouterr().err
    assert f"{path}:5:" in err and "field 'correct'" in err and "0/1 label" in err


@pytest.mark.parametrize("label", [True, False])
def test_dev_split_of_one_class_is_refused_not_tuned(tmp_path, capsys, label):
    # A dev split whose labels are all one class has no threshold to tune: the old behaviour printed the
    # lowest (or highest) candidate and a test accuracy of whatever share the other class was, with no word.
    rows = [json.loads(line) for line in FIXTURE.read_text().splitlines()]
    for row in rows:
        if row["split"] == "dev":
            row["correct"] = label
    path = tmp_path / "one_class_dev.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    rc = main(["meta", str(path), "--label", "correct", "--score-field", "weak", "--split", "split"])
    err = capsys.readouterr().err
    assert rc == 2
    assert f"are all {'correct' if label else 'incorrect'}" in err and "give --threshold" in err
    # a fixed threshold needs no tuning, so the same split is accepted with one
    assert main(["meta", str(path), "--label", "correct", "--score-field", "weak", "--split", "split",
                 "--threshold", "0.5"]) == 0
