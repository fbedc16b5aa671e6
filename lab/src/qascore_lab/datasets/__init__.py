"""Readers for the public benchmarks in ../shared/data (never copied into the repo).

`data_root()` is the one place that decides where the data lives: an explicit
`root=`, else the QASCORE_DATA environment variable, else `../shared/data`
next to the repository checkout.
"""

from __future__ import annotations

import os
from pathlib import Path

ENV_VAR = "QASCORE_DATA"
# lab/src/qascore_lab/datasets/__init__.py -> parents[4] is the repository root.
_REPO_DEFAULT = Path(__file__).resolve().parents[4].parent / "shared" / "data"


class DataNotFound(FileNotFoundError):
    """The benchmark data is not where we looked; the message says how to point us at it."""


def data_root(root: str | os.PathLike[str] | None = None) -> Path:
    """The folder that holds the benchmark folders (kpqa_human_eval/, wikiqa/, ...)."""
    if root is not None:
        path, how = Path(root), "--data-root (root= in Python)"
    elif os.environ.get(ENV_VAR):
        path, how = Path(os.environ[ENV_VAR]), f"${ENV_VAR}"
    else:
        path, how = _REPO_DEFAULT, "the default ../shared/data next to the repository"
    if not path.is_dir():
        raise DataNotFound(f"benchmark data folder {path} (from {how}) does not exist; "
                           f"give --data-root DIR (root= in Python) or set {ENV_VAR} to the folder holding "
                           f"kpqa_human_eval/ etc.")
    return path


def benchmark_dir(name: str, root: str | os.PathLike[str] | None = None) -> Path:
    """One benchmark's folder under the data root, with a clear error when it is absent."""
    path = data_root(root) / name
    if not path.is_dir():
        raise DataNotFound(f"benchmark folder {path} does not exist (data root {path.parent}); "
                           f"give --data-root DIR (root= in Python) or set {ENV_VAR}")
    return path


__all__ = ["ENV_VAR", "DataNotFound", "data_root", "benchmark_dir"]
