"""A cache of a model's greedy answers on a task file, so a base model is evaluated once per machine.

The base model's greedy answers do not change between training seeds: ``rlvr quickstart`` keeps them
under ``cache_dir("eval", <key>)``, the key a hash of the task file's bytes, the model folder's files
(names, sizes and modification times), the generation settings and rlvr's version. A run that finds
an entry reads it instead of generating, and says so. Entries are written atomically.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from rlvr.files import atomic_open
from rlvr.paths import cache_dir

#: bump when what an entry holds changes meaning
CACHE_VERSION = 1


def model_fingerprint(model: str) -> str:
    """Names, sizes and modification times of a local model folder's files (the path itself for a hub id)."""
    path = Path(model)
    if not path.is_dir():
        return str(model)
    parts = [f"{p.relative_to(path)}:{p.stat().st_size}:{int(p.stat().st_mtime)}" for p in sorted(path.rglob("*")) if p.is_file()]
    return "\n".join(parts)


def cache_key(model: str, tasks_file: Path, settings: dict[str, Any]) -> str:
    """The entry key of ``model``'s answers on ``tasks_file`` under ``settings``."""
    from rlvr import __version__

    digest = hashlib.sha256()
    for part in (str(CACHE_VERSION), __version__, model_fingerprint(model), json.dumps(settings, sort_keys=True)):
        digest.update(part.encode("utf-8") + b"\x00")
    digest.update(Path(tasks_file).read_bytes())
    return digest.hexdigest()[:24]


def entry_dir(key: str) -> Path:
    return cache_dir("eval", key)


def load_entry(key: str) -> tuple[dict[str, Any], list[dict[str, Any]]] | None:
    """``(scores, records)`` of an entry, or None when there is none (or it is unreadable)."""
    folder = entry_dir(key)
    try:
        scores = json.loads((folder / "scores.json").read_text())
        records = json.loads((folder / "records.json").read_text())
    except (OSError, ValueError):
        return None
    return scores, records


def save_entry(key: str, scores: dict[str, Any], records: list[dict[str, Any]]) -> Path:
    """Write an entry (atomically, file by file; records last, so a half-written entry is never read)."""
    folder = entry_dir(key)
    with atomic_open(folder / "scores.json") as fh:
        fh.write(json.dumps(scores, indent=2) + "\n")
    with atomic_open(folder / "records.json") as fh:
        fh.write(json.dumps(records) + "\n")
    return folder
