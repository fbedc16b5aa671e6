"""lab/scripts/gpu_carry.py on small files: what the device's join accepts and what it refuses, by name."""

from __future__ import annotations

import importlib.util
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

_spec = importlib.util.spec_from_file_location("gpu_carry", Path(__file__).parents[1] / "scripts" / "gpu_carry.py")
assert _spec and _spec.loader
gc = importlib.util.module_from_spec(_spec)
sys.modules["gpu_carry"] = gc
_spec.loader.exec_module(gc)

KIB = 1024 / gc.MIB  # --part-mib of one KiB


def payload(tmp_path: Path) -> tuple[Path, Path]:
    """A 10 KiB file that xz cannot shrink (random bytes) and a package folder that it can."""
    rng = random.Random(7)
    noise = tmp_path / "src" / "weights.bin"
    noise.parent.mkdir()
    noise.write_bytes(rng.randbytes(10 * 1024))
    pkg = tmp_path / "src" / "fake_pkg"
    (pkg / "model").mkdir(parents=True)
    (pkg / "__pycache__").mkdir()
    (pkg / "__init__.py").write_text("VERSION = '0.1'\n")
    (pkg / "__pycache__" / "x.pyc").write_bytes(b"stale")
    (pkg / "model" / "vocab.txt").write_text("\n".join(f"word{i}" for i in range(3000)))
    return noise, pkg


def test_round_trip_file_and_folders(tmp_path: Path) -> None:
    noise, pkg = payload(tmp_path)
    m = gc.pack("noise", [noise], tmp_path / "packs", 3 * KIB)
    assert (m["kind"], m["codec"], len(m["parts"])) == ("file", "none", 4)  # xz would not save 3%
    gc.join("noise", [tmp_path / "packs"], tmp_path / "out" / "weights.bin")
    assert (tmp_path / "out" / "weights.bin").read_bytes() == noise.read_bytes()

    m = gc.pack("site", [pkg, noise], tmp_path / "packs", 3 * KIB)
    assert (m["kind"], m["codec"]) == ("tar", "xz")
    gc.join("site", [tmp_path / "packs"], tmp_path / "site")
    assert (tmp_path / "site" / "fake_pkg" / "model" / "vocab.txt").read_text() == (pkg / "model" / "vocab.txt").read_text()
    assert (tmp_path / "site" / "weights.bin").read_bytes() == noise.read_bytes()
    assert not (tmp_path / "site" / "fake_pkg" / "__pycache__").exists()
    again = gc.pack("site", [pkg, noise], tmp_path / "again", 3 * KIB)
    assert again["sha256"] == m["sha256"]  # the same files, the same bytes


@pytest.mark.parametrize("part_kib, parts", [(1, 10), (3, 4), (10, 1), (64, 1), (2.5, 4)])
def test_parts_are_bounded(tmp_path: Path, part_kib: float, parts: int) -> None:
    noise, _ = payload(tmp_path)
    m = gc.pack("noise", [noise], tmp_path / "packs", part_kib * KIB, xz="never")
    sizes = [(tmp_path / "packs" / p["file"]).stat().st_size for p in m["parts"]]
    assert len(sizes) == parts and max(sizes) <= part_kib * 1024 and sum(sizes) == 10 * 1024
    assert json.loads((tmp_path / "packs" / "noise.json").read_text()) == m


def test_join_gathers_parts_from_several_folders(tmp_path: Path) -> None:
    """As on the device: earlier calls' parts in the stash, the last call's in the carried folder."""
    noise, _ = payload(tmp_path)
    gc.pack("noise", [noise], tmp_path / "packs", 3 * KIB)
    stash, carried = tmp_path / "stash", tmp_path / "carried"
    for folder, files in ((stash, ["noise.json", "noise.001", "noise.002"]), (carried, ["noise.003", "noise.004"])):
        folder.mkdir()
        for f in files:
            (folder / f).write_bytes((tmp_path / "packs" / f).read_bytes())
    assert gc.check("noise", [stash]) == [
        f"noise: part noise.003 (4 in all) missing in {stash}", f"noise: part noise.004 (4 in all) missing in {stash}"]
    gc.join("noise", [stash, carried], tmp_path / "w.bin")
    assert (tmp_path / "w.bin").read_bytes() == noise.read_bytes()


