"""`score --engine ray`: the local engine's output, line for line (a model's numbers within float32 noise),
from a local Ray runtime (2 CPUs).

The expected file is the local engine's (`--chunk-size` without Ray), itself
checked against the whole-file path in test_stream.py.
"""

from __future__ import annotations

import builtins
import json

import pytest
from test_stream import make_rows, write

from qascore.cli import main
from qascore.engines.ray_engine import chunk_starts, read_chunk
from qascore.records import read_records


def _approx(value):
    """`value` with every float wrapped in pytest.approx (relative 1e-5: float32 noise, 1.3e-6 at most seen),
    for comparing scored output."""
    if isinstance(value, dict):
        return {k: _approx(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_approx(v) for v in value]
    return pytest.approx(value, rel=1e-5, abs=1e-7) if isinstance(value, float) else value


def test_chunk_starts_and_read_chunk_cover_the_file_once(tmp_path):
    rows = make_rows(11)
    src = tmp_path / "in.jsonl"
    src.write_text("\n" + "".join(json.dumps(r) + "\n" + ("\n" if i == 4 else "") for i, r in enumerate(rows)))
    want = read_records(src)
    for skip in (0, 3):
        starts = chunk_starts(src, 4, skip)
        assert [s["count"] for s in starts] == ([4, 4, 3] if skip == 0 else [1, 4, 3])  # aligned to 4
        got = [r for s in starts for r in read_chunk(str(src), s["offset"], s["line"], s["count"], {})]
        assert got == want[skip:]
        assert [r.line for r in got] == [r.line for r in want[skip:]]  # errors will name the right line


def test_without_ray_the_flag_gives_the_install_hint(tmp_path, capsys, monkeypatch):
    real_import = builtins.__import__

    def no_ray(name, *a, **kw):
        if name == "ray" or name.startswith("ray."):
            raise ImportError("No module named 'ray'")
        return real_import(name, *a, **kw)

    monkeypatch.setattr(builtins, "__import__", no_ray)
    src = write(tmp_path / "in.jsonl", make_rows(3))
    assert main(["score", str(src), "-m", "f1", "--engine", "ray"]) == 2
    assert "pip install 'qascore[ray]'" in capsys.readouterr().err


def test_ray_refuses_csv_and_address_without_ray(tmp_path, capsys):
    src = tmp_path / "in.csv"
    src.write_text("candidate,references\na,b\n")
    assert main(["score", str(src), "-m", "f1", "--engine", "ray"]) == 2
    assert "--engine ray reads JSONL" in capsys.readouterr().err
    assert main(["score", str(src), "-m", "f1", "--chunk-size", "2", "--address", "auto"]) == 2
    assert "--address is for --engine ray" in capsys.readouterr().err


@pytest.mark.slow
def test_ray_equals_local_engine(tmp_path, capsys):
    """300 records, a lexical and a model metric (packaged MiniLM), 2 actors on a local runtime."""
    ray = pytest.importorskip("ray")
    src = write(tmp_path / "in.jsonl", make_rows(300, seed=7))
    local, remote = tmp_path / "local.jsonl", tmp_path / "ray.jsonl"
    metrics = ["-m", "f1", "-m", "rougeL", "-m", "bertscore"]
    try:
        assert main(["score", str(src), *metrics, "--chunk-size", "64", "-o", str(local), "--format", "json"]) == 0
        a = json.loads(capsys.readouterr().out)
        assert main(["score", str(src), *metrics, "--chunk-size", "64", "-o", str(remote), "--format", "json",
                     "--engine", "ray", "--workers", "2"]) == 0
        b = json.loads(capsys.readouterr().out)
        assert ray.cluster_resources().get("CPU") == 2
        # A resumed Ray run continues the file with the same lines.
        lines = remote.read_text().splitlines(keepends=True)
        remote.write_text("".join(lines[:100]))
        assert main(["score", str(src), *metrics, "--chunk-size", "64", "-o", str(remote), "--format", "json",
                     "--engine", "ray", "--workers", "2", "--resume"]) == 0
        c = json.loads(capsys.readouterr().out)
    finally:
        ray.shutdown()
    # Line for line; a model's numbers within float noise (Ray's actors run their own torch threads, and a
    # sum over another number of threads rounds differently in the last bits).
    got, want = remote.read_text().splitlines(), local.read_text().splitlines()
    assert len(got) == len(want)
    assert [json.loads(line) for line in got] == [_approx(json.loads(line)) for line in want]
    assert b == _approx(a)
    assert c["bertscore"]["signature"] == a["bertscore"]["signature"]  # no options given: the key is the name
    assert c["f1"]["corpus"] == a["f1"]["corpus"]


def _listening(pids: set[int]) -> list[tuple[int, str]]:
    """(pid, address) of every TCP socket in LISTEN state held by one of `pids`."""
    psutil = pytest.importorskip("psutil")
    return [(c.pid, c.laddr.ip) for c in psutil.net_connections(kind="tcp")
            if c.status == psutil.CONN_LISTEN and c.pid in pids]


def test_pool_size_is_bounded_by_chunks_and_local_cpus(monkeypatch):
    from qascore.engines import ray_engine

    monkeypatch.setattr(ray_engine, "_cpus", lambda: 4)
    assert ray_engine.pool_size(200, 1, local=True) == 1      # 10 records, one chunk: one actor
    assert ray_engine.pool_size(200, 50, local=True) == 4     # no more actors than CPUs here
    assert ray_engine.pool_size(200, 50, local=False) == 50   # a cluster: as many as there are chunks
    assert ray_engine.pool_size(3, 50, local=True) == 3


@pytest.mark.slow
def test_a_local_runtime_listens_on_loopback_only_and_starts_no_more_actors_than_chunks(tmp_path, capsys):
    """Issue 64: GCS, raylet and workers listened on every interface (`*:40069`); `--workers 200` on 10
    records started dozens of processes."""
    ray = pytest.importorskip("ray")
    psutil = pytest.importorskip("psutil")
    src = write(tmp_path / "in.jsonl", make_rows(10))
    out = tmp_path / "o.jsonl"
    try:
        assert main(["score", str(src), "-m", "f1", "-o", str(out), "--engine", "ray", "--workers", "200"]) == 0
        me = psutil.Process()
        pids = {me.pid} | {p.pid for p in me.children(recursive=True)}
        names = [p.name() for p in me.children(recursive=True)]
        held = _listening(pids)
        assert ray.cluster_resources().get("CPU") == 2  # not 200
    finally:
        ray.shutdown()
    assert held and all(ip in ("127.0.0.1", "::ffff:127.0.0.1", "::1") for _, ip in held), held
    assert sum("MapWorker" in n for n in names) == 1 and len(names) <= 12, " ".join(sorted(names))
    assert len(out.read_text().splitlines()) == 10
    assert "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER" not in __import__("os").environ
