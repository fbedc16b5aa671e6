"""Messages name the real flag, metric or file (issue 13 item 5)."""

from __future__ import annotations

from pathlib import Path


from qascore.cli import main

REPO = Path(__file__).resolve().parent.parent


def test_unknown_extension_names_input_format(tmp_path, capsys):
    p = tmp_path / "x.txt"
    p.write_text("a\n")
    assert main(["score", str(p), "-m", "em"]) == 2
    err = capsys.readouterr().err
    assert "--input-format" in err and "--format-in" not in err


def test_missing_field_names_the_metric_that_needs_it(tmp_path, capsys):
    p = tmp_path / "in.jsonl"
    p.write_text('{"candidate": "a"}\n')
    assert main(["score", str(p), "-m", "rougeL"]) == 2
    assert f"{p}:1: field 'references': is missing; metric 'rougeL' needs it" in capsys.readouterr().err


def test_readme_and_requirements_name_only_things_that_exist():
    readme = (REPO / "README.md").read_text()
    assert "ava-<config>" not in readme
    assert "DESIGN.md" not in (REPO / "requirements-models.txt").read_text()
