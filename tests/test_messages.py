"""Messages name the real flag, metric or file (issue 13 item 5)."""

from __future__ import annotations

from pathlib import Path


from qascore.cli import main
from qascore.meta import benchmarks as bm
from qascore.records import Record

REPO = Path(__file__).resolve().parent.parent


def test_missing_data_folder_names_the_cli_flag(tmp_path, capsys):
    assert main(["meta", "--benchmark", "qgeval", "-m", "f1", "--data-root", str(tmp_path / "nope")]) == 2
    err = capsys.readouterr().err
    assert "--data-root" in err and "pass root=" not in err


def test_unknown_extension_names_input_format(tmp_path, capsys):
    p = tmp_path / "x.txt"
    p.write_text("a\n")
    assert main(["score", str(p), "-m", "em"]) == 2
    err = capsys.readouterr().err
    assert "--input-format" in err and "--format-in" not in err


def test_benchmark_without_paper_figures_prints_no_empty_paper_label(monkeypatch, capsys):
    recs = [Record(candidate=c, references=[r], extra={"human": h})
            for c, r, h in [("a b", "a b", 3.0), ("a", "a b", 2.0), ("c", "a b", 1.0)]]
    monkeypatch.setattr(bm, "get", lambda name, **kw: bm.Benchmark(name="qgeval", title="t", kind="correlation",
                                                                 datasets={"s": recs}))
    assert main(["meta", "--benchmark", "qgeval", "-m", "f1"]) == 0
    out = capsys.readouterr().out
    assert "(paper)" not in out and "printed in ;" not in out


def test_missing_field_names_the_metric_that_needs_it(tmp_path, capsys):
    p = tmp_path / "in.jsonl"
    p.write_text('{"candidate": "a"}\n')
    assert main(["score", str(p), "-m", "rougeL"]) == 2
    assert f"{p}:1: field 'references': is missing; metric 'rougeL' needs it" in capsys.readouterr().err


def test_readme_and_requirements_name_only_things_that_exist():
    readme = (REPO / "README.md").read_text()
    assert "ava-<config>" not in readme
    assert "DESIGN.md" not in (REPO / "requirements-models.txt").read_text()
