"""`qascore serve`: the same records and error texts as `qascore score`, micro-batching, limits.

In-process (FastAPI's TestClient, no socket) except the slow test, which
starts the real server on 127.0.0.1 and stops it.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from fastapi.testclient import TestClient  # noqa: E402
from test_stream import make_rows, write  # noqa: E402

import qascore  # noqa: E402
from qascore.cli import main  # noqa: E402
from qascore.serve.app import create_app  # noqa: E402
from qascore.serve.batcher import MicroBatcher  # noqa: E402

SPECS = ["f1", "em", "rougeL"]


def app(**kw):
    return create_app([(name, qascore.load(name)) for name in SPECS], **kw)


def cli_output(tmp_path: Path, rows: list[dict], capsys) -> tuple[list[dict], dict]:
    src = write(tmp_path / "in.jsonl", rows)
    out = tmp_path / "out.jsonl"
    args = ["score", str(src), "-o", str(out), "--format", "json"]
    for s in SPECS:
        args += ["-m", s]
    assert main(args) == 0
    return [json.loads(x) for x in out.read_text().splitlines()], json.loads(capsys.readouterr().out)


def test_score_returns_what_score_output_writes(tmp_path, capsys):
    rows = make_rows(12)
    want, corpus = cli_output(tmp_path, rows, capsys)
    with TestClient(app()) as client:
        got = client.post("/score", json={"records": rows}).json()
        bare = client.post("/score", json=rows).json()  # a bare list works too
    assert got["records"] == want and bare["records"] == want
    for label in SPECS:
        assert got["corpus"][label]["signature"] == corpus[label]["signature"]
        assert got["corpus"][label]["n"] == 12
        assert got["corpus"][label]["corpus"] == pytest.approx(corpus[label]["corpus"], rel=1e-12)


def test_metrics_and_health():
    with TestClient(app()) as client:
        loaded = client.get("/metrics").json()
        health = client.get("/health").json()
    assert list(loaded) == SPECS
    assert loaded["f1"]["signature"] == qascore.load("f1").signature
    assert health["status"] == "ok" and health["batching"]["max_batch"] == 64


def cli_error(tmp_path: Path, text: str, capsys) -> str:
    p = tmp_path / "bad.jsonl"
    p.write_text(text + "\n")
    assert main(["score", str(p), "-m", "f1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    prefix = f"qascore: error: {p}:1: "
    assert err.startswith(prefix)
    return err[len(prefix):]


def test_bad_requests_get_4xx_with_the_cli_text_and_the_server_lives_on(tmp_path, capsys):
    good = {"records": [{"candidate": "a dog", "references": ["a dog ran"]}]}
    malformed = '{"candidate": "a", "references": ["b"]'
    wrong_type = {"candidate": "a", "references": "b"}
    missing = {"candidate": "a"}
    with TestClient(app(max_body_bytes=2000)) as client:
        r = client.post("/score", content=(malformed + "\n").encode(),  # as the file line
                        headers={"content-type": "application/json"})
        assert r.status_code == 400
        assert r.json()["error"].startswith("request: ")
        assert r.json()["error"].removeprefix("request: ") == cli_error(tmp_path, malformed, capsys)
        assert client.get("/health").status_code == 200

        r = client.post("/score", json={"records": [wrong_type]})
        assert r.status_code == 422
        assert r.json()["error"] == "request:1: " + cli_error(tmp_path, json.dumps(wrong_type), capsys)

        r = client.post("/score", json={"records": [good["records"][0], missing]})
        assert r.status_code == 422
        assert r.json()["error"] == "request:2: " + cli_error(tmp_path, json.dumps(missing), capsys)

        r = client.post("/score", json={**good, "metrics": ["bleu4"]})
        assert r.status_code == 404 and "'bleu4' is not loaded" in r.json()["error"]
        r = client.post("/score", json={"records": []})
        assert r.status_code == 400 and "non-empty list" in r.json()["error"]
        r = client.post("/score", json={"rows": []})
        assert r.status_code == 400

        big = {"records": [good["records"][0]] * 100}
        r = client.post("/score", json=big)
        assert r.status_code == 413 and "limit of 2000 bytes" in r.json()["error"]

        r = client.post("/score", json={**good, "metrics": ["f1"]})
        assert r.status_code == 200
        assert r.json()["records"][0]["scores"] == {"f1": pytest.approx(2 / 3)}  # P 1, R 1/2 (SQuAD drops "a")


def test_corpus_level_metrics_are_refused_at_start():
    with pytest.raises(ValueError, match="cider cannot be served: CIDEr's IDF"):
        create_app([("cider", qascore.load("cider"))])


def concurrent_posts(client: TestClient, bodies: list[dict]) -> list[dict]:
    with ThreadPoolExecutor(len(bodies)) as pool:
        responses = list(pool.map(lambda b: client.post("/score", json=b), bodies))
    assert all(r.status_code == 200 for r in responses)
    return [r.json() for r in responses]


@pytest.mark.parametrize("batching", [True, False])
def test_concurrent_requests_share_model_calls_and_keep_their_scores(batching):
    rows = make_rows(24, seed=5)
    bodies = [{"records": rows[i:i + 3]} for i in range(0, 24, 3)]
    solo = app()
    with TestClient(solo) as client:
        want = [client.post("/score", json=b).json() for b in bodies]  # one at a time
    served = app(max_batch=64, max_wait_s=0.5) if batching else app(max_batch=0, max_wait_s=0)
    with TestClient(served) as client:
        got = concurrent_posts(client, bodies)
        health = client.get("/health").json()
    assert [g["records"] for g in got] == [w["records"] for w in want]
    assert health["requests"] == 8
    if batching:
        assert health["model_calls"] < 8
    else:
        assert health["model_calls"] == 8


def test_batcher_limits_and_isolates_a_failing_request():
    calls: list[list[int]] = []

    def fn(requests):
        calls.append([len(r) for r in requests])
        if any("poison" in r for r in requests):
            raise ValueError("poisoned")
        return [sum(1 for _ in r) for r in requests]

    async def go():
        b = MicroBatcher(fn, len, max_batch=5, max_wait_s=0.2)
        b.start()
        reqs = [["a", "b"], ["c", "d"], ["poison"], ["e", "f", "g"]]
        out = await asyncio.gather(*(b.submit(r) for r in reqs), return_exceptions=True)
        await b.stop()
        return out

    out = asyncio.run(go())
    assert out[0] == 2 and out[1] == 2 and out[3] == 3
    assert isinstance(out[2], ValueError)
    assert all(sum(c) <= 5 for c in calls)  # never over max_batch records
    assert calls[0] == [2, 2, 1]           # the first batch fills up to 5; [e, f, g] opens the next


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.slow
def test_real_server_on_loopback(tmp_path):
    """The CLI's server, bound to 127.0.0.1 by default, answers and survives a bad request."""
    import httpx

    port = free_port()
    env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": str(Path(qascore.__file__).parents[1])}
    proc = subprocess.Popen([sys.executable, "-m", "qascore.cli", "serve", "-m", "f1", "--port", str(port)],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.time() + 60
        while True:
            try:
                if httpx.get(f"{url}/health", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert proc.poll() is None and time.time() < deadline, proc.stderr.read().decode()
            time.sleep(0.2)
        bad = httpx.post(f"{url}/score", content=b"[{", headers={"content-type": "application/json"}, timeout=10)
        assert bad.status_code == 400
        assert httpx.post(f"{url}/score", content=b"[]", timeout=10).status_code == 415  # not JSON by its type
        r = httpx.post(f"{url}/score", json=[{"candidate": "a dog", "references": ["a dog ran"]}], timeout=10)
        assert r.status_code == 200 and r.json()["records"][0]["scores"]["f1"] == pytest.approx(2 / 3)
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        proc.stderr.close()


def test_a_batch_scores_each_metric_only_on_the_requests_that_ask_for_it():
    seen: dict[str, list[str]] = {"f1": [], "em": []}
    metrics = []
    for name in ("f1", "em"):
        m = qascore.load(name)
        real = m.score

        def counted(records, _real=real, _name=name):
            seen[_name].extend(r.candidate for r in records)
            return _real(records)

        m.score = counted
        metrics.append((name, m))
    bodies = [{"records": [{"candidate": "a b", "references": ["a b"]}], "metrics": ["f1"]},
              {"records": [{"candidate": "a c", "references": ["a b"]}], "metrics": ["em"]}]
    with TestClient(create_app(metrics, max_wait_s=0.5)) as client:
        got = concurrent_posts(client, bodies)
        health = client.get("/health").json()
    assert got[0]["records"][0]["scores"] == {"f1": 1.0}
    assert got[1]["records"][0]["scores"] == {"em": 0.0}
    assert health["model_calls"] == 1
    assert seen == {"f1": ["a b"], "em": ["a c"]}


def test_answer_field_passes_through_the_server():
    rows = [{"id": "q1", "candidate": "where was ann born?", "references": ["where was ann born?"],
             "context": "Ann was born in Oslo.", "answer": "Oslo"}]
    with TestClient(app()) as client:
        got = client.post("/score", json={"records": rows}).json()
        bad = client.post("/score", json={"records": [{**rows[0], "answer": 5}]})
    assert got["records"][0]["answer"] == "Oslo" and got["records"][0]["context"] == rows[0]["context"]
    assert bad.status_code == 422 and "field 'answer'" in bad.json()["error"]
