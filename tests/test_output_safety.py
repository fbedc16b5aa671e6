"""`-o` never destroys what is not a result file (issue 27): a device, FIFO or directory at the path is
refused before any work, a symlink is written through to its target, the input is never overwritten
without --overwrite-input, and a folder that cannot hold files is found by a probe up front."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from test_hostile_inputs import run_cli

ROW = {"id": "1", "candidate": "cat sat down", "references": ["cat sat"]}  # F1: P 2/3, R 1 -> 0.8
CHUNKED = ([], ["--chunk-size", "1"])


def write_input(tmp_path: Path) -> Path:
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps(ROW) + "\n" + json.dumps({**ROW, "id": "2"}) + "\n")
    return src


def one_error(rc: int, err: str) -> str:
    assert rc == 2 and "Traceback" not in err, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("qascore: error: "), err
    return lines[0]


@pytest.mark.parametrize("extra", CHUNKED)
def test_a_fifo_at_o_is_refused_before_any_work(tmp_path: Path, extra: list[str]) -> None:
    src, fifo = write_input(tmp_path), tmp_path / "pipe"
    os.mkfifo(fifo)
    line = one_error(*run_cli(["score", str(src), "-m", "f1", "-o", str(fifo), *extra])[::2])
    assert str(fifo) in line and "FIFO" in line
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


@pytest.mark.skipif(os.geteuid() != 0, reason="making a device node needs root")
@pytest.mark.parametrize("extra", CHUNKED)
def test_a_device_at_o_is_refused_and_stays_a_device(tmp_path: Path, extra: list[str]) -> None:
    src, dev = write_input(tmp_path), tmp_path / "mynull"
    os.mknod(dev, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    line = one_error(*run_cli(["score", str(src), "-m", "f1", "-o", str(dev), *extra])[::2])
    assert str(dev) in line and "device" in line
    assert stat.S_ISCHR(os.lstat(dev).st_mode)


@pytest.mark.parametrize("extra", CHUNKED)
def test_a_symlink_at_o_is_written_through_to_its_target(tmp_path: Path, extra: list[str]) -> None:
    src = write_input(tmp_path)
    (tmp_path / "real").mkdir()
    target, link = tmp_path / "real" / "scores.jsonl", tmp_path / "link.jsonl"
    target.write_text("old\n")
    link.symlink_to(target)
    rc, _, err = run_cli(["score", str(src), "-m", "f1", "-o", str(link), *extra])
    assert rc == 0, err
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert [json.loads(x)["id"] for x in target.read_text().splitlines()] == ["1", "2"]
    assert sorted(p.name for p in (tmp_path / "real").iterdir()) == ["scores.jsonl"]  # no temporary left


@pytest.mark.parametrize("extra", CHUNKED)
def test_o_equal_to_the_input_is_refused_unless_asked(tmp_path: Path, extra: list[str]) -> None:
    src = write_input(tmp_path)
    before = src.read_bytes()
    alias = tmp_path / "alias.jsonl"
    alias.symlink_to(src)
    for out in (src, alias, Path(os.path.relpath(src))):
        line = one_error(*run_cli(["score", str(src), "-m", "f1", "-o", str(out), *extra])[::2])
        assert "--overwrite-input" in line and str(out) in line
        assert src.read_bytes() == before
    rc, _, err = run_cli(["score", str(src), "-m", "f1", "-o", str(src), "--overwrite-input", *extra])
    assert rc == 0, err
    assert [json.loads(x)["scores"]["f1"] for x in src.read_text().splitlines()] == [pytest.approx(0.8)] * 2


def test_resume_onto_the_input_is_refused_even_with_overwrite_input(tmp_path: Path) -> None:
    src = write_input(tmp_path)
    before = src.read_bytes()
    line = one_error(*run_cli(["score", str(src), "-m", "f1", "-o", str(src), "--overwrite-input",
                               "--chunk-size", "1", "--resume"])[::2])
    assert "--resume" in line and src.read_bytes() == before


@pytest.mark.parametrize("extra", CHUNKED)
def test_a_folder_that_cannot_hold_files_is_found_up_front(tmp_path: Path, extra: list[str]) -> None:
    src = write_input(tmp_path)
    out = "/proc/qascore-probe-test.jsonl"
    line = one_error(*run_cli(["score", str(src), "-m", "f1", "-o", out, *extra])[::2])
    assert out in line and ".part" not in line and "cannot create files" in line


def test_a_partial_file_that_is_a_symlink_is_refused(tmp_path: Path) -> None:
    src = write_input(tmp_path)
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me\n")
    (tmp_path / "out.jsonl.part").symlink_to(victim)
    line = one_error(*run_cli(["score", str(src), "-m", "f1", "-o", str(tmp_path / "out.jsonl"),
                               "--chunk-size", "1"])[::2])
    assert "out.jsonl.part" in line and victim.read_text() == "keep me\n"
