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


# -- a word over 100 characters: bertscore, kpqa-*, the answerability reader -----------------------------------
def test_split_long_words_cuts_as_the_verifiers_read_and_maps_spans_back() -> None:
    from qascore.runtime.encoder import load_tokenizer
    from qascore.runtime.windows import original_span, read_words, split_long_words

    tok = load_tokenizer()
    text = f"the  {DNA}.\nend"
    read, added = split_long_words(tok, text)
    assert read == f"the  {DNA[:100]} {DNA[100:]}.\nend" and added == [105]
    assert read.split() == read_words(tok, text, 10)[0]  # the verifiers' cut (read_words), not a second rule
    assert split_long_words(tok, "short words only") == ("short words only", [])
    start = read.index(DNA[100:])
    assert text[slice(*original_span(start, start + 20, added))] == DNA[100:]  # the piece after the space


def test_bertscore_reads_a_long_word_instead_of_matching_unk_to_unk() -> None:
    """Two different 120-letter sequences scored F1 1.000 (one [UNK] each, matched to one another); the same
    one scores 1.0 and another 0.164 now (MiniLM-L6, layer 6)."""
    from qascore.metrics.registry import load
    from qascore.records import Record

    q = "What is the sequence?"
    same = Record(question=q, candidate=DNA, references=[DNA])
    other = Record(question=q, candidate=OTHER, references=[DNA])
    for name in ("bertscore", "kpqa-bertscore"):
        res = load(name).score([same, other])
        assert res.scores[0] == pytest.approx(1.0, abs=1e-5), name
        assert res.scores[1] < 0.5, (name, res.scores)  # 0.164 / 0.169; was 1.000 / 1.000
    enc = load("bertscore").encoder
    tokens = enc.tokenize([DNA])[0].tokens
    assert "[UNK]" not in tokens and tokens[1:4] == ["ac", "##gt", "##ac"] and enc.tokenize([DNA])[0].text == DNA


def test_the_kpqa_tagger_weighs_a_long_word_by_its_pieces() -> None:
    """kpqa-bleu1 / kpqa-rougeL hand the tagger words: a 120-letter one was one [UNK], so every long word weighed
    the same (and a long word in the question was [UNK] beside the answer)."""
    from qascore.weights.kpw import KpwWeighter, question_pieces

    kpw = KpwWeighter()
    tagger = kpw.tagger
    unk = tagger.tokenizer.unk_token_id
    pieces = tagger.pieces(["the", DNA, OTHER])
    assert unk not in pieces[1] and len(pieces[1]) == 60 and pieces[1] != pieces[2]  # 'ac', '##gt', ... 10 more
    assert unk not in question_pieces(tagger.tokenizer, f"Which gene has {DNA}?")
    q = "What is the sequence?"
    w_dna, w_other = kpw.weigh(q, ["the", "sequence", DNA]), kpw.weigh(q, ["the", "sequence", OTHER])
    assert w_dna[2] != pytest.approx(w_other[2], abs=1e-3)  # was one [UNK]'s weight for both


def test_the_answerability_reader_reads_a_long_word_and_answers_with_all_of_it() -> None:
    """The reader read a 120-letter sequence in the question and in the passage as one [UNK] each: 'Which gene
    has the sequence A?' could not tell A from B (0.241). Now it reads the pieces, and a span over any of them
    is the whole sequence, so an answer that is the sequence is still found whole (its spans are at most
    30 WordPieces; the sequence is 60)."""
    from qascore.metrics.registry import load
    from qascore.records import Record
    from qascore.runtime.encoder import load_tokenizer
    from qascore.runtime.reader import ReaderSpec, make_windows

    tok = load_tokenizer()
    ctx = f"The first gene, named Alpha, has the sequence {DNA}. The second gene, named Beta, has {OTHER}."
    win = make_windows(tok, [f"Which gene has the sequence {DNA}?"], [ctx], ReaderSpec(encoder="x"))
    assert tok.unk_token_id not in win.input_ids[0]
    spans = {ctx[s:e] for s, e in win.offsets[0] if s >= 0}
    assert DNA in spans and OTHER in spans and f"{DNA}." not in spans  # each piece stands for its whole run
    with pytest.warns(UserWarning, match="answerability: 1 of 2 records"):  # 65 question pieces: over 64, flagged
        res = load("answerability").score([
            Record(candidate=f"Which gene has the sequence {DNA}?", context=ctx, answer="Alpha"),
            Record(candidate="What is the sequence of the gene named Alpha?", context=ctx, answer=DNA)])
    assert res.details["truncated"] == [True, False]
    assert res.details["span"] == ["Alpha", DNA] and res.details["answer_f1"] == [1.0, 1.0]
    assert res.scores[0] > 0.5  # 0.972; was 0.241 with [UNK]


def test_qrelscore_lrm_reads_a_long_word_instead_of_matching_unk_to_unk() -> None:
    """LRM's encoder read a 120-letter sequence as one [UNK] in the question and in the passage, so a passage about
    another sequence read exactly as one about the question's: the two now differ."""
    from qascore.metrics.registry import load

    engine = load("qrelscore").engine
    q = f"What does {DNA} encode?"
    same, other = f"{DNA} encodes a small protein.", f"{OTHER} encodes a small protein."
    out = engine.lrm_layerwise([q, q], [same, other])
    assert not (out[0] == out[1]).all()  # bit-equal before: both passages were "[UNK] encodes a small protein."
