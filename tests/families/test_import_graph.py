"""The registry's modules sit in one layer: nothing they import (at any depth, type-checking imports
included) imports them back, and each stays under 400 lines."""
from __future__ import annotations

import ast
from functools import lru_cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "rlvr"
#: the modules that must not sit on an import circle
LAYER = ("rlvr.prompting", "rlvr.family_spec", "rlvr.registry", "rlvr.families.conformance", "rlvr.families.derived",
         "rlvr.families.hostile", "rlvr.families.hedges", "rlvr.families.taskset", "rlvr.families.timing",
         "rlvr.families.crossprocess")


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@lru_cache(maxsize=1)
def _graph() -> dict[str, set[str]]:
    """Module -> the rlvr modules it imports (``from a import b`` counts ``a.b`` when that is a module)."""
    modules = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        edges = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                edges.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                edges.add(node.module)
                edges.update(f"{node.module}.{a.name}" for a in node.names)
        graph[name] = {e for e in edges if e in modules and e != name}
    return graph


def _reaches(graph: dict[str, set[str]], start: str, goal: str) -> bool:
    seen, stack = set(), list(graph[start])
    while stack:
        node = stack.pop()
        if node == goal:
            return True
        if node not in seen:
            seen.add(node)
            stack.extend(graph.get(node, ()))
    return False


@pytest.mark.parametrize("module", LAYER)
def test_no_import_circle_through(module):
    graph = _graph()
    assert module in graph
    assert not _reaches(graph, module, module), f"{module} imports something that imports it back"


@pytest.mark.parametrize("module", LAYER)
def test_under_400_lines(module):
    path = PACKAGE.joinpath(*module.split(".")[1:]).with_suffix(".py")
    assert len(path.read_text(encoding="utf-8").splitlines()) <= 400