@pytest.mark.parametrize("harm, message", [
    ("delete", "noise: part noise.002 (4 in all) missing in {d}"),
    ("flip", "noise: part noise.002 (4 in all) corrupt (size or SHA-256 differs) in {d}"),
    ("truncate", "noise: part noise.002 (4 in all) corrupt (size or SHA-256 differs) in {d}"),
    ("manifest", "noise: no manifest noise.json in {d}"),
])
def test_join_refuses_a_missing_or_corrupt_part(tmp_path: Path, harm: str, message: str) -> None:
    noise, _ = payload(tmp_path)
    d = tmp_path / "packs"
    gc.pack("noise", [noise], d, 3 * KIB)
    part = d / ("noise.json" if harm == "manifest" else "noise.002")
    if harm == "flip":
        data = bytearray(part.read_bytes())
        data[100] ^= 1
        part.write_bytes(bytes(data))
    elif harm == "truncate":
        part.write_bytes(part.read_bytes()[:-1])
    else:
        part.unlink()
    with pytest.raises(gc.CarryError, match="^" + message.format(d=d).replace("(", r"\(").replace(")", r"\)") + "$"):
        gc.join("noise", [d], tmp_path / "w.bin")
    assert not (tmp_path / "w.bin").exists()
    assert gc.main(["join", "noise", "--from", str(d), "--to", str(tmp_path / "w.bin")]) == 2


def test_plan_fits_calls(tmp_path: Path) -> None:
    """Parts of two packs grouped first-fit into call folders under the per-call bound, manifests in each."""
    noise, pkg = payload(tmp_path)
    gc.pack("noise", [noise], tmp_path / "packs", 4 * KIB)   # 4 + 4 + 2 KiB
    gc.pack("site", [pkg], tmp_path / "packs", 4 * KIB, xz="never")
    calls = gc.plan(tmp_path / "packs", tmp_path / "carry", 9 * KIB)
    assert sorted(f for c in calls for f in c) == sorted(p.name for p in (tmp_path / "packs").glob("*.0*"))
    for i in range(1, len(calls) + 1):
        folder = tmp_path / "carry" / f"call{i}"
        assert sum(f.stat().st_size for f in folder.iterdir() if not f.name.endswith(".json")) <= 9 * 1024
        assert {"noise.json", "site.json"} <= {f.name for f in folder.iterdir()}
    dirs = [tmp_path / "carry" / f"call{i}" for i in range(1, len(calls) + 1)]
    gc.join("site", dirs, tmp_path / "site")
    assert (tmp_path / "site" / "fake_pkg" / "__init__.py").exists()
    with pytest.raises(gc.CarryError, match="over the"):
        gc.plan(tmp_path / "packs", tmp_path / "carry", 3 * KIB)


def test_call_budget_counts_the_tree_that_travels(tmp_path: Path) -> None:
    """Tracked and untracked-not-ignored files count; the carry folder must be ignored, or it would travel."""
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "tracked.bin").write_bytes(b"x" * gc.MIB)
    (tmp_path / "loose.bin").write_bytes(b"x" * gc.MIB)
    (tmp_path / ".gpu" / "carry").mkdir(parents=True)
    (tmp_path / ".gpu" / "carry" / "part.001").write_bytes(b"x" * gc.MIB)
    subprocess.run(["git", "-C", str(tmp_path), "add", "tracked.bin"], check=True)
    with pytest.raises(gc.CarryError, match="not ignored"):
        gc.call_mib(tmp_path)
    (tmp_path / ".git" / "info" / "exclude").write_text("/.gpu/\n")
    assert gc.call_mib(tmp_path) == pytest.approx(gc.LIMIT_MIB - 2 - 1, abs=0.01)


def test_round_script_stashes_each_call(tmp_path: Path) -> None:
    """gpu_round.sh STEPS=stash, as the device runs it: call k copies its folder and names what is still to come."""
    noise, _ = payload(tmp_path)
    gc.pack("noise", [noise], tmp_path / "packs", 6 * KIB)
    gc.plan(tmp_path / "packs", tmp_path / "carry", 7 * KIB)
    env = {"PATH": "/usr/bin:/bin", "PY": sys.executable, "STEPS": "stash", "STASH": str(tmp_path / "stash"),
           "SITE": str(tmp_path / "site"), "W": str(tmp_path / "w"), "OUT": str(tmp_path / "out")}
    script = Path(__file__).parents[1] / "scripts" / "gpu_round.sh"
    for k, expect in ((1, "noise: part noise.002 (2 in all) missing in"), (2, "noise: every part present and intact")):
        (tmp_path / f"dev{k}").mkdir()
        (tmp_path / f"carry/call{k}").rename(tmp_path / f"dev{k}/call{k}")  # the device sees only this call's folder
        run = subprocess.run(["bash", str(script)], env={**env, "CARRY": str(tmp_path / f"dev{k}")},
                             capture_output=True, text=True, timeout=60)
        assert run.returncode == 0 and expect in run.stdout, run.stdout + run.stderr
    gc.join("noise", [tmp_path / "stash"], tmp_path / "w.bin")
    assert (tmp_path / "w.bin").read_bytes() == noise.read_bytes()
