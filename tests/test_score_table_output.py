"""`qascore score -o FILE`: the format follows the extension (issue 63 item 3). A .csv/.tsv file is a flat
table (the input's columns, `scores.<metric>`, `correct.<metric>` where a metric decides), whole or in chunks;
an unknown extension is refused before anything is read or scored; --output-format overrides; --resume stays
JSONL's. Expected cells are worked by hand beside each case."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from qascore.cli import main
from qascore.metrics.registry import _REGISTRY
from qascore.records import output_format, read_records

ROWS = [
    {"id": "a", "question": "who sat?", "candidate": "cat sat", "references": ["cat sat"], "human": 5},
    # 'the cat' -> [cat] against [cat, sat]: P 1, R 1/2, F 2/3; against 'dog, too' nothing: the best is 2/3
    {"id": "b", "question": "who sat?", "candidate": "the cat", "references": ["cat sat", "dog, too"], "human": 3},
    {"id": "c", "question": "who sat?", "candidate": "", "references": ["x"], "human": 1},
]
HEADER = ["id", "question", "candidate", "reference1", "reference2", "human", "scores.f1", "scores.em"]
CELLS = [["a", "who sat?", "cat sat", "cat sat", "", "5", "1.0", "1.0"],
         ["b", "who sat?", "the cat", "cat sat", "dog, too", "3", "0.6666666666666666", "0.0"],
         ["c", "who sat?", "", "x", "", "1", "0.0", "0.0"]]


def _write(tmp_path: Path, rows=ROWS, name: str = "in.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _table(path: Path, delimiter: str = ",") -> list[list[str]]:
    return list(csv.reader(io.StringIO(path.read_text(encoding="utf-8"), newline=""), delimiter=delimiter))


@pytest.mark.parametrize("name, delimiter", [("out.csv", ","), ("out.tsv", "\t"), ("OUT.CSV", ",")])
def test_csv_and_tsv_are_flat_tables_of_the_input_and_the_scores(tmp_path, capsys, name, delimiter):
    out = tmp_path / name
    assert main(["score", str(_write(tmp_path)), "-m", "f1", "-m", "em", "-o", str(out)]) == 0
    assert _table(out, delimiter) == [HEADER, *CELLS]
    if delimiter == ",":  # a comma inside a cell is quoted, lines end in \n
        assert '"dog, too"' in out.read_text() and "\r" not in out.read_text()


@pytest.mark.parametrize("chunk", ["1", "2", "5"])
def test_chunked_tables_equal_the_whole_file_table(tmp_path, capsys, chunk):
    src = _write(tmp_path)
    whole, chunked = tmp_path / "whole.csv", tmp_path / "chunked.csv"
    assert main(["score", str(src), "-m", "f1", "-m", "em", "-o", str(whole)]) == 0
    assert main(["score", str(src), "-m", "f1", "-m", "em", "-o", str(chunked), "--chunk-size", chunk]) == 0
    assert chunked.read_bytes() == whole.read_bytes() and not (tmp_path / "chunked.csv.part").exists()


def test_a_table_to_standard_output_chunked_or_not(tmp_path, capsys):
    src = _write(tmp_path)
    for extra in ([], ["--chunk-size", "2"]):
        assert main(["score", str(src), "-m", "f1", "-m", "em", "-o", "-", "--output-format", "tsv", *extra]) == 0
        out, err = capsys.readouterr()
        assert list(csv.reader(io.StringIO(out), delimiter="\t")) == [HEADER, *CELLS]
        assert "f1" in err  # the corpus table goes to stderr


def test_a_metric_with_a_threshold_gets_a_correct_column(tmp_path, capsys, monkeypatch):
    # test_api_score's Decider: scores each record's `p`, decides at 0.7 (stored) or at its `threshold` option
    monkeypatch.setitem(_REGISTRY, "decider", "test_api_score:Decider")
    rows = [{"question": "q?", "candidate": "a", "p": 0.9}, {"question": "q?", "candidate": "b", "p": 0.6},
            {"question": "q?", "candidate": "", "p": 0.9}]
    out = tmp_path / "out.csv"
    assert main(["score", str(_write(tmp_path, rows)), "-m", "decider", "-m", "decider:threshold=0.5",
                 "-o", str(out)]) == 0
    # 0.9, 0.6 against 0.7: yes, no; against 0.5: yes, yes; the empty answer scores 0 and is not correct
    assert _table(out) == [
        ["question", "candidate", "p", "scores.decider", "scores.decider:threshold=0.5", "correct.decider",
         "correct.decider:threshold=0.5"],
        ["q?", "a", "0.9", "0.9", "0.9", "true", "true"],
        ["q?", "b", "0.6", "0.6", "0.6", "false", "true"],
        ["q?", "", "0.9", "0.0", "0.0", "false", "false"]]


def test_the_table_reads_back_and_meta_reads_its_score_columns(tmp_path, capsys):
    out = tmp_path / "out.csv"
    assert main(["score", str(_write(tmp_path)), "-m", "f1", "-o", str(out)]) == 0
    back = read_records(out)
    assert [r.references for r in back] == [r["references"] for r in ROWS]
    assert [r.extra["scores.f1"] for r in back] == ["1.0", "0.6666666666666666", "0.0"]
    capsys.readouterr()
    assert main(["meta", str(out), "--human", "human", "--score-field", "scores.f1", "--format", "json",
                 "--no-ci"]) == 0
    # human 5, 3, 1 against f1 1, 2/3, 0: the same order, so Spearman's rho is 1
    assert json.loads(capsys.readouterr().out)["metrics"]["scores.f1"]["spearman"]["value"] == pytest.approx(1.0)


def test_a_table_scored_again_keeps_earlier_scores_and_replaces_a_metric_scored_again(tmp_path, capsys):
    first, second = tmp_path / "first.csv", tmp_path / "second.csv"
    assert main(["score", str(_write(tmp_path)), "-m", "f1", "-m", "em", "-o", str(first)]) == 0
    assert main(["score", str(first), "-m", "f1", "-o", str(second)]) == 0
    header = _table(second)[0]
    assert header == ["id", "question", "candidate", "reference1", "reference2", "human", "scores.em", "scores.f1"]
    scored = tmp_path / "scored.jsonl"  # a JSONL file scored before: its `scores` keep their columns too
    assert main(["score", str(_write(tmp_path)), "-m", "em", "-o", str(scored)]) == 0
    assert main(["score", str(scored), "-m", "f1", "-o", str(second)]) == 0
    assert _table(second)[0][-2:] == ["scores.em", "scores.f1"]


def test_an_unknown_extension_is_refused_before_anything_is_read(tmp_path, capsys):
    missing = tmp_path / "no-such-input.jsonl"  # never read: the output's format is checked first
    assert main(["score", str(missing), "-m", "f1", "-o", str(tmp_path / "out.txt")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"qascore: error: -o {tmp_path / 'out.txt'}: unknown output format '.txt' (write .jsonl, .csv "
                   f"or .tsv, or give --output-format jsonl|csv|tsv)"]
    assert main(["score", str(missing), "-m", "f1", "-o", str(tmp_path / "out.xlsx"), "--chunk-size", "2"]) == 2
    assert not list(tmp_path.iterdir())


def test_output_format_overrides_the_extension(tmp_path, capsys):
    src = _write(tmp_path)
    as_jsonl, as_csv = tmp_path / "out.csv", tmp_path / "out.txt"
    assert main(["score", str(src), "-m", "f1", "-o", str(as_jsonl), "--output-format", "jsonl"]) == 0
    assert [json.loads(line)["scores"] for line in as_jsonl.read_text().splitlines()][1] == \
        {"f1": pytest.approx(2 / 3)}
    assert main(["score", str(src), "-m", "f1", "-m", "em", "-o", str(as_csv), "--output-format", "csv"]) == 0
    assert _table(as_csv) == [HEADER, *CELLS]


def test_resume_stays_jsonl_only(tmp_path, capsys):
    out = tmp_path / "out.csv"
    assert main(["score", str(_write(tmp_path)), "-m", "f1", "-o", str(out), "--resume"]) == 2
    assert "--resume continues JSONL output only" in capsys.readouterr().err and not out.exists()


@pytest.mark.parametrize("path, fmt, expected", [
    (None, None, "jsonl"), ("-", None, "jsonl"), ("out", None, "jsonl"), ("a.json", None, "jsonl"),
    ("a.ndjson", None, "jsonl"), ("a.jsonl", None, "jsonl"), ("a.tsv", None, "tsv"), ("a.Csv", None, "csv"),
    ("a.txt", "csv", "csv"), ("-", "tsv", "tsv"),
])
def test_output_format_by_extension(path, fmt, expected):
    assert output_format(path, fmt) == expected
