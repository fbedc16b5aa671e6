"""Model options checked while the metric is built, before any record is read (issue 27).

Why: `-m ava:model=<a text file>` used to fail only after the whole input was
read, with an internal error from the safetensors reader that named no path;
a directory gave `No such device`, a judge card that was not JSON a bare
`Expecting value`, and an empty `model=` silently meant the shipped model.
Each model option now names its path and what was expected, as one
OptionError (the command line's `-m NAME:key=value: ...` line, exit 2).
"""

from __future__ import annotations

import functools
import json
import os
import re
import stat
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from qascore.metrics.options import Option, OptionError
from qascore.runtime.model_values import probability_problem, verifier_problem

VERIFIER, JUDGE, TAGGER, ENCODER, CAUSAL_LM, READER = "verifier", "judge", "tagger", "encoder", "causal-lm", "reader"
SQUARE = "square"
WHAT = {VERIFIER: "a verifier delta (.safetensors written by `qascore-lab train ava` / `train square`)",
        SQUARE: "a pooled-head card (JSON written by `qascore-lab train square-head`) or a single-input delta "
                "(.safetensors written by `qascore-lab train verifier --model square`)",
        JUDGE: "a judge card (JSON written by `qascore-lab train judge`)",
        TAGGER: "a keyphrase tagger delta (.safetensors written by `qascore-lab train kpqa`) or a folder holding one",
        ENCODER: "a model folder (config.json and weights), a Hugging Face id or a pkg: spec",
        CAUSAL_LM: "a causal LM folder (config.json and weights), a .gguf file, a Hugging Face id or a pkg: spec",
        READER: "a QA reader delta (.safetensors written by `qascore-lab train reader`)"}


def kind_of(metric: str, option: str) -> str | None:
    """What a metric's option names, if it names a model."""
    if option == "tagger":
        return TAGGER
    if option == "model":
        if metric == "square":
            return SQUARE
        if metric == "ava" or metric.startswith("ava-"):
            return VERIFIER
        if metric == "judge":
            return JUDGE
        if metric == "answerability":
            return READER
        if metric.endswith("bertscore"):
            return ENCODER
    if option == "encoder":
        return ENCODER
    if option == "lm":
        return CAUSAL_LM
    return None


def check_model_options(metric: str, specs: Mapping[str, Option], options: Mapping[str, Any]) -> None:
    """Raise an OptionError naming the path and what was expected for each model option that cannot be one."""
    for key, value in options.items():
        kind = kind_of(metric, key)
        if kind is None or value is None or not isinstance(value, str) or key not in specs:
            continue
        if not value.strip():
            raise OptionError(metric, key, value, f"is empty; expected {WHAT[kind]} (leave the option out for "
                                                  f"the shipped model)")
        if value == specs[key].default or (kind == TAGGER and value in shipped_taggers()):
            continue
        problem = _pkg_problem(value) if value.startswith("pkg:") else _problem(kind, value)
        if problem:
            raise OptionError(metric, key, value, f"{value}: {problem}; expected {WHAT[kind]}")


def shipped_taggers() -> set[str]:
    """Names a `tagger=` option may give for a delta shipped in the package (kpqa, kp, ...)."""
    from qascore.runtime.defaults import RESOURCES

    return {p.stem for p in (RESOURCES / "kpqa").glob("*.safetensors")}


def path_problem(kind: str, value: str) -> str | None:
    """What is wrong with `value` as a path of this kind (`TAGGER`, `VERIFIER`, ...), or None; for callers
    outside a metric's options (`explain --tagger`). The shipped names (`kpqa`, `kp`) are fine."""
    if kind == TAGGER and value in shipped_taggers():
        return None
    return _problem(kind, value)


