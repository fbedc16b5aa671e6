"""Quiet by default (issue 13 item 7): no third-party bars or source lines; truncation named by record id."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from test_encoder import MAX_LEN, tiny_bert  # noqa: F401  (session fixture)

SRC = str(Path(__file__).resolve().parent.parent / "src")


def test_a_truncated_record_is_one_warning_line_with_its_id(tiny_bert, tmp_path):  # noqa: F811
    # the tiny BERT's tokenizer stops at MAX_LEN (16) tokens; "the cat sat" * 20 is 60 words
    rows = [{"id": "short", "candidate": "the cat sat", "references": ["the cat sat"]},
            {"id": "long-one", "candidate": " ".join(["the cat sat"] * 20), "references": ["the cat"]}]
    p = tmp_path / "in.jsonl"
    p.write_text("".join(json.dumps(r) + "\n" for r in rows))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("QASCORE_", "HF_", "TRANSFORMERS_"))}
    env.update(PYTHONPATH=SRC, OMP_NUM_THREADS="1")
    done = subprocess.run([sys.executable, "-m", "qascore.cli", "score", str(p), "-m", f"bertscore:model={tiny_bert}",
                           "-o", str(tmp_path / "out.jsonl")], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines() == [
        f"wrote 2 records to {tmp_path / 'out.jsonl'}",
        f"qascore: warning: bertscore: 1 of 2 records had a text longer than it reads (the first {MAX_LEN} tokens "
        f"of each text); scored on that part, details.truncated marks them (ids: long-one; docs/long-inputs.md)"]
    out = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert [r["details"][f"bertscore:model={tiny_bert}"]["truncated"] for r in out] == [False, True]


class _Stop(Exception):
    pass


def _fake_gguf_load(*args, **kwargs):
    """What transformers does while dequantising: a plain tqdm over the tensors, on stderr."""
    import transformers.modeling_gguf_pytorch_utils as gguf_utils

    for _ in gguf_utils.tqdm(range(16), desc="Converting and de-quantizing GGUF tensors..."):
        pass
    raise _Stop  # the rest of the load (real weights) is not this test's business


def _first_gguf_load(tmp_path, monkeypatch, capfd) -> str:
    import pytest
    import transformers

    from qascore.runtime import causal_lm

    gguf = tmp_path / "m.gguf"
    gguf.write_bytes(b"GGUF not really")
    monkeypatch.setenv("QASCORE_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(transformers.AutoModelForCausalLM, "from_pretrained", _fake_gguf_load)
    capfd.readouterr()
    with pytest.raises(_Stop):
        causal_lm._gguf_local_copy(gguf)
    return capfd.readouterr().err


def test_gguf_dequantising_bar_stays_out_of_a_log(tmp_path, monkeypatch, capfd):
    from qascore import progress

    monkeypatch.delenv("QASCORE_PROGRESS", raising=False)
    monkeypatch.setattr(progress, "_cli", False)  # the command line's choice when stderr is not a terminal
    assert _first_gguf_load(tmp_path, monkeypatch, capfd) == ""
    # and the module's own tqdm is put back afterwards
    import transformers.modeling_gguf_pytorch_utils as gguf_utils
    assert getattr(gguf_utils.tqdm, "__name__", "") != "silent"


def test_gguf_dequantising_bar_shows_when_progress_is_asked_for(tmp_path, monkeypatch, capfd):
    monkeypatch.setenv("QASCORE_PROGRESS", "1")
    err = _first_gguf_load(tmp_path, monkeypatch, capfd)
    assert "Converting and de-quantizing GGUF tensors" in err and "16/16" in err
