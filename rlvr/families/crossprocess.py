"""Cross-process determinism: another Python process generates the identical tasks.

A task is a pure function of ``(family, split, seed, index, options)``: that is what makes
``rlvr.regenerate`` and split membership hold on another machine. A generator seeded from ``hash()``
(salted per process for strings), ``id()`` or any per-process state is stable within one process and
different in the next, so no in-process check can see it. :func:`generate_elsewhere` starts a fresh
interpreter, with a hash seed other than this one's, that generates the same cells;
:func:`check_cross_process` compares its tasks with this process's, field by field.

A family the fresh process does not find by itself (registered at run time, a plugin) is rebuilt there
from the module that defines its generator: imported by name or from its file (as ``--plugin`` does;
its top-level code runs there), then its ``FAMILIES``, a top-level ``FamilySpec`` of that name, or what
the import registered. A family whose ``FamilySpec`` is built inside a function, or defined in the
script being run, cannot be rebuilt, and says so.
"""
from __future__ import annotations

import importlib
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

from rlvr.api import generate
from rlvr.families.taskset import SEED, cells
from rlvr.module_files import file_module_name, import_file
from rlvr.registry import REGISTRY, FamilySpec, get_family, register_family

#: the indices generated in both processes, in every cell of the conformance set
INDICES = (0, 1)
#: seconds the other process may take
TIMEOUT = 300
_BOOT = ("import json, sys; sys.path[:0] = json.loads(sys.stdin.readline()); "
         "from rlvr.families.crossprocess import child_main; child_main(json.loads(sys.stdin.readline()))")


class CrossProcessError(AssertionError):
    """Another process generated different tasks, or could not generate them (the conformance checks
    raise their own error instead)."""


def _module_of(spec: FamilySpec) -> str | None:
    func = spec.generator
    func = getattr(func, "func", func)  # a functools.partial
    return getattr(func, "__module__", None) or getattr(spec.config_cls, "__module__", None)


def family_source(family: str) -> dict[str, str | None] | None:
    """Where a fresh process finds ``family``: None when its providers give it (built in, an entry
    point), else the module defining its generator (``{"module": name, "file": path or None}``)."""
    if family not in REGISTRY.runtime_names():
        return None
    name = _module_of(get_family(family))
    module = sys.modules.get(name or "")
    return {"module": name, "file": getattr(module, "__file__", None)}


def cross_process_cells(family: str, seed: int = SEED, indices: Iterable[int] = INDICES) -> list[list[Any]]:
    """``[family, split, options, seed, index]`` for every cell of the conformance set, in JSON form."""
    return [[family, split, json.loads(json.dumps(options)), seed, index]
            for split, options in cells(family) for index in indices]


def _other_hash_seed() -> str:
    current = os.environ.get("PYTHONHASHSEED", "")
    return str((int(current) + 1) % 4294967296) if current.isdigit() else "1"


def generate_elsewhere(families: Iterable[str], seed: int = SEED,
                       indices: Iterable[int] = INDICES) -> dict[str, list[dict[str, Any]] | str]:
    """Each family's :func:`cross_process_cells` generated in one fresh process (another hash seed):
    ``family -> task records`` in cell order, or ``family -> why`` it could not generate them."""
    families, indices = list(dict.fromkeys(families)), tuple(indices)
    if not families:
        return {}
    with tempfile.TemporaryDirectory(prefix="rlvr-cross-") as folder:
        out = Path(folder) / "tasks.json"
        payload = {"out": str(out), "sources": {f: family_source(f) for f in families},
                   "cells": [cell for f in families for cell in cross_process_cells(f, seed, indices)]}
        env = {**os.environ, "PYTHONHASHSEED": _other_hash_seed()}
        stdin = json.dumps([p for p in sys.path if p]) + "\n" + json.dumps(payload) + "\n"
        proc = subprocess.run([sys.executable, "-c", _BOOT], input=stdin, capture_output=True, text=True,
                              timeout=TIMEOUT, env=env)
        if proc.returncode != 0 or not out.is_file():
            lines = [line for line in proc.stderr.splitlines() if line.strip()]
            why = f"another process failed ({lines[-1] if lines else f'exit {proc.returncode}'})"
            return {family: why for family in families}
        return json.loads(out.read_text(encoding="utf-8"))


def _import_source(source: Mapping[str, str | None]) -> Any:
    name, file = source.get("module"), source.get("file")
    if name == "__main__":  # importing the running script would run it again
        raise ImportError("it is defined in the script being run; move it to a module of its own")
    if name:
        try:
            found = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            found = None
        if found is not None and (file is None or found.origin == file):
            return importlib.import_module(name)
    if not file or not Path(file).is_file():
        raise ImportError(f"its module {name!r} has no file to import")
    return import_file(file, file_module_name(file, "rlvr_family_source"))


