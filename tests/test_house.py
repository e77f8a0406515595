"""The shape of the package: no module over 400 lines, no import circle among rlvr's modules (lazy
imports included), and one module that asks torch about CUDA.

The import graph is read from the source with :mod:`ast`: an edge for every ``import`` that runs
when a module is imported (top level, and inside top-level ``if``/``try``/``with`` blocks and class
bodies; not inside functions, which are lazy imports, nor under ``if TYPE_CHECKING``). The lazy graph
adds the imports inside functions: a circle there is a circle too, only deferred to run time.
``from rlvr.x import y`` points at module ``rlvr.x.y`` when that is a module, else at ``rlvr.x``;
a package's ``__init__`` is the module of its package name, so its re-exports are edges too.
"""
from __future__ import annotations

import ast
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import rlvr

PACKAGE_DIR = Path(rlvr.__file__).resolve().parent
MAX_LINES = 400
#: frameworks only their adapters (rlvr/integrations/, rlvr/envs/trl.py, ...) import, and only when imported
FRAMEWORKS = ("trl", "verl", "openrlhf", "verifiers", "reasoning_gym", "skyrl_gym", "atroposlib", "nemo_gym")


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


def _all_statements(body: list[ast.stmt]) -> Iterator[ast.AST]:
    """Every node of ``body``, function bodies included, except what sits under ``if TYPE_CHECKING``."""
    for node in body:
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for other in node.orelse:
                yield from _all_statements([other])
            continue
        yield node
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.stmt):
                yield from _all_statements([child])


def import_graph(root: Path = PACKAGE_DIR, *, lazy: bool = False) -> dict[str, set[str]]:
    """Module -> the package's modules it imports when it is imported (``lazy``: or later, inside a function)."""
    modules = module_files(root)
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in (_all_statements if lazy else _import_time_statements)(tree.body):
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


def test_no_import_cycles_even_through_lazy_imports():
    """A lazy import only defers a circle: decoding choices, say, live where both sides can read them."""
    cycles = import_cycles(import_graph(lazy=True))
    assert not cycles, "import cycles among rlvr modules, lazy imports included:\n" + "\n".join(
        " <-> ".join(c) for c in cycles)


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
    lazy = import_graph(pkg, lazy=True)
    assert lazy["pkg.other"] == {"pkg.sub.helper", "pkg.lazy"}  # the function's import too; TYPE_CHECKING never
    (pkg / "lazy.py").write_text("def later():\n    import pkg.other\n", encoding="utf-8")
    assert import_cycles(import_graph(pkg, lazy=True)) == [["pkg.lazy", "pkg.other", "pkg.sub.helper"]]
    assert import_cycles(import_graph(pkg)) == [["pkg.other", "pkg.sub.helper"]]  # the lazy edge is no import-time one


#: the rooms whose functions stay within a screenful (the training side: the trainer and the main job)
SHORT_FUNCTION_ROOMS = ("train", "quickstart")
MAX_FUNCTION_LINES = 60
#: the rooms at the top: the command line, which nothing below it imports
TOP_ROOMS = {"cli", "commands"}


