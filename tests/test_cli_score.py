"""`qascore score` and `qascore list` end to end on a small hand-written file (no models)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from qascore.cli import main

ROWS = [
    {"id": "a", "question": "q1", "candidate": "the cat sat", "references": ["the cat sat"], "human": 5},
    {"id": "b", "question": "q2", "candidate": "a dog", "references": ["the cat sat", "a dog ran"], "sys": "x"},
    {"id": "c", "question": "q3", "candidate": "", "references": ["something"]},
]


@pytest.fixture
def infile(tmp_path: Path) -> Path:
    p = tmp_path / "in.jsonl"
    p.write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    return p


def test_score_writes_records_back_with_scores(infile, tmp_path, capsys):
    out = tmp_path / "out.jsonl"
    assert main(["score", str(infile), "-m", "em", "-m", "f1", "-o", str(out)]) == 0
    got = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(got) == 3
    for src, rec in zip(ROWS, got):
        assert {k: rec[k] for k in src} == src  # every input field back, unchanged
    assert [r["scores"]["em"] for r in got] == [1.0, 0.0, 0.0]
    # f1 for "a dog" vs best reference "a dog ran": SQuAD normalisation drops "a": P=1, R=1/2 -> 2/3
    assert got[1]["scores"]["f1"] == pytest.approx(2 / 3)
    assert got[1]["details"]["f1"] == pytest.approx({"p": 1.0, "r": 0.5, "f": 2 / 3})
    printed = capsys.readouterr().out
    assert "signature: metric:em" in printed and "signature: metric:f1" in printed


def test_score_json_format(infile, capsys):
    assert main(["score", str(infile), "-m", "em", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["em"]["n"] == 3 and data["em"]["corpus"] == pytest.approx(1 / 3)


def test_score_unknown_metric(infile, capsys):
    assert main(["score", str(infile), "-m", "nosuch"]) == 2
    assert "unknown metric 'nosuch'" in capsys.readouterr().err


def test_score_bad_input_names_line_and_field(tmp_path, capsys):
    p = tmp_path / "bad.jsonl"
    p.write_text('{"candidate": "a", "references": ["r"]}\n{"candidate": "b", "references": "r"}\n')
    assert main(["score", str(p), "-m", "em"]) == 2
    err = capsys.readouterr().err
    assert f"{p}:2" in err and "'references'" in err


def test_score_missing_required_field(tmp_path, capsys):
    p = tmp_path / "bad.jsonl"
    p.write_text('{"candidate": "a", "references": ["r"]}\n{"candidate": "b"}\n')
    assert main(["score", str(p), "-m", "f1"]) == 2
    err = capsys.readouterr().err
    assert f"{p}:2" in err and "'references'" in err


def test_metric_options_on_the_command_line(infile, capsys):
    assert main(["score", str(infile), "-m", "f1:agg=mean", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert "agg:mean" in data["f1:agg=mean"]["signature"]  # an option that changes numbers is in the key


def test_list(capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    assert "bleu4" in out and "rougeL" in out


def test_same_metric_twice_with_options_is_keyed_by_spec(infile, tmp_path):
    out = tmp_path / "out.jsonl"
    assert main(["score", str(infile), "-m", "f1", "-m", "f1:agg=mean", "-o", str(out)]) == 0
    rec = json.loads(out.read_text().splitlines()[1])
    # "a dog" vs ["the cat sat", "a dog ran"]: max F = 2/3, mean F = (0 + 2/3) / 2
    assert rec["scores"] == pytest.approx({"f1": 2 / 3, "f1:agg=mean": 1 / 3})
