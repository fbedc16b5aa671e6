"""The lab's modules import each other without cycles (training and evaluation share helpers, never
each other), and the lab only imports the core's public modules, never the other way (tests/test_import_layers.py)."""

from __future__ import annotations

import ast
import graphlib
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src"


def _name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def lab_graph() -> dict[str, set[str]]:
    files = {_name(p): p for p in sorted((SRC / "qascore_lab").rglob("*.py"))}
    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        deps: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("qascore_lab"):
                for alias in node.names:
                    sub = f"{node.module}.{alias.name}"
                    deps.add(sub if sub in files else node.module)
            elif isinstance(node, ast.Import):
                deps.update(a.name for a in node.names if a.name.startswith("qascore_lab"))
        deps.discard(name)
        # a package's __init__ is its own parent: only module-to-module edges count
        graph[name] = {d for d in deps if d in files and not name.startswith(d + ".")}
    return graph


def test_no_import_cycles_in_the_lab(capsys):
    graph = lab_graph()
    try:
        tuple(graphlib.TopologicalSorter(graph).static_order())
        cycle = None
    except graphlib.CycleError as err:
        cycle = err.args[1]
    with capsys.disabled():
        print(f"\nlab imports: {len(graph)} modules, cycles: {0 if cycle is None else 1}")
    assert cycle is None, f"import cycle: {cycle}"
