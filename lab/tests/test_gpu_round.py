"""lab/scripts/gpu_round.sh rehearsed on the CPU at tiny scale (SMALL=1 DEVICE=cpu STEPS=reader), as the device
runs it: from its packed data to the files it brings back, without touching the checkout's resources."""

from __future__ import annotations

import gzip
import hashlib
import json
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from test_reader_train import write_root

REPO = Path(__file__).parents[2]
SCRIPT = REPO / "lab" / "scripts" / "gpu_round.sh"
SHIPPED = REPO / "src" / "qascore" / "resources" / "reader" / "reader.safetensors"


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.exists() else "absent"


def rehearsal_env(tmp_path: Path, out: Path, **steps: str) -> dict[str, str]:
    """The environment of a CPU rehearsal (SMALL, DEVICE=cpu, every folder under tmp_path) plus `steps`."""
    return {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "PY": sys.executable, "SMALL": "1", "DEVICE": "cpu",
            "PACK": str(tmp_path / "pack"), "CARRY": str(tmp_path / "carry"), "STASH": str(tmp_path / "stash"),
            "SITE": str(tmp_path / "site"), "W": str(tmp_path / "w"), "OUT": str(out), "DATA": str(tmp_path / "data"),
            "OMP_NUM_THREADS": "2", "OMP_WAIT_POLICY": "PASSIVE", **steps}


def _gzip(src: Path, dest: Path) -> None:
    with src.open("rb") as fh, gzip.open(dest, "wb") as out:
        shutil.copyfileobj(fh, out)


@pytest.mark.slow
def test_reader_round_rehearsed_on_the_cpu(tmp_path: Path) -> None:
    """The packed SQuAD files (as gpu_pack.py and the docs lay them out) in, the reader trained fully (rank 0)
    for one epoch on a few questions, its delta back in parts under the device's 16 MiB file limit with a
    manifest that joins into a reader that loads, its report in logs.tgz with the held-out figures and the
    rule checks (without the judge's rules); QGEval's passage left out of training; the shipped reader
    untouched."""
    from qascore.runtime.reader import LOGISTIC, RULES, Reader

    root = tmp_path / "root"
    write_root(root)
    data = tmp_path / "pack" / "data"
    data.mkdir(parents=True)
    shutil.copy(root / "squad_v1_train" / "train-v1.1.jsonl.gz", data)
    _gzip(root / "squad_v2_dev" / "dev-v2.0.json", data / "dev-v2.0.json.gz")
    _gzip(root / "qgeval_squad" / "original_data.csv", data / "original_data.csv.gz")
    (tmp_path / "carry").mkdir()
    before = _sha(SHIPPED)
    out = tmp_path / "out"
    env = rehearsal_env(tmp_path, out, STEPS="reader")
    run = subprocess.run(["bash", str(SCRIPT)], env=env, capture_output=True, text=True, timeout=1200)
    log = run.stdout + run.stderr
    assert run.returncode == 0 and "end reader: exit 0" in log, log
    assert _sha(SHIPPED) == before
    manifest = json.loads((out / "reader.json").read_text())
    assert manifest["parts"] and all(p["bytes"] <= 15 * 2**20 for p in manifest["parts"])
    assert {f.name for f in out.iterdir()} == {"reader.json", "logs.tgz", *(p["file"] for p in manifest["parts"])}
    joined = subprocess.run([sys.executable, str(REPO / "lab" / "scripts" / "gpu_carry.py"), "join", "reader",
                             "--from", str(out), "--to", str(tmp_path / "reader.safetensors")],
                            capture_output=True, text=True, timeout=120)
    assert joined.returncode == 0, joined.stderr
    reader = Reader.load(tmp_path / "reader.safetensors")
    assert reader.spec.lora_rank == 0 and reader.spec.max_len == 128
    assert reader.rule in (*RULES, LOGISTIC)
    with tarfile.open(out / "logs.tgz") as tar:
        report = json.load(tar.extractfile("logs/reader/report.json"))  # type: ignore[arg-type]
    m = report["metrics"]
    assert report["data"]["qgeval_passages_dropped"] == 1
    assert m["squad2_dev_half"]["questions"] > 0 and m["qg_check"]["counts"]["own"] > 0
    assert "expected_f1" in m["qg_check"] and "squad11_heldout" in m   # 6 articles at 5%: none held out
    assert "judge_expected" not in m["qg_check"]   # --no-judge-rules: the judge's rules are checked on a CPU after
    assert m["qg_check"]["chosen"] == reader.rule


