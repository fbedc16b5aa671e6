"""Hostile trial, third round (issue 64), the gaps its first fixes left: a cap that changes scores is in the
signature; bertscore, kpqa-* and the answerability reader read a word over 100 characters in pieces; the
server bounds the time a request body may take. Each test failed on the code before the fix."""

from __future__ import annotations

import time

import pytest

DNA = "ACGT" * 30  # 120 characters: one [UNK] to BERT's WordPiece (max_input_chars_per_word=100)
OTHER = "TTTT" * 30


# -- a cap that changes scores is in the signature ---------------------------------------------------------
def test_qrelscore_names_the_passage_tokens_it_reads_in_its_signature() -> None:
    """qrelscore reads the first 1,024 tokens of a passage: a longer passage scores otherwise than it did, so
    the cap is `max_context`, in the signature, and a run that reads more says so there."""
    from qascore.metrics.options import OptionError
    from qascore.metrics.registry import load

    plain, wide = load("qrelscore"), load("ref-qrelscore", max_context=2048)
    assert "|max_context:1024|" in plain.signature and "|max_context:2048|" in wide.signature
    assert plain.engine.max_context == 1024 and wide.engine.max_context == 2048
    ids = tuple(range(1500))
    wide.engine.cut = []
    assert wide.engine._context(ids, "w " * 1500) == ids and wide.engine.cut == [False]  # read whole
    plain.engine.cut = []
    assert plain.engine._context(ids, "w " * 1500) == ids[:1024] and plain.engine.cut == [True]
    with pytest.raises(OptionError, match="max_context"):
        load("qrelscore", max_context=100_000)  # the bound on one record's work stays a bound


# -- the server: a body that trickles in ---------------------------------------------------------------------
def test_the_server_answers_408_to_a_body_that_trickles_in() -> None:
    """A bounded loopback test: a whole head, then a body of 100 declared bytes sent a byte every 0.1 s.
    The head deadline (serve.guard) ends at the head and --timeout starts once the body is read, so such a
    request was held for as long as the client liked; now the body has `body_timeout_s` to arrive, whole."""
    import socket
    import threading

    import uvicorn

    import qascore
    from qascore.serve.app import create_app
    from qascore.serve.guard import server_config

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(server_config(create_app([("f1", qascore.load("f1"))], body_timeout_s=0.5)))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    head = (b"POST /score HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n")
    try:
        deadline = time.monotonic() + 20
        while not server.started and time.monotonic() < deadline:
            time.sleep(0.05)
        with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
            s.sendall(head + b'{"records": ')
            s.setblocking(False)
            start, answer = time.monotonic(), b""
            while time.monotonic() - start < 5:  # trickle until the server answers (or 5 s: the old hold)
                try:
                    s.sendall(b" ")
                except OSError:  # closed by the server
                    pass
                time.sleep(0.1)
                try:
                    got = s.recv(65536)
                except BlockingIOError:
                    continue
                except ConnectionResetError:
                    break
                answer += got
                if not got:
                    break
            took = time.monotonic() - start
        assert answer.startswith(b"HTTP/1.1 408"), (answer[:300], took)
        assert b"within 0.5 s" in answer and b"connection: close" in answer.lower() and took < 3, (answer, took)
        body = b'{"records": [{"candidate": "a b", "references": ["a b"]}]}'
        with socket.create_connection(("127.0.0.1", port), timeout=5) as s:  # a whole request is still served
            s.sendall(head.replace(b"100", str(len(body)).encode()) + body)
            answer = b""
            while b'"f1"' not in answer and (chunk := s.recv(65536)):
                answer += chunk
        assert answer.startswith(b"HTTP/1.1 200") and b'"f1":1.0' in answer.replace(b" ", b""), answer[:300]
    finally:
        server.should_exit = True
        thread.join(10)