def _rebuild(family: str, source: Mapping[str, str | None]) -> str | None:
    """Register ``family`` in this (fresh) process from its ``source``; None, or why it cannot be."""
    try:
        module = _import_source(source)
    except Exception as exc:  # noqa: BLE001 - reported to the parent as one line
        return (f"its module {source.get('module')!r} could not be imported there ({type(exc).__name__}: {exc}); "
                f"pass cross_process=False to check_family to skip this check")
    if family in REGISTRY.names():
        return None
    found = [s for s in getattr(module, "FAMILIES", ()) if isinstance(s, FamilySpec) and s.name == family]
    found += [s for s in vars(module).values() if isinstance(s, FamilySpec) and s.name == family]
    if not found:
        return (f"its FamilySpec is not in FAMILIES or at the top level of {source.get('module')!r}, so a fresh "
                f"process cannot rebuild it (define it there, or pass cross_process=False to check_family to skip "
                f"this check)")
    register_family(found[0])
    return None


def child_main(payload: Mapping[str, Any]) -> None:
    """The other process: rebuild the families that need it, generate every cell, write the records."""
    errors = {family: why for family, source in payload["sources"].items()
              if source is not None and (why := _rebuild(family, source)) is not None}
    out: dict[str, Any] = dict(errors)
    for family, split, options, seed, index in payload["cells"]:
        if family in errors:
            continue
        try:
            task = generate(family, split, seed, index, **options)
        except Exception as exc:  # noqa: BLE001 - reported to the parent as one line
            errors[family] = out[family] = f"generating ({split}, {seed}, {index}) raised {type(exc).__name__}: {exc}"
            continue
        out.setdefault(family, []).append(task.to_dict())
    Path(payload["out"]).write_text(json.dumps(out, default=str), encoding="utf-8")


def _short(value: Any) -> str:
    text = json.dumps(value, default=str)
    return text if len(text) < 70 else text[:60] + "..."


def _first_difference(ours: Mapping[str, Any], theirs: Mapping[str, Any], path: str = "") -> str:
    for key in list(ours) + [k for k in theirs if k not in ours]:
        a, b = ours.get(key), theirs.get(key)
        if a != b:
            where = f"{path}.{key}" if path else str(key)
            if isinstance(a, dict) and isinstance(b, dict):
                return _first_difference(a, b, where)
            return f"{where} is {_short(a)} here and {_short(b)} there"
    return "they differ"


def compare_elsewhere(family: str, theirs: list[dict[str, Any]] | str, seed: int = SEED,
                      indices: Iterable[int] = INDICES,
                      fail: Callable[[str], BaseException] = CrossProcessError) -> int:
    """Raise ``fail(message)`` unless ``theirs`` (from :func:`generate_elsewhere`) holds the tasks this
    process generates for the same cells; returns how many were compared."""
    if isinstance(theirs, str):
        raise fail(f"{family}: cannot check that another process generates the same tasks: {theirs}")
    cells_ = cross_process_cells(family, seed, tuple(indices))
    ours = [json.loads(json.dumps(generate(f, split, s, index, **options).to_dict(), default=str))
            for f, split, options, s, index in cells_]  # as the other process wrote them
    if len(theirs) != len(ours):
        raise fail(f"{family}: another process generated {len(theirs)} tasks where this one generates {len(ours)}")
    for (_, split, options, s, index), mine, other in zip(cells_, ours, theirs):
        if mine != other:
            raise fail(f"{mine['id']}: another process (another hash seed) generates a different task at split "
                       f"{split!r}, seed {s}, index {index}, options {options}: {_first_difference(mine, other)}. "
                       f"A generator must draw every choice from rlvr.rng.task_rng(seed, family, split, index), never "
                       f"from hash(), id(), the clock or global random state, or regenerate and split membership "
                       f"break on another machine")
    return len(ours)


def check_cross_process(family: str, seed: int = SEED, indices: Iterable[int] = INDICES,
                        fail: Callable[[str], BaseException] = CrossProcessError) -> int:
    """Another process generates the tasks of every cell of ``family``'s conformance set identically;
    returns how many tasks were compared."""
    indices = tuple(indices)
    theirs = generate_elsewhere([family], seed, indices).get(family, "the other process returned nothing")
    return compare_elsewhere(family, theirs, seed, indices, fail)


__all__ = ["INDICES", "CrossProcessError", "check_cross_process", "child_main", "compare_elsewhere",
           "cross_process_cells", "family_source", "generate_elsewhere"]
