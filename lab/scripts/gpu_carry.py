"""Carry files larger than one device call takes (64 MiB, the working tree included) over several calls.

On the CPU, `pack` writes a file, or a tar of files and package folders, xz-compressed where that saves
space, cut into parts of at most --part-mib MiB, and a manifest with each part's and the whole payload's
SHA-256; `plan` groups the parts of every pack into per-call folders (.gpu/carry/call1, call2, ...) that
fit beside the tree. On the device (standard library only, so it runs before anything is installed), each call
copies its folder to a stash that lives while the machine stays warm, and `join` gathers the parts from the
stash and the carried folder, checks them and writes the file or extracts the folders (docs/devices.md).

    python lab/scripts/gpu_carry.py pack NAME SRC [SRC ...] [--out .gpu/carry/packs] [--part-mib auto]
    python lab/scripts/gpu_carry.py plan [--packs .gpu/carry/packs] [--out .gpu/carry] [--call-mib auto]
    python3 lab/scripts/gpu_carry.py check NAME [NAME ...] --from DIR [--from DIR ...]
    python3 lab/scripts/gpu_carry.py join NAME --from DIR [--from DIR ...] --to DEST
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import lzma
import math
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path
from typing import IO, Iterator

MIB = 2**20
LIMIT_MIB = 64  # what one device call carries, the working tree included
PART_SPARE_MIB = 2  # `pack --part-mib auto` leaves this much more, so the tree may grow before the round
CHUNK = 4 * MIB
# xz -9 with literals aligned to 4 bytes (lc=0, lp=2, pb=2): on MiniLM's fp32 weights 83.4% of the size
# against 86% in the round of 2026-11-26 (and 92% with a 4-byte delta filter first); a MiB saved is device time.
XZ_FILTERS = [{"id": lzma.FILTER_LZMA2, "preset": 9, "lc": 0, "lp": 2, "pb": 2}]
XZ_GAIN = 0.97  # keep xz only when it saves at least 3% (the join's decompression is not free)


class CarryError(Exception):
    """A part missing or corrupt, or a pack that does not fit: one line that names it."""


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        while block := fh.read(CHUNK):
            h.update(block)
    return h.hexdigest()


def _tar(sources: list[Path], dest: IO[bytes]) -> None:
    """A tar of SOURCES under their own names; sorted, with times and owners zeroed, so the same files give
    the same bytes (and SHA-256) on every run. __pycache__ is left out: the device's Python differs."""

    def clean(info: tarfile.TarInfo) -> tarfile.TarInfo | None:
        if "__pycache__" in Path(info.name).parts:
            return None
        info.mtime, info.uid, info.gid, info.uname, info.gname = 0, 0, 0, "", ""
        return info

    with tarfile.open(fileobj=dest, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for src in sources:
            paths = [src] + (sorted(src.rglob("*")) if src.is_dir() else [])
            for p in paths:
                tar.add(p, arcname=str(Path(src.name) / p.relative_to(src)), recursive=False, filter=clean)


def pack(name: str, sources: list[Path], out: Path, part_mib: float, xz: str = "auto") -> dict:
    """Write OUT/NAME.json and OUT/NAME.001, .002, ...; return the manifest."""
    if part_mib <= 0:
        raise CarryError(f"--part-mib must be positive, not {part_mib}")
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob(f"{name}.[0-9][0-9][0-9]"):
        old.unlink()
    one_file = len(sources) == 1 and sources[0].is_file()
    with tempfile.TemporaryDirectory(dir=out) as tmp:
        payload = sources[0] if one_file else Path(tmp) / "payload.tar"
        if not one_file:
            with payload.open("wb") as fh:
                _tar(sources, fh)
        stream, codec = payload, "none"
        if xz != "never":
            packed = Path(tmp) / "payload.xz"
            with payload.open("rb") as src, lzma.open(packed, "wb", filters=XZ_FILTERS) as dst:
                shutil.copyfileobj(src, dst, CHUNK)
            if xz == "always" or packed.stat().st_size <= XZ_GAIN * payload.stat().st_size:
                stream, codec = packed, "xz"
        size, limit = stream.stat().st_size, int(part_mib * MIB)
        parts = []
        with stream.open("rb") as fh:
            for i in range(1, max(1, math.ceil(size / limit)) + 1):
                part = out / f"{name}.{i:03d}"
                with part.open("wb") as dst:
                    left = limit
                    while left and (block := fh.read(min(CHUNK, left))):
                        dst.write(block)
                        left -= len(block)
                parts.append({"file": part.name, "bytes": part.stat().st_size, "sha256": sha256(part)})
        manifest = {"name": name, "kind": "file" if one_file else "tar", "codec": codec,
                    "file": sources[0].name if one_file else None, "bytes": payload.stat().st_size,
                    "sha256": sha256(payload), "sources": [str(s) for s in sources], "parts": parts}
    (out / f"{name}.json").write_text(json.dumps(manifest, indent=1) + "\n")
    return manifest


def tree_mib(root: Path = Path(".")) -> float:
    """MiB of what a device call copies: tracked files and untracked files git does not ignore."""
    names = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=root,
                           check=True, capture_output=True).stdout.decode().split("\0")
    return sum((root / n).stat().st_size for n in names if n and (root / n).is_file()) / MIB


