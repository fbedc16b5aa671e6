"""Chunked scoring keeps issue 13's input/output rules: stdin, `-o -`, writable check, FILE only when complete,
BOM/bad-byte handling, duplicate ids, typed options (the merge of issues 13 and 14)."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest
from test_stream import make_rows, write

from qascore.cli import main

CHUNK = ["--chunk-size", "2"]


def _fail(argv: list[str], capsys) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("qascore: error: ") and "Traceback" not in err
    return err


def _stdin(monkeypatch, data: bytes) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))


def test_chunked_reads_stdin_and_writes_stdout_like_the_whole_file_path(tmp_path, monkeypatch, capsys):
    src = write(tmp_path / "in.jsonl", make_rows(7))
    data = src.read_bytes()
    outs = []
    for extra in ([], CHUNK):
        _stdin(monkeypatch, data)
        assert main(["score", "-", "-m", "f1", "-m", "em", "-o", "-", "--format", "json", *extra]) == 0
        got = capsys.readouterr()
        assert "signature: " not in got.out  # the corpus table goes to stderr
        outs.append((got.out, json.loads(got.err[got.err.index("{"):])))
    assert outs[0][0] == outs[1][0]
    for label in ("f1", "em"):
        assert outs[1][1][label]["corpus"] == pytest.approx(outs[0][1][label]["corpus"], rel=1e-12)
        assert outs[1][1][label]["n"] == 7


def test_chunked_stdin_errors_name_stdin(monkeypatch, capsys):
    _stdin(monkeypatch, b'{"candidate": "a", "references": ["a"]}\n{"candidate": "b"}\n')
    assert "<stdin>:2: field 'references'" in _fail(["score", "-", "-m", "em", *CHUNK], capsys)


def test_chunked_resume_refuses_stdout(tmp_path, capsys):
    src = write(tmp_path / "in.jsonl", make_rows(3))
    assert "--resume needs --output" in _fail(["score", str(src), "-m", "em", "-o", "-", *CHUNK, "--resume"], capsys)


def test_chunked_checks_the_output_before_scoring(tmp_path, capsys):
    src = write(tmp_path / "in.jsonl", make_rows(3))
    err = _fail(["score", str(src), "-m", "em", "-o", str(tmp_path / "no" / "out.jsonl"), *CHUNK], capsys)
    assert "does not exist" in err


def test_a_record_a_metric_refuses_stops_the_run_before_any_output(tmp_path, capsys):
    rows = make_rows(6)
    rows[4] = {"id": "bad", "candidate": "x"}  # no references, in the third chunk
    src = write(tmp_path / "in.jsonl", rows)
    out = tmp_path / "out.jsonl"
    err = _fail(["score", str(src), "-m", "f1", "-o", str(out), *CHUNK], capsys)
    assert f"qascore: error: {src}:5: field 'references'" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.jsonl"]  # no FILE, no FILE.part


def test_chunked_output_appears_only_when_complete_and_a_stop_keeps_the_part(tmp_path, monkeypatch, capsys):
    import qascore.stream as stream

    src = write(tmp_path / "in.jsonl", make_rows(6))
    out = tmp_path / "out.jsonl"
    real, calls = stream.score_chunk, []

    def stop_at_third(records, metrics):
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(records, metrics)

    monkeypatch.setattr(stream, "score_chunk", stop_at_third)
    assert main(["score", str(src), "-m", "f1", "-o", str(out), *CHUNK]) == 130
    err = capsys.readouterr().err
    assert not out.exists() and "Traceback" not in err
    part = tmp_path / "out.jsonl.part"
    assert len(part.read_text().splitlines()) == 4 and "--resume continues" in err
    monkeypatch.setattr(stream, "score_chunk", real)
    assert main(["score", str(src), "-m", "f1", "-o", str(out), *CHUNK, "--resume"]) == 0
    assert "scored 2 records (4 kept from the output)" in capsys.readouterr().err
    assert not part.exists()
    whole = tmp_path / "whole.jsonl"
    assert main(["score", str(src), "-m", "f1", "-o", str(whole)]) == 0
    assert out.read_text() == whole.read_text()


def test_chunked_reads_bom_and_locates_bad_bytes(tmp_path, capsys):
    rows = make_rows(5)
    body = "".join(json.dumps(r) + "\n" for r in rows).encode()
    p = tmp_path / "bom.jsonl"
    p.write_bytes(b"\xef\xbb\xbf" + body)
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    assert main(["score", str(p), "-m", "f1", "-o", str(a)]) == 0
    assert main(["score", str(p), "-m", "f1", "-o", str(b), *CHUNK]) == 0
    assert a.read_text() == b.read_text()
    capsys.readouterr()
    p.write_bytes(b'{"candidate": "a", "references": ["a"]}\n{"candidate": "caf\xe9", "references": ["a"]}\n')
    assert f"{p}:2: byte 0xe9 at column 19 is not UTF-8" in _fail(["score", str(p), "-m", "em", *CHUNK], capsys)
    p.write_bytes(b"\xef\xbb\xbf\x80")
    assert f"{p}:1: byte 0x80 at column 1 is not UTF-8" in _fail(["score", str(p), "-m", "em", *CHUNK], capsys)
    p.write_bytes(b'{"candidate": "a", "references": ["b"]\n')
    whole = _fail(["score", str(p), "-m", "em"], capsys)
    assert _fail(["score", str(p), "-m", "em", *CHUNK], capsys) == whole  # same column


def test_chunked_csv_with_bom_and_utf16(tmp_path):
    for name, data in (("bom.csv", "\ufeffcandidate,reference\nx,x\ny,z\n".encode()),
                       ("u16.csv", "candidate,reference\nx,x\ny,z\n".encode("utf-16"))):
        p = tmp_path / name
        p.write_bytes(data)
        a, b = tmp_path / f"{name}.a.jsonl", tmp_path / f"{name}.b.jsonl"
        assert main(["score", str(p), "-m", "em", "-o", str(a)]) == 0
        assert main(["score", str(p), "-m", "em", "-o", str(b), *CHUNK]) == 0
        assert a.read_text() == b.read_text()
        assert [json.loads(x)["scores"]["em"] for x in b.read_text().splitlines()] == [1.0, 0.0]


def test_chunked_repeated_ids_warn_and_strict_stops(tmp_path, capsys):
    p = tmp_path / "dup.jsonl"
    p.write_text('{"id": 7, "candidate": "x", "references": ["x"]}\n'
                 '{"id": "7", "candidate": "y", "references": ["y"]}\n')
    assert main(["score", str(p), "-m", "em", *CHUNK]) == 0
    assert f"qascore: warning: {p}:2: field 'id': id '7' repeats line 1" in capsys.readouterr().err
    err = _fail(["score", str(p), "-m", "em", "--strict", *CHUNK], capsys)
    assert f"{p}:2: field 'id': id '7' repeats line 1" in err


def test_chunked_typed_options_are_checked_with_the_cli_text(tmp_path, capsys):
    src = write(tmp_path / "in.jsonl", make_rows(3))
    whole = _fail(["score", str(src), "-m", "rougeL:agg=maybe"], capsys)
    assert _fail(["score", str(src), "-m", "rougeL:agg=maybe", *CHUNK], capsys) == whole
    assert "-m rougeL:agg=maybe" in whole


def test_nan_scores_are_null_in_chunked_output_and_resume_reads_them(tmp_path):
    from qascore.stream import resume, Summary

    out = tmp_path / "out.jsonl"
    out.write_text('{"candidate": "a", "scores": {"x": null}}\n')
    from qascore.records import Record

    s = [Summary("x", "sig")]
    assert resume(out, [Record.from_dict({"candidate": "a", "references": ["a"]})], s, 1) == 1
    assert s[0].mean.n == 1


def test_served_errors_use_the_cli_decoding(tmp_path):
    pytest.importorskip("fastapi")
    from qascore.serve.app import ApiError, parse_body

    with pytest.raises(ApiError) as err:
        parse_body(b'{"records": ["caf\xe9"]}', ["em"])
    assert err.value.status == 400 and err.value.message.startswith("request:1: byte 0xe9 at column")
    recs, labels = parse_body(b'\xef\xbb\xbf{"records": [{"candidate": "a", "references": ["a"]}]}', ["em"])
    assert recs[0].candidate == "a" and labels == ["em"]


def test_nothing_named_dash_is_created(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    src = write(tmp_path / "in.jsonl", make_rows(2))
    assert main(["score", str(src), "-m", "em", "-o", "-", *CHUNK]) == 0
    assert not (Path(tmp_path) / "-").exists() and not (Path(tmp_path) / "-.part").exists()
