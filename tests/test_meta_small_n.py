"""`meta` is honest with few items and uses a verifier's stored threshold (issue 13 item 9)."""

from __future__ import annotations

import json
from typing import Any, Sequence

import pytest

from qascore.cli import main
from qascore.meta.correlation import SMALL_N
from qascore.metrics.base import Metric
from qascore.metrics.registry import _REGISTRY


class StoredThresholdJudge(Metric):
    """Stands in for AVA: scores are the records' `p`; its model 'stores' threshold 0.7 (as AVA's signature)."""

    name = "stored-judge"
    requires = ("candidate",)

    def _score(self, records: Sequence[Any]) -> tuple[list[float], dict[str, list[float]]]:
        return [float(r.extra["p"]) for r in records], {}

    def signature_fields(self) -> dict[str, Any]:
        return {"threshold": "0.7000"}


def _write(tmp_path, rows) -> str:
    p = tmp_path / "in.jsonl"
    p.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return str(p)


def test_few_items_warn(tmp_path, capsys):
    rows = [{"candidate": "x", "human": h, "s": s} for h, s in [(1, 0.1), (2, 0.2), (3, 0.4), (4, 0.3), (5, 0.9)]]
    assert main(["meta", _write(tmp_path, rows), "--human", "human", "--score-field", "s", "--resamples", "50"]) == 0
    assert f"qascore: warning: only 5 items: bootstrap CIs and p-values are unreliable below {SMALL_N}" in \
        capsys.readouterr().err


def test_enough_items_do_not_warn(tmp_path, capsys):
    rows = [{"candidate": "x", "human": i % 7, "s": (i * 37) % 11} for i in range(SMALL_N)]
    assert main(["meta", _write(tmp_path, rows), "--human", "human", "--score-field", "s", "--resamples", "50"]) == 0
    assert "warning" not in capsys.readouterr().err


def test_label_uses_the_threshold_stored_with_the_model(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(_REGISTRY, "stored-judge", "test_meta_small_n:StoredThresholdJudge")
    # scores 0.9, 0.75, 0.65, 0.2 with labels 1, 1, 0, 0: at 0.7 all four are right (at 0.5, 0.65 would be wrong)
    rows = [{"candidate": "x", "p": p, "correct": c} for p, c in [(0.9, 1), (0.75, 1), (0.65, 0), (0.2, 0)]]
    assert main(["meta", _write(tmp_path, rows), "--label", "correct", "-m", "stored-judge", "--format", "json"]) == 0
    row = json.loads(capsys.readouterr().out)["classification"]["metrics"]["stored-judge"]
    assert row["threshold"] == pytest.approx(0.7) and row["accuracy"] == 1.0
    assert row["threshold_from"] == "stored with the model"


def test_an_explicit_threshold_still_wins(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(_REGISTRY, "stored-judge", "test_meta_small_n:StoredThresholdJudge")
    rows = [{"candidate": "x", "p": p, "correct": c} for p, c in [(0.9, 1), (0.75, 1), (0.65, 0), (0.2, 0)]]
    assert main(["meta", _write(tmp_path, rows), "--label", "correct", "-m", "stored-judge", "--threshold", "0.5",
                 "--format", "json"]) == 0
    row = json.loads(capsys.readouterr().out)["classification"]["metrics"]["stored-judge"]
    assert row["accuracy"] == 0.75 and row["threshold_from"] == "--threshold"
