"""The command line's edges: encodings, standard input/output, the output path, mappings, ids, errors.

Every failure must be one `qascore: error: ...` line with exit 2 (no traceback);
expected values are written by hand from the inputs.
"""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from qascore.cli import main

SRC = str(Path(__file__).resolve().parent.parent / "src")


def _fail(argv: list[str], capsys) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("qascore: error: ") and "Traceback" not in err
    return err


# -- item 3: encodings -------------------------------------------------------------
def test_csv_with_a_utf8_bom_keeps_its_first_column(tmp_path, capsys):
    p = tmp_path / "excel.csv"
    p.write_bytes(b"\xef\xbb\xbfquestion,candidate,reference1\nwho?,Ann,Ann\n")
    assert main(["score", str(p), "-m", "em", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["em"]["corpus"] == 1.0


def test_bom_csv_question_column_is_found(tmp_path):
    from qascore.records import read_records

    p = tmp_path / "excel.csv"
    p.write_bytes(b"\xef\xbb\xbfquestion,candidate,reference1\nwho?,Ann,Ann\n")
    (rec,) = read_records(p)
    assert rec.question == "who?" and "question" in rec.present


def test_jsonl_with_a_bom_is_not_malformed(tmp_path):
    from qascore.records import read_records

    p = tmp_path / "bom.jsonl"
    p.write_bytes(b'\xef\xbb\xbf{"candidate": "a", "references": ["b"]}\n')
    assert read_records(p)[0].references == ["b"]


def test_utf16_with_bom_is_read(tmp_path):
    from qascore.records import read_records

    p = tmp_path / "u16.tsv"
    p.write_bytes("candidate\treference\ncafé\tcafé\n".encode("utf-16"))
    assert read_records(p)[0].candidate == "café"


def test_a_latin1_byte_names_file_line_and_column(tmp_path, capsys):
    p = tmp_path / "latin.jsonl"
    # line 2 is '{"candidate": "caf\xe9"...': the byte 0xe9 is its 19th byte
    p.write_bytes(b'{"candidate": "a", "references": ["a"]}\n{"candidate": "caf\xe9", "references": ["a"]}\n')
    err = _fail(["score", str(p), "-m", "em"], capsys)
    assert f"{p}:2: byte 0xe9 at column 19 is not UTF-8" in err


def test_a_field_larger_than_csvs_default_limit_is_read(tmp_path):
    from qascore.records import read_records

    p = tmp_path / "big.csv"
    p.write_text("candidate,reference\n" + "a" * 300_000 + ",b\n")
    assert len(read_records(p)[0].candidate) == 300_000


def test_an_unclosed_quote_or_nul_is_located(tmp_path, capsys):
    p = tmp_path / "nul.csv"
    p.write_bytes(b'candidate,reference\n"a,b\n')
    err = _fail(["score", str(p), "-m", "em"], capsys)
    assert str(p) in err


def test_deeply_nested_json_is_an_input_error(tmp_path, capsys):
    p = tmp_path / "deep.jsonl"
    p.write_text('{"candidate": "a", "references": ["a"], "x": ' + "[" * 100_000 + "]" * 100_000 + "}\n")
    assert f"{p}:1: malformed JSON" in _fail(["score", str(p), "-m", "em"], capsys)


# -- item 4: standard input and output, the output path ------------------------------
def _stdin(monkeypatch, data: bytes) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))


def test_dash_reads_standard_input_as_jsonl(monkeypatch, capsys):
    _stdin(monkeypatch, b'{"candidate": "x b", "references": ["x c"]}\n')
    assert main(["score", "-", "-m", "f1", "--format", "json"]) == 0
    # tokens {x, b} vs {x, c}: P = R = 1/2, F = 1/2
    assert json.loads(capsys.readouterr().out)["f1"]["corpus"] == pytest.approx(0.5)