@pytest.mark.slow
def test_verifier_round_rehearsed_on_the_cpu(tmp_path: Path) -> None:
    """STEPS=ava as issue 62's round runs it (docs/devices.md): the packed corpus and probe draw in, the
    verifier trained from AVA_INIT with AVA_ARGS, its delta back in $OUT; the shipped verifier untouched."""
    from test_verifier import toy_corpus

    shipped = REPO / "src" / "qascore" / "resources" / "ava" / "ava.safetensors"
    corpus = toy_corpus(tmp_path)
    data = tmp_path / "pack" / "data"
    (data / "vd3m").mkdir(parents=True)
    (data / "probes").mkdir()
    rows = (corpus / "train.jsonl").read_text(encoding="utf-8")
    for split in ("train", "dev", "test"):
        with gzip.open(data / "vd3m" / f"{split}.jsonl.gz", "wt", encoding="utf-8") as fh:
            fh.write(rows)
        with gzip.open(data / "probes" / f"{split}.jsonl.gz", "wt", encoding="utf-8") as fh:
            fh.write("".join(json.dumps(dict(json.loads(r), family="toy")) + "\n" for r in rows.splitlines()))
    shutil.copy(corpus / "report.json", data / "vd3m" / "report.json")
    (tmp_path / "carry").mkdir()
    before = _sha(shipped)
    out = tmp_path / "out"
    env = rehearsal_env(tmp_path, out, STEPS="ava", AVA_INIT=str(shipped),
                        AVA_ARGS="--lora-rank 64 --epochs 2 --lr 1e-4 --batch-size 16")
    run = subprocess.run(["bash", str(SCRIPT)], env=env, capture_output=True, text=True, timeout=1200)
    log = run.stdout + run.stderr
    assert run.returncode == 0 and "end ava: exit 0" in log, log
    assert _sha(shipped) == before
    assert (out / "ava.safetensors").is_file()
    with tarfile.open(out / "logs.tgz") as tar:
        trained = tar.extractfile("logs/ava.log").read().decode()  # type: ignore[union-attr]
    assert f"initialised from {shipped}" in trained
    assert "epoch 2:" in trained, trained   # AVA_ARGS reached the command


def _asserted_rows(split: str) -> list[dict[str, object]]:
    """A few `train asserted-data` rows written by hand: composed texts that assert one of two capitals, real
    answers, and an answer that asserts nothing."""
    rows: list[dict[str, object]] = []
    for i, (gold, other) in enumerate([("Canberra", "Sydney"), ("Ottawa", "Toronto"), ("Bern", "Zurich")]):
        q = f"What is the capital of country {i}?"
        for text, asserted, family, source in [
            (f"It is {gold}, not {other}.", gold, "contrast", "evouna"),
            (f"Some say {other}, but the answer is {gold}.", gold, "concession", "squad"),
            (f"The capital is {gold}.", gold, "real", "evouna"),
            (f"{other} is the capital.", other, "real", "squad"),
            ("I cannot say.", None, "refusal", "evouna"),
        ]:
            start = None if asserted is None else text.index(asserted)
            rows.append({"id": f"{split}-{i}-{family}-{source}", "question": q, "text": text, "start": start,
                         "end": None if start is None else start + len(str(asserted)), "references": [gold],
                         "label": int(asserted == gold), "family": family, "source": source, "split": split})
    return rows


@pytest.mark.slow
def test_asserted_round_rehearsed_on_the_cpu(tmp_path: Path) -> None:
    """STEPS=asserted (issue 62, docs/devices.md): the packed asserted-data in, one `train asserted` per
    ASSERTED_RUNS entry with its own arguments, each delta back as asserted-NAME.safetensors that loads as a
    reader, each report (every dev row) in logs.tgz; the shipped asserted reader untouched."""
    from qascore.runtime.reader import Reader

    shipped = REPO / "src" / "qascore" / "resources" / "asserted" / "asserted.safetensors"
    data = tmp_path / "pack" / "data" / "asserted-data"
    data.mkdir(parents=True)
    for split in ("train", "dev"):
        with gzip.open(data / f"{split}.jsonl.gz", "wt", encoding="utf-8") as fh:
            fh.write("".join(json.dumps(r) + "\n" for r in _asserted_rows(split)))
    (tmp_path / "carry").mkdir()
    before = _sha(shipped)
    out = tmp_path / "out"
    env = rehearsal_env(tmp_path, out, STEPS="asserted", ASSERTED_RUNS="a=--epochs 1;b=--lr 1e-4")
    run = subprocess.run(["bash", str(SCRIPT)], env=env, capture_output=True, text=True, timeout=1200)
    log = run.stdout + run.stderr
    assert run.returncode == 0 and "end asserted-a: exit 0" in log and "end asserted-b: exit 0" in log, log
    assert _sha(shipped) == before
    assert {f.name for f in out.iterdir()} == {"asserted-a.safetensors", "asserted-b.safetensors", "logs.tgz"}
    assert Reader.load(out / "asserted-b.safetensors").spec.max_len == 128
    with tarfile.open(out / "logs.tgz") as tar:
        reports = {n: json.load(tar.extractfile(f"logs/asserted-{n}/report.json"))  # type: ignore[arg-type]
                   for n in "ab"}
    assert reports["a"]["dev"]["all"]["rows"] == 15 and reports["b"]["command"].endswith("--lr 1e-4 " + (
        "--mix composed=24,real-evouna=12,real-squad=12 --dev-rows 24 --epochs 1 --max-len 128 --stride 32"))
