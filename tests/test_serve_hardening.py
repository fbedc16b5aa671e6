"""The server never throws and never serves strangers (issues 23, 27): JSON required (415), a bearer token
when asked, a non-loopback bind only with a token or --insecure, no /docs unless asked, JSON errors for
every path and method, a request timeout, hostile records refused with 422 naming the field, and no
traceback in the log for a client's fault."""

from __future__ import annotations

import asyncio
import json
import logging
import time

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from fastapi.testclient import TestClient
from test_hostile_inputs import nested, run_cli

import qascore
from qascore.metrics.base import Metric
from qascore.serve.app import create_app

GOOD = {"records": [{"candidate": "cat sat", "references": ["cat sat"]}]}


def app(**kw):
    return create_app([("f1", qascore.load("f1"))], **kw)


def test_only_application_json_is_scored() -> None:
    with TestClient(app()) as client:
        for ctype in ("text/plain", "application/x-www-form-urlencoded", None):
            headers = {"content-type": ctype} if ctype else {}
            r = client.post("/score", content=json.dumps(GOOD).encode(), headers=headers)
            assert r.status_code == 415 and "application/json" in r.json()["error"], (ctype, r.text)
        r = client.post("/score", content=json.dumps(GOOD).encode(),
                        headers={"content-type": "application/json; charset=utf-8"})
        assert r.status_code == 200


def test_a_token_is_required_on_every_path_when_set() -> None:
    with TestClient(app(token="s3cret")) as client:
        for path, method in (("/score", "post"), ("/health", "get"), ("/metrics", "get")):
            r = getattr(client, method)(path, **({"json": GOOD} if method == "post" else {}))
            assert r.status_code == 401 and "Authorization: Bearer" in r.json()["error"], path
            r = getattr(client, method)(path, headers={"Authorization": "Bearer wrong"},
                                        **({"json": GOOD} if method == "post" else {}))
            assert r.status_code == 401
        r = client.post("/score", json=GOOD, headers={"Authorization": "Bearer s3cret"})
        assert r.status_code == 200 and r.json()["records"][0]["scores"]["f1"] == 1.0


def test_docs_are_off_unless_asked_and_unknown_paths_answer_json() -> None:
    with TestClient(app()) as client:
        for path in ("/docs", "/openapi.json", "/redoc", "/nope"):
            r = client.get(path)
            assert r.status_code == 404 and "error" in r.json(), path
        r = client.get("/score")
        assert r.status_code == 405 and set(r.json()) == {"error"}
    with TestClient(app(docs=True)) as client:
        assert client.get("/openapi.json").status_code == 200


def test_hostile_records_get_422_naming_the_field_and_the_server_lives_on() -> None:
    deep = {"records": [{"candidate": "a", "references": ["a"], "extra": nested(600)}]}
    surrogate = '{"records": [{"candidate": "\\ud800 x", "references": ["a"]}]}'
    with TestClient(app()) as client:
        r = client.post("/score", json=deep)
        assert r.status_code == 422 and r.json()["error"].startswith("request:1: field 'extra': nested deeper")
        r = client.post("/score", content=surrogate.encode(), headers={"content-type": "application/json"})
        assert r.status_code == 422 and r.json()["error"].startswith("request:1: field 'candidate': contains a lone")
        assert client.get("/health").status_code == 200


class Slow(Metric):
    name = "slow"

    def _score(self, records):
        time.sleep(2.0)
        return [1.0] * len(records), {}


def test_a_request_that_runs_past_the_timeout_gets_504() -> None:
    with TestClient(create_app([("slow", Slow())], request_timeout_s=0.3)) as client:
        r = client.post("/score", json=GOOD)
        assert r.status_code == 504 and "0.3 s" in r.json()["error"] and "--timeout" in r.json()["error"]
        assert client.get("/health").status_code == 200


def test_a_client_that_disconnects_mid_body_leaves_one_line_not_a_traceback(caplog, capsys) -> None:
    from starlette.requests import ClientDisconnect  # noqa: F401  (what the old code let escape)

    application = app()
    sent: list[dict] = []

    async def go() -> None:
        messages = [{"type": "http.request", "body": b'{"records": [', "more_body": True},
                    {"type": "http.disconnect"}]

        async def receive() -> dict:
            return messages.pop(0) if messages else {"type": "http.disconnect"}

        async def send(message: dict) -> None:
            sent.append(message)

        scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST",
                 "scheme": "http", "path": "/score", "raw_path": b"/score", "query_string": b"",
                 "root_path": "", "headers": [(b"content-type", b"application/json")],
                 "client": ("127.0.0.1", 5000), "server": ("127.0.0.1", 8000)}
        await application(scope, receive, send)

    with caplog.at_level(logging.DEBUG):
        asyncio.run(go())  # the old app raised ClientDisconnect out of here (uvicorn logged its traceback)
    err = capsys.readouterr().err
    assert "Traceback" not in err and "Traceback" not in caplog.text
    assert "client disconnected" in err


def test_serve_refuses_a_public_bind_without_a_token(monkeypatch) -> None:
    monkeypatch.delenv("QASCORE_TOKEN", raising=False)
    rc, _, err = run_cli(["serve", "-m", "f1", "--host", "0.0.0.0"])
    assert rc == 2 and "--token" in err and "--insecure" in err and len(err.strip().splitlines()) == 1, err


def test_serve_prints_its_url_when_it_starts(tmp_path) -> None:
    import os
    import socket
    import subprocess
    import sys
    import urllib.request
    from pathlib import Path

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent / "src"), "OMP_NUM_THREADS": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "qascore.cli", "serve", "-m", "f1", "--port", str(port)],
                            env=env, stderr=subprocess.PIPE, text=True)
    try:
        line = ""
        while "http://" not in line:
            line = proc.stderr.readline()
            assert line, "the server ended before printing its URL"
        assert f"on http://127.0.0.1:{port} (POST /score" in line
        for _ in range(100):
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2) as r:
                    assert json.loads(r.read())["status"] == "ok"
                break
            except OSError:
                time.sleep(0.1)
        else:
            raise AssertionError("no /health answer")
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        proc.stderr.close()
