"""Imports in `qascore` point one way: cli / serve / engines -> metrics / meta -> runtime / weights / text -> records.

The test reads every module of src/qascore with `ast` (nothing is imported), maps each
`qascore.*` import (module level or inside a function alike) to a layer, and fails on an
import that runs back up, on an import cycle between modules, and on any import of the lab.
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src"
PACKAGE = SRC / "qascore"

# Higher number = higher layer; a module may import its own layer or lower ones only.
LAYERS: dict[str, int] = {
    # leaf utilities: they import nothing of qascore above them
    "qascore.version": 0, "qascore.errors": 0, "qascore.messages": 0, "qascore.progress": 0,
    "qascore.jsonio": 0, "qascore.record_checks": 0, "qascore.output_claim": 0,
    "qascore.records": 1,
    "qascore.runtime": 2, "qascore.weights": 2, "qascore.text": 2,
    "qascore.metrics": 3, "qascore.meta": 3,
    "qascore.stream": 4,  # chunked scoring over metrics: what the engines, the server and the CLI share
    "qascore.engines": 5, "qascore.serve": 5,
    "qascore.cli": 6,
    "qascore": 6,  # the package's API (`qascore.load`): the CLI's peer; nothing below imports it
}
LAB = "qascore_lab"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def all_modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def imports_of(path: Path, modules: set[str]) -> set[str]:
    """The `qascore*` modules a file imports; `from pkg import name` counts as pkg.name when that is a module."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.split(".")[0] in ("qascore", LAB))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] not in ("qascore", LAB):
                continue
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                out.add(sub if sub in modules else target)
    out.discard(name)
    return out


def layer(module: str) -> int:
    """The layer of the longest LAYERS prefix of `module`."""
    parts = module.split(".")
    for k in range(len(parts), 0, -1):
        key = ".".join(parts[:k])
        if key in LAYERS:
            return LAYERS[key]
    raise KeyError(f"{module}: no layer assigned (add it to LAYERS)")


def graph() -> dict[str, set[str]]:
    mods = all_modules()
    return {m: imports_of(p, set(mods)) for m, p in mods.items()}


def back_edges(g: dict[str, set[str]]) -> list[tuple[str, str]]:
    return sorted((a, b) for a, deps in g.items() for b in deps
                  if not b.startswith(LAB) and layer(b) > layer(a))


def cycles(g: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in g.get(v, ()):
            if w not in g:
                continue
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(g):
        if v not in index:
            visit(v)
    return out


def test_every_module_has_a_layer():
    for m in all_modules():
        layer(m)


def test_imports_point_one_way_no_cycles_no_lab(capsys):
    g = graph()
    back = back_edges(g)
    cyc = cycles(g)
    lab = sorted((a, b) for a, deps in g.items() for b in deps if b.split(".")[0] == LAB)
    with capsys.disabled():
        print(f"\nimport layers: {len(g)} modules, {sum(map(len, g.values()))} imports; "
              f"running back up: {len(back)}, cycles: {len(cyc)}, importing the lab: {len(lab)}")
    assert back == [], f"imports running back up: {back}"
    assert cyc == [], f"import cycles: {cyc}"
    assert lab == [], f"qascore imports qascore_lab: {lab}"


def test_the_checker_sees_a_back_edge_and_a_cycle():
    """The checks themselves, on a hand-made graph (an independent expectation)."""
    g = {"qascore.records": {"qascore.cli.score"}, "qascore.cli.score": {"qascore.records"},
         "qascore.metrics.a": {"qascore.metrics.b"}, "qascore.metrics.b": {"qascore.metrics.a"}}
    assert back_edges(g) == [("qascore.records", "qascore.cli.score")]
    assert cycles(g) == [["qascore.cli.score", "qascore.records"], ["qascore.metrics.a", "qascore.metrics.b"]]