def test_dash_with_input_format_reads_csv_from_standard_input(monkeypatch, capsys):
    _stdin(monkeypatch, b"candidate,reference\nx,x\ny,z\n")
    assert main(["score", "-", "--input-format", "csv", "-m", "em", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["em"]["corpus"] == pytest.approx(0.5)


def test_dash_output_writes_records_to_stdout_and_the_table_to_stderr(tmp_path, capsys):
    p = tmp_path / "in.jsonl"
    p.write_text('{"id": "k", "candidate": "x", "references": ["x"]}\n')
    assert main(["score", str(p), "-m", "em", "-o", "-"]) == 0
    got = capsys.readouterr()
    assert [json.loads(line) for line in got.out.splitlines()] == [
        {"id": "k", "candidate": "x", "references": ["x"], "scores": {"em": 1.0}}]
    assert "signature: metric:em" in got.err
    assert not (Path.cwd() / "-").exists()


def test_an_unwritable_output_fails_before_scoring(tmp_path, capsys):
    p = tmp_path / "in.jsonl"
    p.write_text('{"candidate": "x", "references": ["x"]}\n')
    err = _fail(["score", str(p), "-m", "em", "-o", str(tmp_path / "no" / "out.jsonl")], capsys)
    assert "does not exist" in err and "scoring" not in err
    assert "is a directory" in _fail(["score", str(p), "-m", "em", "-o", str(tmp_path)], capsys)


def test_a_failed_run_leaves_no_output_file(tmp_path, capsys):
    p = tmp_path / "in.jsonl"
    p.write_text('{"candidate": "x", "references": ["x"]}\n{"candidate": "y"}\n')
    out = tmp_path / "out.jsonl"
    _fail(["score", str(p), "-m", "f1", "-o", str(out)], capsys)
    assert list(tmp_path.iterdir()) == [p]


def test_a_write_that_fails_midway_leaves_nothing(tmp_path):
    from qascore.cli.output import write_whole

    out = tmp_path / "out.jsonl"

    def half(fh):
        fh.write("partial\n")
        raise OSError("disk full")

    with pytest.raises(OSError):
        write_whole(str(out), half)
    assert list(tmp_path.iterdir()) == []


# -- item 8: mappings and ids ---------------------------------------------------------
def test_map_to_an_unknown_field_is_an_error(tmp_path, capsys):
    p = tmp_path / "in.csv"
    p.write_text("answer,reference\nx,x\n")
    err = _fail(["score", str(p), "-m", "em", "--map", "cand=answer"], capsys)
    assert "--map cand=answer: unknown field 'cand'" in err


def test_a_glob_that_matches_no_column_is_named(tmp_path, capsys):
    p = tmp_path / "in.csv"
    p.write_text("candidate,gold1,gold2\nx,x,y\n")
    err = _fail(["score", str(p), "-m", "em", "--map", "references=ref*"], capsys)
    assert f"{p}:1: --map references=ref*: no column matches 'ref*'" in err


def test_repeated_ids_warn_and_strict_makes_them_an_error(tmp_path, capsys):
    p = tmp_path / "dup.jsonl"
    p.write_text('{"id": 7, "candidate": "x", "references": ["x"]}\n'
                 '{"id": "7", "candidate": "y", "references": ["y"]}\n')
    assert main(["score", str(p), "-m", "em"]) == 0
    assert f"qascore: warning: {p}:2: field 'id': id '7' repeats line 1" in capsys.readouterr().err
    assert f"{p}:2: field 'id': id '7' repeats line 1" in _fail(["score", str(p), "-m", "em", "--strict"], capsys)


# -- item 2: no tracebacks ---------------------------------------------------------------
def test_missing_optional_dependency_is_one_line_with_the_extra(tmp_path, monkeypatch, capsys):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "pycocoevalcap" else real(name, *a))
    p = tmp_path / "in.jsonl"
    p.write_text('{"candidate": "x", "references": ["x"]}\n')
    err = _fail(["score", str(p), "-m", "meteor"], capsys)
    assert "pycocoevalcap" in err and "pip install 'qascore[coco]'" in err


def test_unexpected_exception_is_one_line_and_debug_shows_it(tmp_path, monkeypatch, capsys):
    from qascore.metrics.lexical import ExactMatch

    def boom(self, records):
        raise ZeroDivisionError("boom")

    monkeypatch.setattr(ExactMatch, "_score", boom)
    p = tmp_path / "in.jsonl"
    p.write_text('{"candidate": "x", "references": ["x"]}\n')
    assert main(["score", str(p), "-m", "em"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("qascore: error: internal error: ZeroDivisionError: boom") and "Traceback" not in err
    with pytest.raises(ZeroDivisionError):
        main(["score", str(p), "-m", "em", "--debug"])
    monkeypatch.setenv("QASCORE_DEBUG", "1")
    with pytest.raises(ZeroDivisionError):
        main(["score", str(p), "-m", "em"])


def _wait_until_idle(pid: int, timeout: float = 60.0) -> None:
    """Wait until the process has used no CPU for a second (its imports done, blocked on input); a fixed
    sleep was too short on a busy machine. Falls back to a fixed wait where /proc is absent."""
    stat = Path(f"/proc/{pid}/stat")
    if not stat.exists():
        time.sleep(3.0)
        return

    def cpu() -> int:
        fields = stat.read_text().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])   # utime + stime

    end, last, still = time.time() + timeout, -1, 0
    while time.time() < end and still < 2:   # two quiet half-seconds in a row
        now = cpu()
        still = still + 1 if now == last else 0
        last = now
        time.sleep(0.5)


def test_ctrl_c_prints_one_line_and_exits_130():
    env = {**os.environ, "PYTHONPATH": SRC, "OMP_NUM_THREADS": "1"}
    # A terminal's foreground job gets Ctrl-C; a job started in the background by a script inherits
    # SIGINT ignored, and Python keeps it ignored. The child starts as the terminal's job would.
    proc = subprocess.Popen([sys.executable, "-m", "qascore.cli", "score", "-", "-m", "em"], env=env,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    _wait_until_idle(proc.pid)  # started, and waiting on standard input, which never ends
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert (proc.returncode, err.decode().strip()) == (130, "qascore: interrupted")


def test_a_bad_byte_right_after_a_bom_is_located(tmp_path, capsys):
    # found by tests/test_properties.py: the BOM made the column arithmetic index past the data
    p = tmp_path / "bom.jsonl"
    p.write_bytes(b"\xef\xbb\xbf\x80")
    assert f"{p}:1: byte 0x80 at column 1 is not UTF-8" in _fail(["score", str(p), "-m", "em"], capsys)
