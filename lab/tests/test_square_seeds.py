"""Seed-study arithmetic on hand-made evaluations (AUROCs counted by hand from the pairs)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from qascore_lab.bench import square_seeds as ss

IDS = ["q1|a", "q1|b", "q2|a", "q2|b"]
LABELS = [1, 0, 1, 0]
PERFECT = [0.9, 0.1, 0.8, 0.2]    # AUROC 1
QUARTER = [0.1, 0.9, 0.8, 0.2]    # 1 of 4 (pos, neg) pairs ordered right: 0.25
FLAT = [0.5, 0.5, 0.5, 0.5]       # all ties: 0.5
REVERSED = [0.1, 0.9, 0.2, 0.8]   # AUROC 0


def _eval(cfg: str, probs: list[float], history: list[float] | None = None) -> dict:
    ds = {"ids": IDS, "labels": LABELS, "probs": probs, "auroc": 0.0}
    hist = [{"epoch": i + 1, "dev_f1": f} for i, f in enumerate(history or [0.5])]
    return {"config": cfg, "eval": {"wikiqa-test": ds, "trecqa-clean-dev": ds},
            "train": {"history": hist, "train_seconds": 1.0}, "eval_seconds": 1.0}


def _runs(table: dict[str, dict[int, list[float]]]) -> ss.Runs:
    return {cfg: {s: _eval(cfg, p) for s, p in by_seed.items()} for cfg, by_seed in table.items()}


@pytest.mark.parametrize("square, other, diffs, holding", [
    ({1: PERFECT, 2: PERFECT}, {1: QUARTER, 2: FLAT}, (0.75, 0.5), 2),
    ({1: PERFECT, 2: REVERSED}, {1: FLAT, 2: FLAT}, (0.5, -0.5), 1),
    ({1: REVERSED, 2: FLAT}, {1: FLAT, 2: PERFECT}, (-0.5, -0.5), 0),
])
def test_paired_differences(square, other, diffs, holding):
    o = ss.ordering(_runs({"square": square, "ava-qt": other}), "square", "ava-qt", "wikiqa-test", n_boot=50)
    assert o.seeds == (1, 2)
    assert o.diffs == pytest.approx(diffs)
    assert o.mean == pytest.approx(sum(diffs) / 2)
    assert o.holds_on_mean == (sum(diffs) > 0)
    assert o.seeds_holding == holding


def test_only_common_seeds_are_paired():
    runs = _runs({"square": {1: PERFECT, 2: PERFECT, 3: PERFECT}, "ava-qt": {2: QUARTER}})
    o = ss.ordering(runs, "square", "ava-qt", "trecqa-clean-dev", n_boot=10)
    assert o.seeds == (2,) and o.diffs == pytest.approx((0.75,))


def test_bootstrap_ci_degenerate_when_every_resample_agrees():
    # A separates perfectly and B inversely on every resample of questions: the CI is [1, 1].
    o = ss.ordering(_runs({"square": {1: PERFECT}, "ava-qt": {1: REVERSED}}), "square", "ava-qt",
                    "wikiqa-test", n_boot=200)
    assert o.ci == pytest.approx((1.0, 1.0))


def test_different_targets_refused():
    runs = _runs({"square": {1: PERFECT}, "ava-qt": {1: PERFECT}})
    runs["ava-qt"][1]["eval"]["wikiqa-test"] = dict(runs["ava-qt"][1]["eval"]["wikiqa-test"],
                                                    ids=["x|1", "x|2", "y|1", "y|2"])
    with pytest.raises(ValueError, match="same targets"):
        ss.ordering(runs, "square", "ava-qt", "wikiqa-test", n_boot=10)


@pytest.mark.parametrize("values, mean, sd", [([0.8, 0.7, 0.9], 0.8, 0.1), ([1.0, 3.0], 2.0, 2 ** 0.5)])
def test_mean_sd(values, mean, sd):
    assert ss.mean_sd(values) == pytest.approx((mean, sd))


@pytest.mark.parametrize("f1s, epoch", [([0.5, 0.6, 0.6], 2), ([0.58, 0.49, 0.48], 1), ([0.1, 0.2, 0.3], 3)])
def test_kept_epoch_first_best(f1s, epoch):
    assert ss.kept_epoch([{"epoch": i + 1, "dev_f1": f} for i, f in enumerate(f1s)]) == epoch


def test_report_from_folders(tmp_path: Path):
    for seed, probs in ((13, PERFECT), (14, FLAT)):
        d = tmp_path / str(seed)
        d.mkdir()
        (d / "square.eval.json").write_text(json.dumps(_eval("square", probs)))
    (tmp_path / "13" / "ava-qt.eval.json").write_text(json.dumps(_eval("ava-qt", QUARTER)))
    out = ss.report(ss.load_runs({13: tmp_path / "13", 14: tmp_path / "14"}), n_boot=10)
    assert "| AVA-QT | 0.000 | (not run) |" in out
    assert "| SQuArE (5) > AVA-QT | WikiQA test | s13 +0.750 | +0.750 | yes | 1/1 |" in out
