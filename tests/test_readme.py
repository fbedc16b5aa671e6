"""What a new user reads is true: the install commands of the README and the Makefile agree and select
PyTorch's CPU build explicitly; the README's `qascore` commands run as written on the bundled examples."""
from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
README = (REPO / "README.md").read_text(encoding="utf-8")
MAKEFILE = (REPO / "Makefile").read_text(encoding="utf-8")


def _make_var(name: str) -> str:
    m = re.search(rf"^{name} \?= (\S+)$", MAKEFILE, re.M)
    assert m, f"Makefile has no `{name} ?=` default"
    return m.group(1)


def test_makefile_installs_the_cpu_build_of_torch_explicitly_with_an_override():
    spec, index = _make_var("TORCH_SPEC"), _make_var("TORCH_INDEX")
    assert spec == "torch==2.13.0+cpu"            # the local version pins the CPU build (PyPI's Linux torch is CUDA)
    assert index == "https://download.pytorch.org/whl/cpu"
    line = next(line for line in MAKEFILE.splitlines() if "$(TORCH_SPEC)" in line and "pip install" in line)
    assert "--extra-index-url '$(TORCH_INDEX)'" in line
    assert "--retries 1" in line                  # an unreachable index costs seconds, not minutes of retries
    # the torch line runs before the package install, so `pip install -e .` finds torch satisfied
    assert MAKEFILE.index("$(TORCH_SPEC)' --extra") < MAKEFILE.index("pip install -q -e '.[")


def test_readme_install_command_is_the_makefiles():
    spec, index = _make_var("TORCH_SPEC"), _make_var("TORCH_INDEX")
    assert f"pip install {spec} --extra-index-url {index}" in README
    assert "pip install torch==2.13.0 " not in README     # the old command that resolves to CUDA on Linux
    assert "TORCH_SPEC=" in README and "TORCH_INDEX=" in README   # the override is documented
    assert "No matching distribution found for torch==2.13.0+cpu" in README  # what happens offline with no wheel


def test_serve_extra_is_the_server_only_and_httpx_comes_with_the_tests():
    tomllib = __import__("pytest").importorskip("tomllib")
    extras = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    names = {k: {re.split(r"[<>=\[ ]", d)[0] for d in v} for k, v in extras.items()}
    assert names["serve"] == {"fastapi", "uvicorn"}
    assert "httpx" in names["test"]
    # nothing the product runs imports httpx (only the tests and the lab's load test do)
    assert not [p for p in (REPO / "src" / "qascore").rglob("*.py") if "httpx" in p.read_text(encoding="utf-8")]
