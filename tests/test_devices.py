"""One device/dtype/threads rule for every model metric (issue 26): checks before any work, spec wins,
device never signed, dtype signed when not fp32. No model is loaded here."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

from qascore.cli import main
from qascore.cli.runtime_args import with_dtype
from qascore.metrics.registry import load, metric_class
from qascore.runtime import devices
from qascore.runtime.devices import DeviceError, check_device

MODEL_METRICS = ("ava", "square", "judge", "bertscore", "kpqa-bleu1", "kpqa-rougeL", "kpqa-bertscore",
                 "kp-rougeL", "qrelscore", "qrelscore-lrm", "qrelscore-grg", "ref-qrelscore")


@pytest.fixture
def no_cuda(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)


@pytest.fixture
def one_gpu(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 1)


@pytest.fixture(autouse=True)
def default_device_reset():
    yield
    devices.set_default_device(None)


def test_cpu_and_auto_always_exist() -> None:
    assert check_device("cpu") == "cpu"
    assert check_device("auto") is None and check_device(None) is None


@pytest.mark.parametrize("text", ["gpu", "cuda:x", "cpu:1", "cuda:", ""])
def test_a_word_that_is_not_a_device_is_refused(text: str) -> None:
    with pytest.raises(DeviceError, match="is not a device"):
        check_device(text)


def test_cuda_without_cuda_is_refused(no_cuda) -> None:
    with pytest.raises(DeviceError, match="CUDA is not available"):
        check_device("cuda")


def test_a_gpu_index_past_the_last_is_refused(one_gpu) -> None:
    assert check_device("cuda:0") == "cuda:0"
    with pytest.raises(DeviceError, match="has 1 CUDA device"):
        check_device("cuda:7")


def test_the_process_default_is_what_pick_device_returns(one_gpu) -> None:
    from qascore.runtime.encoder import pick_device

    devices.set_default_device("cuda:0")
    assert pick_device(None) == "cuda:0" and pick_device("cpu") == "cpu"
    devices.set_default_device("auto")
    assert pick_device(None) == "cuda"  # auto: CUDA when present


@pytest.mark.parametrize("name", MODEL_METRICS)
def test_every_model_metric_takes_device_and_dtype(name: str) -> None:
    specs = metric_class(name).option_specs()
    assert "device" in specs and not specs["device"].signed, name
    assert "dtype" in specs and specs["dtype"].signed, name


@pytest.mark.parametrize("name", ["ava", "square", "judge", "kpqa-rougeL", "qrelscore"])
def test_device_never_enters_the_signature_and_bf16_does(name: str) -> None:
    plain = load(name, dtype="fp32").signature   # exact (`square`'s default is bf16 on a CPU with bf16 units)
    assert load(name, device="cpu", dtype="fp32").signature == plain
    bf16 = load(name, dtype="bf16").signature
    assert bf16 != plain and "bf16" in bf16.replace("bfloat16", "bf16")


@pytest.mark.parametrize("spec", ["ava:device=cuda", "square:device=cuda:7", "judge:device=cuda", "bertscore:device=tpu"])
def test_a_metric_spec_naming_a_missing_device_fails_when_built(spec: str, no_cuda) -> None:
    with pytest.raises(ValueError, match="device"):
        load(spec)


def test_dtype_goes_into_model_metric_specs_the_spec_wins() -> None:
    got = with_dtype(["ava", "f1", "square:batch_size=8", "bertscore:dtype=fp32", "qrelscore:"], "bf16")
    assert got == ["ava:dtype=bf16", "f1", "square:batch_size=8,dtype=bf16", "bertscore:dtype=fp32",
                   "qrelscore:dtype=bf16"]
    assert with_dtype(["ava", "f1"], "fp32") == ["ava", "f1"]   # fp32 is their default: keys stay as given
    # `square`'s default is auto (bf16 on a CPU with bf16 units): --dtype fp32 asks for exact reads
    assert with_dtype(["ava", "square"], "fp32") == ["ava", "square:dtype=fp32"]
    assert with_dtype(["ava", "square"], None) == ["ava", "square"]   # no --dtype: each metric's own


ROWS = [{"id": "a", "question": "q", "candidate": "the cat", "references": ["the cat sat"]}]


@pytest.mark.parametrize("argv,says", [
    (["--device", "cuda"], "error: --device 'cuda': CUDA is not available on this machine"),
    (["--device", "gpu"], "error: --device 'gpu' is not a device"),
    (["-m", "ava:device=cuda"], "error: -m ava:device=cuda: 'cuda': CUDA is not available"),
])
def test_a_missing_device_is_one_line_exit_2_and_no_output(argv, says, tmp_path: Path, capsys, no_cuda) -> None:
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    out = tmp_path / "out.jsonl"
    assert main(["score", str(src), "-m", "f1", *argv, "-o", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and says in err[0], err
    assert not out.exists() and not list(tmp_path.glob("out.jsonl*"))


def test_threads_sets_torchs_threads(tmp_path: Path) -> None:
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    before = torch.get_num_threads()
    try:
        assert main(["score", str(src), "-m", "f1", "--threads", "1"]) == 0
        assert torch.get_num_threads() == 1
        assert main(["score", str(src), "-m", "f1", "--threads", "0"]) == 2
    finally:
        torch.set_num_threads(before)


def test_intra_op_threads_sets_them_inside_the_block_and_restores_them() -> None:
    from qascore.runtime.devices import intra_op_threads

    before = torch.get_num_threads()
    try:
        torch.set_num_threads(2)
        with pytest.raises(RuntimeError), intra_op_threads(1):
            assert torch.get_num_threads() == 1
            raise RuntimeError("an error inside the block")
        assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)


@pytest.mark.parametrize("command", [["meta", "--human", "h"], ["serve"]])
def test_meta_and_serve_check_the_device_before_any_work(command, tmp_path: Path, capsys, no_cuda) -> None:
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps({**ROWS[0], "h": 1.0}) + "\n")
    if command[0] == "serve":  # a port nothing listens on, so that the device is what is refused
        import socket

        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            command = [*command, "--port", str(sock.getsockname()[1])]
    argv = [command[0], *([str(src)] if command[0] == "meta" else []), *command[1:], "-m", "f1", "--device", "cuda"]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["qascore: error: --device 'cuda': CUDA is not available on this machine "
                   f"(torch {torch.__version__})"]