def call_mib(root: Path = Path("."), carry: Path = Path(".gpu/carry")) -> float:
    """MiB of parts one call can carry beside the tree; 1 MiB spare holds the manifests and small edits."""
    if subprocess.run(["git", "check-ignore", "-q", str(carry)], cwd=root).returncode != 0:
        raise CarryError(f"{carry} is not ignored by git, so its parts would travel in every call: "
                         f"echo /{carry.parts[0]}/ >> .git/info/exclude")
    return LIMIT_MIB - tree_mib(root) - 1


def plan(packs: Path, out: Path, budget_mib: float) -> list[list[str]]:
    """Hard-link every pack's parts into OUT/call1, call2, ... (first fit, largest parts first), at most
    BUDGET_MIB of parts each, every manifest beside them; return the parts of each call."""
    manifests = sorted(packs.glob("*.json"))
    if not manifests:
        raise CarryError(f"no manifests in {packs}: run `pack` first")
    parts = [(p["bytes"], m.parent / p["file"]) for m in manifests for p in json.loads(m.read_text())["parts"]]
    room = budget_mib * MIB
    calls: list[list[Path]] = []
    for size, part in sorted(parts, key=lambda t: -t[0]):
        if size > room:
            raise CarryError(f"{part.name} ({size / MIB:.1f} MiB) is over the {room / MIB:.1f} MiB a call has left;"
                             " pack again with a smaller --part-mib")
        fit = next((c for c in calls if sum(p.stat().st_size for p in c) + size <= room), None)
        if fit is None:
            calls.append(fit := [])
        fit.append(part)
    for old in out.glob("call[0-9]*"):
        shutil.rmtree(old)
    for i, files in enumerate(calls, 1):
        folder = out / f"call{i}"
        folder.mkdir(parents=True)
        for f in files + manifests:
            try:
                os.link(f, folder / f.name)
            except OSError:
                shutil.copy(f, folder / f.name)
    return [sorted(p.name for p in files) for files in calls]


def _manifest(name: str, dirs: list[Path]) -> dict:
    for d in dirs:
        if (d / f"{name}.json").is_file():
            return json.loads((d / f"{name}.json").read_text())
    raise CarryError(f"{name}: no manifest {name}.json in {', '.join(map(str, dirs))}")


def locate(name: str, dirs: list[Path]) -> tuple[dict, list[Path | None]]:
    """The manifest and, per part, the first copy in DIRS whose size and SHA-256 match (None: none does)."""
    manifest = _manifest(name, dirs)
    found: list[Path | None] = []
    for part in manifest["parts"]:
        copies = [d / part["file"] for d in dirs if (d / part["file"]).is_file()]
        found.append(next((c for c in copies if c.stat().st_size == part["bytes"]
                           and sha256(c) == part["sha256"]), None))
    return manifest, found


def problems(name: str, dirs: list[Path], manifest: dict, found: list[Path | None]) -> list[str]:
    """One line per missing or corrupt part (empty: the pack is whole)."""
    where = " or ".join(map(str, dirs))
    lines = []
    for part, path in zip(manifest["parts"], found):
        if path is None:
            seen = any((d / part["file"]).is_file() for d in dirs)
            what = "corrupt (size or SHA-256 differs)" if seen else "missing"
            lines.append(f"{name}: part {part['file']} ({len(manifest['parts'])} in all) {what} in {where}")
    return lines


def check(name: str, dirs: list[Path]) -> list[str]:
    """What `join` would refuse: each missing or corrupt part of NAME."""
    return problems(name, dirs, *locate(name, dirs))


class _Hashing(io.RawIOBase):
    """A read-only stream that hashes what passes through it (the payload's SHA-256 while it is unpacked)."""

    def __init__(self, raw: IO[bytes]) -> None:
        self.raw, self.hash, self.bytes = raw, hashlib.sha256(), 0

    def readable(self) -> bool:
        return True

    def readinto(self, buf: "bytearray | memoryview") -> int:  # type: ignore[override]
        data = self.raw.read(len(buf))
        buf[: len(data)] = data
        self.hash.update(data)
        self.bytes += len(data)
        return len(data)