def room_of(module: str) -> str:
    """A module's room: the package's first level (``rlvr.train.sft`` -> ``train``; ``rlvr`` itself -> ``rlvr``)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def room_graph(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """Room -> the other rooms its modules import at import time."""
    rooms: dict[str, set[str]] = {}
    for name, targets in graph.items():
        rooms.setdefault(room_of(name), set()).update(room_of(t) for t in targets if room_of(t) != room_of(name))
    return rooms


def test_no_arrow_runs_back_up_between_rooms():
    """Rooms form layers: no circle of rooms, and nothing below the command line imports it."""
    rooms = room_graph(import_graph())
    assert not import_cycles(rooms), f"rooms importing each other: {import_cycles(rooms)}"
    upward = sorted((r, t) for r, targets in rooms.items() for t in targets if t in TOP_ROOMS and r not in TOP_ROOMS)
    assert not upward, f"rooms below the command line that import it: {upward}"
    assert "quickstart" not in rooms["train"], "the trainer imports the main job that runs it"


def test_the_room_graph_is_read_per_room():
    graph = {"rlvr.a.x": {"rlvr.b.y"}, "rlvr.b.y": {"rlvr.b.z", "rlvr"}, "rlvr.b.z": set(), "rlvr": set()}
    assert room_graph(graph) == {"a": {"b"}, "b": {"rlvr"}, "rlvr": set()}
    assert import_cycles(room_graph({**graph, "rlvr": {"rlvr.a.x"}})) == [["a", "b", "rlvr"]]


def long_functions(root: Path, limit: int = MAX_FUNCTION_LINES) -> dict[str, int]:
    """``module:function`` -> lines, for every function or method under ``root`` longer than ``limit`` lines
    (from its ``def`` line to its last line, decorators and docstring included)."""
    out: dict[str, int] = {}
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = node.end_lineno - node.lineno + 1
                if length > limit:
                    out[f"{path.relative_to(root.parent).as_posix()}:{node.name}"] = length
    return out


def test_no_function_of_the_training_side_is_longer_than_a_screenful():
    long = {k: v for room in SHORT_FUNCTION_ROOMS for k, v in long_functions(PACKAGE_DIR / room).items()}
    assert not long, f"functions over {MAX_FUNCTION_LINES} lines (split them by step): {long}"


def test_long_functions_are_measured_from_def_to_last_line(tmp_path):
    (tmp_path / "m.py").write_text("def f():\n" + "    x = 1\n" * 60 + "\n\ndef g():\n    return 1\n", encoding="utf-8")
    assert long_functions(tmp_path) == {f"{tmp_path.name}/m.py:f": 61}
    assert long_functions(tmp_path, limit=61) == {}


def test_import_rlvr_loads_no_framework():
    """``import rlvr`` (and the export and the integrations package, which every adapter shares) stays framework-free."""
    code = ("import sys, rlvr, rlvr.export, rlvr.integrations, rlvr.integrations.nemo_gym_data\n"
            "print(sorted({m.split('.')[0] for m in sys.modules} & set(sys.argv[1:])))")
    proc = subprocess.run([sys.executable, "-c", code, *FRAMEWORKS], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and proc.stdout.strip() == "[]", proc.stdout + proc.stderr[-2000:]


#: the calls that ask torch about the hardware (which devices exist, are initialised, what they can do)
HARDWARE_PROBE = re.compile(r"(?:^|\.)(?:cuda|xpu|mps)\.(?:is_available|device_count|is_initialized|current_device|"
                            r"get_device_capability|get_device_properties|mem_get_info|is_bf16_supported)$")


def hardware_probes(root: Path = PACKAGE_DIR) -> dict[str, list[str]]:
    """Module file -> the hardware probes (:data:`HARDWARE_PROBE`) its code calls, for every module under ``root``."""
    out: dict[str, list[str]] = {}
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        calls = sorted({ast.unparse(node.func) for node in ast.walk(tree)
                        if isinstance(node, ast.Call) and HARDWARE_PROBE.search(ast.unparse(node.func))})
        if calls:
            out[path.relative_to(root).as_posix()] = calls
    return out


def test_cuda_is_probed_in_rlvr_device_only():
    probes = hardware_probes()
    assert set(probes) == {"device.py"}, f"hardware probed outside rlvr/device.py (ask rlvr.device instead): {probes}"


def test_the_probe_finder_sees_every_probe(tmp_path):
    (tmp_path / "a.py").write_text("import torch\nn = torch.cuda.device_count() if torch.cuda.is_initialized() else 0\n")
    (tmp_path / "b.py").write_text("import torch\ntorch.cuda.synchronize()\nname = torch.cuda.get_device_name(0)\n")
    assert hardware_probes(tmp_path) == {"a.py": ["torch.cuda.device_count", "torch.cuda.is_initialized"]}
