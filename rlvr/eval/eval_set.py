"""The tasks of an evaluation: drawn from a versioned suite, or read from a task file."""
from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

from rlvr.eval.config import EvalConfig, EvalConfigError
from rlvr.eval.suites import draw_tasks, get_suite, normalise_splits, resolve_entries
from rlvr.registry import read_task_file
from rlvr.task import Task


def task_split(task: Task) -> str:
    """The split a task was drawn from: ``meta["split"]``, else the second field of its id (``"?"``)."""
    split = (task.meta or {}).get("split")
    if isinstance(split, str) and split:
        return split
    parts = task.id.split(":")
    return parts[1] if len(parts) > 1 else "?"


def _task_options(task: Task) -> dict[str, Any]:
    config = (task.meta or {}).get("config")
    return dict(config) if isinstance(config, dict) else {}


def load_eval_set(config: EvalConfig) -> tuple[list[tuple[dict[str, Any], Task]], dict[str, Any]]:
    """The run's tasks with the options of their suite entry, and a description of the eval set."""
    if config.tasks_file:
        tasks = read_task_file(config.tasks_file)
        wanted = normalise_splits(config.splits)
        counts: dict[tuple[str, str, str], int] = {}
        pairs: list[tuple[dict[str, Any], Task]] = []
        seen: set[str] = set()
        for task in tasks:
            split = task_split(task)
            if wanted is not None and split not in wanted or task.id in seen:
                continue
            options = _task_options(task)
            key = (task.family, split, json.dumps(options, sort_keys=True, default=str))
            counts[key] = counts.get(key, 0) + 1
            if config.limit is not None and counts[key] > config.limit:
                continue
            seen.add(task.id)
            pairs.append((options, task))
        if not pairs:
            raise EvalConfigError(f"{config.tasks_file}: no task selected (splits={config.splits})")
        info = {"source": f"file:{Path(config.tasks_file).name}", "suite": Path(config.tasks_file).stem,
                "suite_version": "file", "entries": None}
        return pairs, info
    suite = get_suite(config.suite)
    entries = resolve_entries(suite, splits=config.splits, limit=config.limit, options=config.options)
    pairs = [(dict(entry.options), task) for entry, task in draw_tasks(entries, config.seed)]
    info = {
        "source": "suite", "suite": suite.name, "suite_version": suite.version,
        "entries": [dataclasses.asdict(e) for e in entries],
    }
    return pairs, info


__all__ = ["load_eval_set", "task_split"]
