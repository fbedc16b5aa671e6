"""Model options are checked while the metric is built, before any record is read (issue 27): each bad
path is one `-m NAME:key=value: PATH: ...; expected ...` line and exit 2, whatever the input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_hostile_inputs import run_cli

from qascore.runtime.defaults import ENCODER, RESOURCES


def fake_delta(path: Path, meta: dict) -> Path:
    import torch
    from safetensors.torch import save_file

    save_file({"w": torch.zeros(2)}, str(path), metadata={"qascore": json.dumps(meta)})
    return path


@pytest.fixture()
def paths(tmp_path: Path) -> dict[str, str]:
    text = tmp_path / "notes.txt"
    text.write_text("not a model\n")
    folder = tmp_path / "folder"
    folder.mkdir()
    (tmp_path / "list.json").write_text("[1, 2]\n")
    other_base = fake_delta(tmp_path / "other.safetensors", {
        "base_hash": "000000000000", "spec": {"encoder": ENCODER, "layout": "A1((r,q+t))", "max_len": 128}})
    return {"text": str(text), "folder": str(folder), "json": str(tmp_path / "list.json"), "missing": str(tmp_path / "nope.safetensors"),
            "tagger": str(RESOURCES / "kpqa" / "kpqa.safetensors"), "ava": str(RESOURCES / "ava" / "ava.safetensors"),
            "other": str(other_base)}


CASES = [
    ("ava:model={text}", "{text}: is not a safetensors file; expected a verifier delta"),
    ("ava:model={folder}", "{folder}: is a folder, not a file; expected a verifier delta"),
    ("ava:model={missing}", "{missing}: no such file; expected a verifier delta"),
    ("ava:model=", "is empty; expected a verifier delta"),
    ("ava:model={tagger}", "{tagger}: is a safetensors file without verifier metadata (it is a keyphrase tagger)"),
    ("ava:model={other}", "{other}: was trained on base model 000000000000, but " + ENCODER + " here is "),
    ("square:model={text}", "{text}: is not a safetensors file; expected a pooled-head card"),
    ("square:model={json}", "{json}: is JSON but not an object; expected a pooled-head card"),
    ("judge:model={text}", "{text}: is not JSON; expected a judge card"),
    ("judge:model=", "is empty; expected a judge card"),
    ("kpqa-rougeL:tagger={ava}", "{ava}: is a safetensors file without keyphrase-tagger metadata (it is a verifier"),
    ("kpqa-rougeL:tagger={folder}", "{folder}: is a folder holding 0 .safetensors files, not one"),
    ("bertscore:model={missing}", "{missing}: no such file or folder; expected a model folder"),
    ("bertscore:model={folder}", "{folder}: is a folder without config.json; expected a model folder"),
    ("bertscore:model={text}", "{text}: is a file, not a model folder"),
    ("qrelscore:lm={folder}", "{folder}: is a folder without config.json; expected a causal LM folder"),
]


@pytest.mark.parametrize("spec, says", CASES)
def test_a_bad_model_path_is_one_line_before_any_record_is_read(paths, tmp_path: Path, spec: str, says: str) -> None:
    spec, says = spec.format(**paths), says.format(**paths)
    rc, out, err = run_cli(["score", str(tmp_path / "input-not-read.jsonl"), "-m", spec])
    assert rc == 2 and out == "", err
    assert len(err.strip().splitlines()) == 1, err
    assert err.startswith(f"qascore: error: -m {spec.split(':')[0]}:{spec.split(':', 1)[1].split('=')[0]}="), err
    assert says in err and "input-not-read" not in err, err


def test_the_shipped_and_explicit_good_paths_still_load(paths) -> None:
    import qascore

    assert "ava@" in qascore.load("ava", model=paths["ava"]).signature.replace("model:ava@", "ava@")
    qascore.load("kpqa-rougeL", tagger=paths["tagger"])
    for name in ("kpqa", "kp", *(p.stem for p in (RESOURCES / "kpqa").glob("*.safetensors"))):
        qascore.load("kpqa-rougeL", tagger=name)  # every shipped tagger by name (judge names one)
