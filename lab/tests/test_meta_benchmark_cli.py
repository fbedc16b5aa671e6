"""`qascore-lab meta --benchmark`: messages, refusals and tables of the benchmark mode."""

from __future__ import annotations

from qascore.records import Record

from qascore_lab.cli import main
from qascore_lab.meta import benchmarks as bm


def test_compare_refused_on_a_rank_pair_benchmark(capsys, monkeypatch):
    """--compare tests correlations: on a rank-pair benchmark it is an error, not silently dropped."""

    from test_meta_benchmarks import tiny

    monkeypatch.setattr(bm, "get", lambda name, root=None: tiny())
    assert main(["meta", "--benchmark", "kpqa-pairs", "-m", "m", "--compare", "m", "m"]) == 2
    assert "rank pairs" in capsys.readouterr().err


def test_missing_data_folder_names_the_cli_flag(tmp_path, capsys):
    assert main(["meta", "--benchmark", "qgeval", "-m", "f1", "--data-root", str(tmp_path / "nope")]) == 2
    err = capsys.readouterr().err
    assert "--data-root" in err and "pass root=" not in err


def test_benchmark_without_paper_figures_prints_no_empty_paper_label(monkeypatch, capsys):
    recs = [Record(candidate=c, references=[r], extra={"human": h})
            for c, r, h in [("a b", "a b", 3.0), ("a", "a b", 2.0), ("c", "a b", 1.0)]]
    monkeypatch.setattr(bm, "get", lambda name, **kw: bm.Benchmark(name="qgeval", title="t", kind="correlation",
                                                                 datasets={"s": recs}))
    assert main(["meta", "--benchmark", "qgeval", "-m", "f1"]) == 0
    out = capsys.readouterr().out
    assert "(paper)" not in out and "printed in ;" not in out


def test_html_refused_with_a_benchmark(tmp_path, capsys):
    assert main(["meta", "--benchmark", "kpqa", "-m", "f1", "--html", str(tmp_path / "r.html")]) == 2
    assert "--html needs INPUT and --human" in capsys.readouterr().err


def test_input_files_still_work_through_the_lab(tmp_path, capsys):
    p = tmp_path / "in.jsonl"
    p.write_text('{"candidate": "a b", "references": ["a b"], "h": 3}\n{"candidate": "a", "references": ["a b"], "h": 2}\n'
                 '{"candidate": "c", "references": ["a b"], "h": 1}\n')
    assert main(["meta", str(p), "--human", "h", "-m", "f1", "--no-ci"]) == 0
    assert "f1" in capsys.readouterr().out