class _Joined(io.RawIOBase):
    """The parts read one after another as one stream."""

    def __init__(self, paths: list[Path]) -> None:
        self.files: Iterator[Path] = iter(paths)
        self.fh: IO[bytes] | None = None

    def readable(self) -> bool:
        return True

    def readinto(self, buf: "bytearray | memoryview") -> int:  # type: ignore[override]
        while True:
            if self.fh is None:
                nxt = next(self.files, None)
                if nxt is None:
                    return 0
                self.fh = nxt.open("rb")
            data = self.fh.read(len(buf))
            if data:
                buf[: len(data)] = data
                return len(data)
            self.fh.close()
            self.fh = None


def join(name: str, dirs: list[Path], dest: Path) -> dict:
    """Check every part, then write the file to DEST (a file pack) or extract into the folder DEST (a tar
    pack); CarryError naming each missing or corrupt part, or a payload whose SHA-256 differs."""
    manifest, found = locate(name, dirs)
    bad = problems(name, dirs, manifest, found)
    if bad:
        raise CarryError("; ".join(bad))
    raw: IO[bytes] = io.BufferedReader(_Joined([p for p in found if p is not None]), CHUNK)
    if manifest["codec"] == "xz":
        raw = lzma.open(raw, "rb")
    stream = _Hashing(raw)
    if manifest["kind"] == "file":
        dest.parent.mkdir(parents=True, exist_ok=True)
        tmp = dest.with_name(dest.name + ".part")
        with tmp.open("wb") as fh:
            shutil.copyfileobj(stream, fh, CHUNK)
    else:
        dest.mkdir(parents=True, exist_ok=True)
        with tarfile.open(fileobj=io.BufferedReader(stream, CHUNK), mode="r|") as tar:
            tar.extractall(dest, filter="data")
        while stream.read(CHUNK):  # the tar's end padding, for the hash
            pass
    if stream.hash.hexdigest() != manifest["sha256"] or stream.bytes != manifest["bytes"]:
        if manifest["kind"] == "file":
            tmp.unlink()
        raise CarryError(f"{name}: the joined payload's SHA-256 differs from the manifest")
    if manifest["kind"] == "file":
        tmp.replace(dest)
    return manifest


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("pack", help="compress and cut files or package folders into parts, with a manifest")
    p.add_argument("name")
    p.add_argument("sources", nargs="+", type=Path)
    p.add_argument("--out", type=Path, default=Path(".gpu/carry/packs"))
    p.add_argument("--part-mib", default="auto", help=f"largest part (auto: {LIMIT_MIB} MiB - the tree - 1 - "
                   f"{PART_SPARE_MIB})")
    p.add_argument("--xz", choices=("auto", "always", "never"), default="auto")
    p = sub.add_parser("plan", help="group every pack's parts into per-call folders that fit beside the tree")
    p.add_argument("--packs", type=Path, default=Path(".gpu/carry/packs"))
    p.add_argument("--out", type=Path, default=Path(".gpu/carry"))
    p.add_argument("--call-mib", default="auto", help=f"MiB of parts a call (auto: {LIMIT_MIB} - the tree - 1)")
    for cmd in ("check", "join"):
        p = sub.add_parser(cmd, help="report missing or corrupt parts" if cmd == "check" else
                           "check the parts and write the file or extract the folders")
        p.add_argument("names" if cmd == "check" else "name", nargs="+" if cmd == "check" else None)
        p.add_argument("--from", dest="dirs", type=Path, action="append", required=True)
        if cmd == "join":
            p.add_argument("--to", type=Path, required=True)
    a = ap.parse_args(argv)
    try:
        if a.cmd == "pack":
            m = pack(a.name, a.sources, a.out, call_mib(carry=a.out) - PART_SPARE_MIB if a.part_mib == "auto" else float(a.part_mib), a.xz)
            packed = sum(p["bytes"] for p in m["parts"])
            print(f"{a.name}: {m['bytes'] / MIB:.1f} MiB -> {packed / MIB:.1f} MiB ({m['codec']}) in "
                  f"{len(m['parts'])} parts under {a.out}")
        elif a.cmd == "plan":
            budget = call_mib(carry=a.out) if a.call_mib == "auto" else float(a.call_mib)
            calls = plan(a.packs, a.out, budget)
            print(f"tree {tree_mib():.1f} MiB; at most {budget:.1f} MiB of parts a call; {len(calls)} calls")
            for i, files in enumerate(calls, 1):
                mib = sum((a.out / f"call{i}" / f).stat().st_size for f in files) / MIB
                print(f"call {i}: carry {a.out / f'call{i}'} ({mib:.1f} MiB: {' '.join(files)})")
        elif a.cmd == "check":
            bad = [line for n in a.names for line in check(n, a.dirs)]
            print("\n".join(bad) if bad else f"{', '.join(a.names)}: every part present and intact")
            return 1 if bad else 0
        else:
            m = join(a.name, a.dirs, a.to)
            print(f"{a.name}: {m['bytes'] / MIB:.1f} MiB joined into {a.to} (SHA-256 {m['sha256'][:16]} checked)")
    except CarryError as err:
        print(f"gpu_carry: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
