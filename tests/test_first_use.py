"""Rough edges a new user meets on first use (issue 43): where `score -o` wrote, the corpus table's columns,
`--resume`'s help and message, `qascore list`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from qascore.cli import main

ROWS = [{"id": str(i), "candidate": f"the cat {i}", "references": ["the cat"]} for i in range(6)]


def _write(path: Path, rows=ROWS) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


# -- 9: score -o FILE says where it wrote ----------------------------------------------------------------
@pytest.mark.parametrize("chunked", [[], ["--chunk-size", "4"]], ids=["whole", "chunked"])
def test_score_says_where_it_wrote(tmp_path, capsys, chunked):
    src, out = _write(tmp_path / "in.jsonl"), tmp_path / "scored.jsonl"
    assert main(["score", str(src), "-m", "em", "-o", str(out), *chunked]) == 0
    err = capsys.readouterr().err
    assert f"wrote 6 records to {out}" in err.splitlines()
    assert len(out.read_text().splitlines()) == 6


def test_score_to_stdout_or_without_output_says_nothing_of_writing(tmp_path, capsys):
    src = _write(tmp_path / "in.jsonl")
    assert main(["score", str(src), "-m", "em"]) == 0
    assert "wrote" not in capsys.readouterr().err
    assert main(["score", str(src), "-m", "em", "-o", "-"]) == 0
    assert "wrote" not in capsys.readouterr().err


# -- 10: the corpus table's columns line up ----------------------------------------------------------------
@pytest.mark.parametrize("metrics", [["f1"], ["em", "rougeL"], ["f1", "rougeL:agg=mean"]])
def test_corpus_table_columns_line_up(tmp_path, capsys, metrics):
    src = _write(tmp_path / "in.jsonl")
    args = ["score", str(src)]
    for m in metrics:
        args += ["-m", m]
    assert main(args) == 0
    lines = capsys.readouterr().out.splitlines()
    header, rows = lines[0], lines[1:1 + len(metrics)]
    assert header.split()[:2] == ["metric", "corpus"]
    end = header.index("corpus") + len("corpus")  # the values' right edge sits under the header's
    for row, m in zip(rows, metrics):
        label, value = row.split()
        assert label == m and row.index(value) + len(value) == end
        assert row.index(value) > len(label)  # never glued to the label
    # every label starts at column 0 and every value at the same column
    assert len({row.index(row.split()[1]) for row in rows}) == 1


# -- 12: --resume: its help and where it says the kept records were ----------------------------------------
def test_resume_help_does_not_require_chunk_size(capsys):
    assert main(["score", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    at = text.index("--resume with --output") if "--resume with --output" in text else text.index("--resume --")
    help_text = text[at:at + 300]
    assert "with --chunk-size" not in help_text and "FILE.part" in help_text and "default 1000" in help_text


def test_resume_without_chunk_size_works_and_names_the_part_file(tmp_path, capsys):
    rows = [{"id": str(i), "candidate": f"cat {i}", "references": ["cat"]} for i in range(2500)]
    src = _write(tmp_path / "in.jsonl", rows)
    full, out = tmp_path / "full.jsonl", tmp_path / "out.jsonl"
    assert main(["score", str(src), "-m", "em", "-o", str(full)]) == 0
    lines = full.read_text().splitlines(keepends=True)
    part = tmp_path / "out.jsonl.part"  # what a run killed after two chunks of the default 1000 leaves
    part.write_text("".join(lines[:2000]) + lines[2000][:9])
    capsys.readouterr()
    assert main(["score", str(src), "-m", "em", "-o", str(out), "--resume"]) == 0  # no --chunk-size
    err = capsys.readouterr().err
    assert f"resuming after 2000 records already in {part}\n" in err  # where they were, not out.jsonl
    assert out.read_text() == full.read_text() and not part.exists()


def test_resume_of_a_complete_file_names_that_file(tmp_path, capsys):
    src = _write(tmp_path / "in.jsonl")
    out = tmp_path / "out.jsonl"
    assert main(["score", str(src), "-m", "em", "-o", str(out)]) == 0
    capsys.readouterr()
    assert main(["score", str(src), "-m", "em", "-o", str(out), "--resume"]) == 0
    assert f"resuming after 6 records already in {out}\n" in capsys.readouterr().err


# -- 11: `qascore list`: by family, as it says; no machine path as a default; each dtype says which model ------
def test_list_is_by_family_and_says_so(capsys):
    from qascore.metrics.registry import list_metrics

    assert main(["list"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].startswith("metrics by family")
    listed = [line.split()[0] for line in out.splitlines() if line.startswith("  ")]
    assert sorted(listed) == sorted(list_metrics())  # every metric once
    # families in order: word overlap before embeddings, KPQA, verifiers, QG
    pos = {name: i for i, name in enumerate(listed)}
    assert pos["em"] < pos["cider"] < pos["bertscore"] < pos["kpqa-rougeL"] < pos["ava"] < pos["judge"] < pos["qrelscore"]
    assert pos["meteor"] < pos["bertscore"] and pos["square"] < pos["qrelscore"]
    headings = [line for line in out.splitlines() if line and not line.startswith(" ") and line.endswith(":")]
    assert headings[0].startswith("word overlap") and headings[-1].startswith("question generation")


def test_list_square_shows_shipped_not_a_path_and_still_loads_the_shipped_delta(capsys):
    from qascore.metrics.square import DEFAULT_MODEL, Square

    assert main(["list", "square"]) == 0
    out = capsys.readouterr().out
    model_line = next(line for line in out.splitlines() if line.strip().startswith("model "))
    assert "default shipped:" in model_line and "/" not in model_line.split("default")[1].split(":")[0]
    assert Square()._model() == DEFAULT_MODEL
    given = Square(model=str(DEFAULT_MODEL))
    assert given._model() == DEFAULT_MODEL and given.signature == Square().signature


@pytest.mark.parametrize("name, says", [("kpqa-rougeL", "precision of the keyphrase tagger's forward pass"),
                                        ("kpqa-bleu1", "precision of the keyphrase tagger's forward pass"),
                                        ("ava", "precision of the verifier's forward pass"),
                                        ("square", "precision of the verifier's forward pass")])
def test_list_dtype_names_the_model_it_sets(capsys, name, says):
    assert main(["list", name]) == 0
    dtype_line = next(line for line in capsys.readouterr().out.splitlines() if line.strip().startswith("dtype "))
    assert says in dtype_line
