"""The shape of the package: no module over 400 lines, and no import circle among rlvr's modules.

The import graph is read from the source with :mod:`ast`: an edge for every ``import`` that runs
when a module is imported (top level, and inside top-level ``if``/``try``/``with`` blocks and class
bodies; not inside functions, which are lazy imports, nor under ``if TYPE_CHECKING``).
``from rlvr.x import y`` points at module ``rlvr.x.y`` when that is a module, else at ``rlvr.x``;
a package's ``__init__`` is the module of its package name, so its re-exports are edges too.
"""
from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import rlvr

PACKAGE_DIR = Path(rlvr.__file__).resolve().parent
MAX_LINES = 400


def module_files(root: Path = PACKAGE_DIR) -> dict[str, Path]:
    """Every module of the package at ``root``: dotted name -> source file (a package is its ``__init__.py``)."""
    out: dict[str, Path] = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _import_time_statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """The statements of ``body`` that run when the module is imported, nested blocks included."""
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        yield node
        if isinstance(node, ast.If):
            if not _is_type_checking(node.test):
                yield from _import_time_statements(node.body)
            yield from _import_time_statements(node.orelse)
        elif isinstance(node, ast.Try):
            for block in (node.body, node.orelse, node.finalbody, *(h.body for h in node.handlers)):
                yield from _import_time_statements(block)
        elif isinstance(node, (ast.With, ast.ClassDef)):
            yield from _import_time_statements(node.body)


def _resolve(name: str, modules: dict[str, Path]) -> str | None:
    """The package module ``name`` stands for, its nearest enclosing package module, or None (not rlvr)."""
    while name:
        if name in modules:
            return name
        name = name.rpartition(".")[0]
    return None


def import_graph(root: Path = PACKAGE_DIR) -> dict[str, set[str]]:
    """Module -> the package's modules it imports when it is imported."""
    modules = module_files(root)
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in _import_time_statements(tree.body):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")
                    anchor = anchor[: len(anchor) - (node.level - 1)]
                    base = ".".join(anchor + ([base] if base else []))
                targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base
                           for alias in node.names]
            for target in targets:
                resolved = _resolve(target, modules)
                if resolved is not None and resolved != name:
                    graph[name].add(resolved)
    return graph


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    out.append(sorted(component))
    return sorted(out)


def test_no_module_is_over_400_lines():
    long = {name: n for name, path in module_files().items()
            if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert not long, f"modules over {MAX_LINES} lines (split them by job): {long}"


def test_no_import_cycles():
    cycles = import_cycles(import_graph())
    assert not cycles, "import cycles among rlvr modules:\n" + "\n".join(" <-> ".join(c) for c in cycles)


def test_the_cycle_finder_finds_every_cycle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a", "e"}, "e": {"d"}, "f": set()}
    assert import_cycles(graph) == [["a", "b", "c"], ["d", "e"]]
    assert import_cycles({"a": {"b"}, "b": set()}) == []


def test_the_graph_holds_the_imports_that_run_at_import_time(tmp_path):
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    files = {
        "__init__.py": "from pkg.sub import helper\n",  # a re-export: pkg -> pkg.sub.helper
        "sub/__init__.py": "",
        "sub/helper.py": "from .. import other\n",  # relative: pkg.other
        "other.py": (
            "from typing import TYPE_CHECKING\n"
            "if TYPE_CHECKING:\n    import pkg.lazy\n"
            "try:\n    import pkg.sub.helper as h\nexcept ImportError:\n    h = None\n"
            "def later():\n    from pkg import lazy\n"
            "class Holder:\n    from pkg import lazy as in_class\n"
        ),
        "lazy.py": "import json\n",
    }
    for name, text in files.items():
        (pkg / name).write_text(text, encoding="utf-8")
    graph = import_graph(pkg)
    assert graph["pkg"] == {"pkg.sub.helper"}
    assert graph["pkg.sub.helper"] == {"pkg.other"}
    assert graph["pkg.other"] == {"pkg.sub.helper", "pkg.lazy"}  # the try block and the class body, not the rest
    assert graph["pkg.lazy"] == set()
    assert import_cycles(graph) == [["pkg.other", "pkg.sub.helper"]]