_SPECIAL = ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a character device"),
            (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def _special(path: Path) -> str | None:
    """'is a FIFO (named pipe), not a regular file' etc.: reading one could block forever (issue 42)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return None
    kind = next((name for test, name in _SPECIAL if test(mode)), None)
    return f"is {kind}, not a regular file" if kind else None


_PKG = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")


def _pkg_problem(value: str) -> str | None:
    """A `pkg:PACKAGE/PATH` spec: a package name and a path inside it (no `..`), resolvable here."""
    pkg, _, inner = value[4:].partition("/")
    if not _PKG.fullmatch(pkg) or ".." in Path(inner).parts or inner.startswith("/"):
        return "is not a pkg: spec (pkg:PACKAGE/PATH, a Python package and a path inside it)"
    from qascore.runtime.defaults import resolve

    try:
        resolve(value)
    except (FileNotFoundError, ValueError, ImportError) as err:
        return str(err)
    return None


def _hub_problem(value: str) -> str | None:
    """A Hugging Face id: usable only when this machine's cache holds it (qascore never downloads)."""
    try:
        from huggingface_hub import try_to_load_from_cache

        found = try_to_load_from_cache(value, "config.json")
    except (ImportError, ValueError):  # no hub library, or not a valid repo id
        found = None
    if isinstance(found, str):
        return None
    return ("is no local file or folder, and no Hugging Face model in this machine's cache; qascore does not "
            "download models (give a local folder, or put the model in the cache first)")


def _problem(kind: str, value: str) -> str | None:
    path = Path(value).expanduser()
    special = _special(path)
    if special:
        return special
    if kind in (ENCODER, CAUSAL_LM):
        if not path.exists():
            looks_local = value.startswith(("/", "./", "../", "~")) or os.sep in value and path.parent.exists()
            return "no such file or folder" if looks_local else _hub_problem(value)
        if path.is_file():
            return None if kind == CAUSAL_LM and path.suffix == ".gguf" else "is a file, not a model folder"
        if not (path / "config.json").is_file():
            return "is a folder without config.json"
        return None
    if not path.exists():
        return "no such file"
    if kind == TAGGER and path.is_dir():
        found = sorted(path.glob("*.safetensors"))
        if len(found) != 1:
            return f"is a folder holding {len(found)} .safetensors files, not one"
        path = found[0]
        special = _special(path)
        if special:
            return f"holds {path.name}, which {special}"
    if path.is_dir():
        return "is a folder, not a file"
    if kind == SQUARE:
        kind = JUDGE if path.suffix == ".json" else VERIFIER
    if kind == JUDGE:
        try:
            card = json.loads(path.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, ValueError):
            return "is not JSON"
        except OSError as err:  # /proc/self/mem and the like: say which file, and why
            return f"cannot be read ({err.strerror or err})"
        if not isinstance(card, dict):
            return "is JSON but not an object"
        return probability_problem("threshold", card["threshold"]) if "threshold" in card else None
    try:
        meta = _safetensors_meta(path)
    except OSError as err:
        return f"cannot be read ({err.strerror or err})"
    if meta is None:
        return "is not a safetensors file"
    if kind == VERIFIER:
        spec = meta.get("spec")
        if not isinstance(spec, dict) or "layout" not in spec or "encoder" not in spec:
            return f"is a safetensors file without verifier metadata ({_what_it_is(meta)})"
        return verifier_problem(meta) or _base_problem(meta, str(spec["encoder"]))
    if kind == READER:
        spec = meta.get("spec")
        if not isinstance(spec, dict) or "stride" not in spec or "encoder" not in spec:
            return f"is a safetensors file without reader metadata ({_what_it_is(meta)})"
        return _base_problem(meta, str(spec["encoder"]))
    if meta.get("kind") != "kpqa-tagger":
        return f"is a safetensors file without keyphrase-tagger metadata ({_what_it_is(meta)})"
    return _base_problem(meta, str(meta.get("encoder", "")))


def _safetensors_meta(path: Path) -> dict[str, Any] | None:
    """The qascore metadata of a safetensors file, or None when it is not one (read from its header only)."""
    with path.open("rb") as fh:  # an OSError (a file that cannot be read) goes to the caller, who names it
        size = int.from_bytes(fh.read(8), "little")
        if not 2 <= size <= 100_000_000 or size > path.stat().st_size - 8:
            return None
        try:
            header = json.loads(fh.read(size))
        except ValueError:
            return None
    if not isinstance(header, dict):
        return None
    try:
        meta = json.loads(header.get("__metadata__", {}).get("qascore", "{}"))
    except (AttributeError, TypeError, ValueError):
        return {}
    return meta if isinstance(meta, dict) else {}


def _what_it_is(meta: dict[str, Any]) -> str:
    if meta.get("kind") == "kpqa-tagger":
        return "it is a keyphrase tagger"
    if isinstance(meta.get("spec"), dict):
        return "it is a QA reader delta" if "stride" in meta["spec"] else "it is a verifier delta"
    return "not written by qascore"


def _base_problem(meta: dict[str, Any], encoder: str) -> str | None:
    """A delta made for another base model than the one its metadata names and this machine has."""
    want = meta.get("base_hash")
    if not want or not encoder:
        return None
    try:
        from qascore.runtime.defaults import resolve

        folder = resolve(encoder)
    except (FileNotFoundError, ValueError):
        return None  # the base itself is missing: its loader says how to install it
    have = _base_hash(folder) if Path(folder).is_dir() else None
    if have and have not in ("unknown", want):
        return f"was trained on base model {want}, but {encoder} here is {have}"
    return None


@functools.lru_cache(maxsize=8)
def _base_hash(folder: str) -> str:
    from qascore.runtime.delta import base_hash

    return base_hash(folder)
