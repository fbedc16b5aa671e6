"""Issue 23's rough edges 1, 6, 7, 8, 9, 11, 13 (and issue 27's --chunk-size): each as the user met it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar

import pytest
from test_encoder import tiny_bert  # noqa: F401  (session fixture)
from test_hostile_inputs import run_cli

import qascore
from qascore import progress
from qascore.cli.options import output_label
from qascore.metrics.base import Metric, blank
from qascore.records import InputError, Record

SRC = str(Path(__file__).resolve().parent.parent / "src")


# -- 1: an empty candidate scores 0.0 in every metric, without a model call ----------------------
class Constant(Metric):
    """Scores 0.7 for anything it is shown; records every call."""

    name: ClassVar[str] = "constant"
    seen: ClassVar[list[str]] = []

    def _score(self, records: Sequence[Record]) -> tuple[list[float], dict[str, list[float]]]:
        Constant.seen.extend(r.candidate for r in records)
        return [0.7] * len(records), {"part": [0.5] * len(records), "correct": [True] * len(records)}


def test_the_base_class_scores_empty_candidates_zero_without_calling_the_metric() -> None:
    Constant.seen = []
    rows = [{"candidate": "yes", "references": ["r"]}, {"candidate": "  \n", "references": ["r"]},
            {"candidate": "", "references": [""]}, {"candidate": "\u200b\ufeff\u200d \t", "references": ["r"]}]
    res = Constant().score(rows)
    assert res.scores == [0.7, 0.0, 0.0, 0.0] and Constant.seen == ["yes"]
    assert res.example(0) == {"part": 0.5, "correct": True}
    assert res.example(1) == res.example(2) == res.example(3) == {"empty_candidate": True}
    Constant.seen = []
    only_empty = Constant().score([{"candidate": "", "references": ["r"]}])
    assert only_empty.scores == [0.0] and Constant.seen == [] and only_empty.example(0) == {"empty_candidate": True}


@pytest.mark.parametrize("name", ["ava", "square", "judge", "bertscore", "kpqa-rougeL", "bleu1", "rougeL", "cider"])
def test_every_metric_gives_an_empty_candidate_zero_and_never_scores_it(name: str, monkeypatch) -> None:
    cls = qascore.metrics.registry.metric_class(name)
    real = cls._score

    def spy(self, records):
        assert not any(blank(r.candidate) for r in records) or self.corpus_dependence() is not None
        return real(self, records)

    monkeypatch.setattr(cls, "_score", spy)
    rows = [{"question": "who?", "candidate": "", "references": ["someone"], "negatives": ["no one"]},
            {"question": "who?", "candidate": " ", "references": [""], "negatives": ["no one"]},
            {"question": "who?", "candidate": "\u200b" * 50, "references": ["someone"], "negatives": ["no one"]}]
    res = qascore.load(name).score(rows)
    assert res.scores == [0.0, 0.0, 0.0] and res.example(0) == res.example(2) == {"empty_candidate": True}


def test_em_and_f1_keep_squads_rule_for_empty_against_empty() -> None:
    rows = [{"candidate": "", "references": [""]}, {"candidate": "", "references": ["x"]}]
    assert qascore.load("f1").score(rows).scores == [1.0, 0.0]
    assert qascore.load("em").score(rows).scores == [1.0, 0.0]


# -- 6: load takes the CLI's spec string; score([]) is refused as an empty file is -------------
def test_load_accepts_the_cli_spec_string_and_keywords_alike() -> None:
    a = qascore.load("rougeL:agg=mean,beta=1")
    b = qascore.load("rougeL", agg="mean", beta=1.0)
    c = qascore.load("rougeL:agg=mean", beta=1.0)
    assert a.signature == b.signature == c.signature and "agg:mean" in a.signature
    with pytest.raises(ValueError, match="given in the spec and as a keyword"):
        qascore.load("rougeL:agg=mean", agg="max")
    with pytest.raises(ValueError, match="must look like key=value"):
        qascore.load("rougeL:agg")


def test_score_of_an_empty_list_is_an_error_as_on_the_command_line(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no records to score"):
        qascore.load("f1").score([])
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    rc, _, err = run_cli(["score", str(empty), "-m", "f1"])
    assert rc == 2 and "file is empty" in err


# -- 7: options that change the numbers are in the output key -----------------------------------
def test_options_that_change_numbers_are_in_the_output_key(tmp_path: Path) -> None:
    assert output_label("ava", {"dtype": "bf16"}) == "ava:dtype=bf16"
    assert output_label("ava", {"batch_size": "8"}) == "ava"  # cannot change the numbers
    assert output_label("ava", {"batch_size": "8", "dtype": "bf16"}) == "ava:dtype=bf16"
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps({"candidate": "x y", "references": ["x z", "y"]}) + "\n")
    out = tmp_path / "out.jsonl"
    assert run_cli(["score", str(src), "-m", "rougeL:agg=mean", "-o", str(out)])[0] == 0
    assert set(json.loads(out.read_text())["scores"]) == {"rougeL:agg=mean"}


# -- 8: argparse errors are one line; messages are worded right ----------------------------------
@pytest.mark.parametrize("argv, says", [
    (["score", "x.jsonl", "-m", "f1", "--chunk-size", "abc"], "argument --chunk-size: invalid int value: 'abc'"),
    (["score", "x.jsonl", "-m", "f1", "--no-such-flag"], "unrecognized arguments: --no-such-flag"),
    (["score", "x.jsonl"], "the following arguments are required: --metric/-m"),
    (["nosuchcommand"], "argument COMMAND: invalid choice: 'nosuchcommand'"),
])
def test_argparse_errors_are_one_line(argv: list[str], says: str) -> None:
    rc, out, err = run_cli(argv)
    assert rc == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and err.startswith("qascore: error: ") and says in err, err


def test_a_huge_chunk_size_is_a_chunk_holding_the_whole_file(tmp_path: Path) -> None:
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps({"candidate": f"x{i}", "references": ["x1"]}) + "\n" for i in range(3)))
    out = tmp_path / "out.jsonl"
    rc, _, err = run_cli(["score", str(src), "-m", "em", "--chunk-size", "9" * 23, "-o", str(out)])
    assert rc == 0, err
    assert [json.loads(x)["scores"]["em"] for x in out.read_text().splitlines()] == [0.0, 1.0, 0.0]


# -- 9: progress bars only where a terminal watches the command line, or when asked ---------------
def test_library_use_draws_no_bars_even_on_a_terminal(monkeypatch) -> None:
    monkeypatch.delenv("QASCORE_PROGRESS", raising=False)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    monkeypatch.setattr(progress, "_cli", None)
    assert not progress.enabled()
    progress.configure(True)
    assert progress.enabled()


def test_progress_flag_turns_bars_on_off_a_terminal(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.delenv("QASCORE_PROGRESS", raising=False)
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps({"candidate": "x", "references": ["x"]}) + "\n")
    rc, _, err = run_cli(["score", str(src), "-m", "em"])
    assert rc == 0 and "scoring 1 records" not in err
    rc, _, err = run_cli(["score", str(src), "-m", "em", "--progress"])
    assert rc == 0 and "scoring 1 records with em..." in err


def test_loading_a_model_in_library_use_prints_no_bar(tiny_bert) -> None:  # noqa: F811
    env = {k: v for k, v in os.environ.items() if not k.startswith(("QASCORE_", "HF_", "TRANSFORMERS_"))}
    env.update(PYTHONPATH=SRC, OMP_NUM_THREADS="1")
    code = (f"import qascore; m = qascore.load('bertscore', model={tiny_bert!r}); "
            "print(m.score([{'candidate': 'a cat', 'references': ['a cat']}]).scores)")
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300,
                          check=False)
    assert done.returncode == 0, done.stderr
    assert "Loading weights" not in done.stderr and "it/s" not in done.stderr, done.stderr


# -- 11: meta --html looks for matplotlib before computing anything --------------------------------
def test_meta_html_checks_the_report_extra_first(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # as on a scoring-only install
    rc, _, err = run_cli(["meta", str(tmp_path / "not-read-yet.jsonl"), "--human", "h", "-m", "f1",
                          "--html", str(tmp_path / "r.html")])
    assert rc == 2 and "qascore[report]" in err and "no such file" not in err, err


# -- 13: SIGTERM is handled as SIGINT ----------------------------------------------------------------
def test_sigterm_ends_with_a_message_exit_143_and_no_empty_part(tmp_path: Path) -> None:
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps({"id": str(i), "candidate": f"w{i} x", "references": ["x"]}) + "\n"
                           for i in range(200_000)))
    out = tmp_path / "out.jsonl"
    env = {**os.environ, "PYTHONPATH": SRC, "OMP_NUM_THREADS": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "qascore.cli", "score", str(src), "-m", "f1", "--chunk-size", "1",
                             "-o", str(out)], env=env, stderr=subprocess.PIPE, text=True)
    part = tmp_path / "out.jsonl.part"
    deadline = time.time() + 120
    while not part.exists() and time.time() < deadline:
        time.sleep(0.05)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 143, err
    assert "qascore: terminated" in err and "Traceback" not in err
    assert not out.exists()
    assert not part.exists() or part.stat().st_size > 0


# -- 10: a successful Ray run prints nothing of Ray's own ------------------------------------------
@pytest.mark.slow
def test_a_successful_ray_run_is_quiet(tmp_path: Path) -> None:
    pytest.importorskip("ray")
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps({"id": str(i), "candidate": f"cat {i}", "references": ["cat"]}) + "\n"
                           for i in range(40)))
    env = {**os.environ, "PYTHONPATH": SRC, "OMP_NUM_THREADS": "1"}
    env.pop("QASCORE_PROGRESS", None)
    done = subprocess.run([sys.executable, "-m", "qascore.cli", "score", str(src), "-m", "f1", "--engine", "ray",
                           "--chunk-size", "10", "--workers", "2", "-o", str(tmp_path / "out.jsonl")],
                          env=env, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr
    # the old run printed core_worker's error-level actor line and a warning; now only where it wrote
    assert done.stderr == f"wrote 40 records to {tmp_path / 'out.jsonl'}\n", done.stderr


# -- a blank reference, for a metric whose model reads the reference's text -------------------------
class ReadsReferences(Constant):
    """Constant, for a metric whose model reads each reference; records the references it is handed."""

    name: ClassVar[str] = "reads-references"
    needs_reference_text: ClassVar[bool] = True
    refs: ClassVar[list[list[str]]] = []

    def _score(self, records: Sequence[Record]) -> tuple[list[float], dict[str, list[float]]]:
        ReadsReferences.refs.extend(list(r.references) for r in records)
        return super()._score(records)


@pytest.mark.parametrize("references, handed", [
    (["Paris", ""], ["Paris"]),
    (["  ", "Paris", "\n"], ["Paris"]),
    (["Paris", "Lutetia"], ["Paris", "Lutetia"]),
    (["\ufeff", "Paris", "\u200b\u200c"], ["Paris"]),            # invisible format characters only
])
def test_blank_references_are_left_out_before_the_model(references: list[str], handed: list[str]) -> None:
    ReadsReferences.refs = []
    assert ReadsReferences().score([{"candidate": "Paris", "references": references}]).scores == [0.7]
    assert ReadsReferences.refs == [handed]


def test_only_blank_references_are_an_error_naming_the_line_unless_the_candidate_is_empty(tmp_path) -> None:
    with pytest.raises(InputError, match="every reference is blank") as err:
        ReadsReferences().score([Record(candidate="Paris", references=["", " "], source="a.jsonl", line=3)])
    assert "a.jsonl:3" in str(err.value) and "references" in str(err.value)
    ReadsReferences.refs = []
    assert ReadsReferences().score([{"candidate": "", "references": [""]}]).scores == [0.0] and ReadsReferences.refs == []
    # the metrics that read references with a model declare it; overlap metrics keep SQuAD's empty-reference rule
    assert all(qascore.metrics.registry.metric_class(n).needs_reference_text for n in ("ava", "judge"))
    assert not qascore.metrics.registry.metric_class("f1").needs_reference_text
    path = tmp_path / "blank.jsonl"
    path.write_text(json.dumps({"question": "who?", "candidate": "Paris", "references": [""]}) + "\n")
    rc, _, err_text = run_cli(["score", str(path), "-m", "judge"])
    assert rc != 0 and "blank.jsonl:1: field 'references': every reference is blank" in err_text
    assert "Traceback" not in err_text
