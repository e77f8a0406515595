"""Import a Python source file as a module of a name of its own (a plugin, a family's defining file)."""
from __future__ import annotations

import importlib.util
import sys
import zlib
from pathlib import Path
from types import ModuleType


def file_module_name(path: str | Path, prefix: str) -> str:
    """``<prefix>_<stem>_<crc32 of the resolved path>``: one name per file, the same in every call."""
    resolved = Path(path).expanduser().resolve()
    return f"{prefix}_{resolved.stem}_{zlib.crc32(str(resolved).encode()):08x}"


def import_file(path: str | Path, name: str) -> ModuleType:
    """Execute the source file at ``path`` as module ``name`` (registered in ``sys.modules`` first, so the file's
    own imports of itself resolve); ImportError when it cannot be loaded."""
    spec = importlib.util.spec_from_file_location(name, Path(path).expanduser().resolve())
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
