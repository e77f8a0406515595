"""Fixed, versioned evaluation sets.

A suite is a list of :class:`~rlvr.registry.SuiteEntry` ``(family, split, n, options)``; each family
group has its own, named after the group (``FamilyGroup.suite``, else a few tasks of each of its
families on each test split: :func:`rlvr.registry.group_suite`), and ``all`` joins them. Its
tasks are drawn with :func:`rlvr.api.sample` at indices ``0..n-1`` from the run's seed, so the same
suite, version and seed give the same tasks on any machine; ``--limit N`` keeps the first ``N`` tasks of every entry (a prefix
of the full set). :func:`eval_set_digest` fingerprints the drawn tasks, so two result files can be
checked to come from the same eval set, and :func:`export_eval_set` writes them to JSONL for reuse
(``rlvr eval --tasks FILE``).
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Sequence

from rlvr.api import sample
from rlvr.registry import SuiteEntry, get_family, group_suite, list_groups
from rlvr.task import Task

#: bump when a suite definition changes (entries, sizes or options)
SUITE_VERSION = "1"

#: short names accepted by ``--splits`` for the stoichiometry test splits
SPLIT_ALIASES = {"in": "test_in", "cross": "test_cross", "out": "test_out"}

#: ChemAlgebra split -> column group of the paper's tables
SPLIT_GROUPS = {
    "test_in": "in", "test_cross": "cross", "test_out": "out",
    "valid": "valid", "valid_cross": "valid_cross", "train": "train", "train_cross": "train_cross", "test": "test",
    "easy": "easy", "hard": "hard",
}


@dataclass(frozen=True)
class Suite:
    """A named, versioned list of entries."""

    name: str
    entries: tuple[SuiteEntry, ...]
    version: str = SUITE_VERSION
    description: str = ""

    @property
    def version_string(self) -> str:
        return f"{self.name}/v{self.version}"


def builtin_suites() -> dict[str, Suite]:
    """The suites by name: one per family group (:func:`~rlvr.registry.group_suite`) and ``all`` of them."""
    suites = {}
    for group in list_groups():
        entries = group_suite(group)
        if entries:
            description = group.suite_description or f"{group.title or group.name}: " + ", ".join(
                dict.fromkeys(e.family for e in entries))
            suites[group.name] = Suite(group.name, entries, description=description)
    groups = list(suites.values())
    suites["all"] = Suite("all", tuple(e for g in groups for e in g.entries),
                          description=" + ".join(g.name for g in groups))
    return suites


def get_suite(name: str) -> Suite:
    """A built-in suite by name (clear error listing the names otherwise)."""
    suites = builtin_suites()
    if name not in suites:
        raise KeyError(f"unknown eval suite {name!r}; choose one of {sorted(suites)} or pass --tasks FILE")
    return suites[name]


def normalise_splits(splits: Iterable[str] | None) -> tuple[str, ...] | None:
    """Expand ``in``/``cross``/``out`` to the split names; None means every split."""
    if splits is None:
        return None
    out: list[str] = []
    for item in splits:
        for part in str(item).split(","):
            part = part.strip()
            if part:
                out.append(SPLIT_ALIASES.get(part, part))
    return tuple(dict.fromkeys(out)) or None


def resolve_entries(
    suite: Suite,
    *,
    splits: Sequence[str] | None = None,
    limit: int | None = None,
    options: dict[str, Any] | None = None,
) -> list[SuiteEntry]:
    """The suite's entries for this run: split filter, per-entry limit, option overrides.

    Options a family's config does not define are dropped for that family (e.g. ``encoding`` for a
    family with a single encoding); an override no family accepts is an error.
    """
    wanted = normalise_splits(splits)
    overrides = dict(options or {})
    used_overrides: set[str] = set()
    resolved: list[SuiteEntry] = []
    seen: set[tuple[str, str, str]] = set()
    for entry in suite.entries:
        if wanted is not None and entry.split not in wanted:
            continue
        spec = get_family(entry.family)
        fields = spec.options
        if entry.split not in spec.splits:
            raise ValueError(f"suite {suite.name}: {entry.family} has no split {entry.split!r} (splits: {list(spec.splits)})")
        merged = {**entry.options, **overrides}
        used_overrides.update(k for k in overrides if k in fields)
        kept = {k: v for k, v in merged.items() if k in fields}
        n = entry.n if limit is None else min(entry.n, int(limit))
        key = (entry.family, entry.split, json.dumps(kept, sort_keys=True, default=str))
        if key in seen:
            continue
        seen.add(key)
        resolved.append(SuiteEntry(entry.family, entry.split, n, kept))
    unused = sorted(set(overrides) - used_overrides)
    if unused and resolved:
        raise ValueError(f"option(s) {unused} are not accepted by any family of suite {suite.name!r}")
    if not resolved:
        raise ValueError(f"suite {suite.name!r} has no entry for splits {list(wanted or [])}")
    return resolved


def draw_tasks(entries: Sequence[SuiteEntry], seed: int) -> list[tuple[SuiteEntry, Task]]:
    """The tasks of every entry, in suite order (deterministic in ``seed``)."""
    out: list[tuple[SuiteEntry, Task]] = []
    seen: set[str] = set()
    for entry in entries:
        for task in sample(entry.family, n=entry.n, split=entry.split, seed=seed, **entry.options):
            if task.id in seen:
                continue
            seen.add(task.id)
            out.append((entry, task))
    return out


def task_digest(task: Task) -> str:
    """A short content hash of a task (prompt and ground truth): detects a changed generator."""
    payload = json.dumps([task.id, task.prompt, task.ground_truth], sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:16]


def eval_set_digest(tasks: Iterable[Task]) -> str:
    """A content hash of a whole eval set (order-insensitive)."""
    digests = sorted(task_digest(t) for t in tasks)
    return hashlib.sha256("\n".join(digests).encode("ascii")).hexdigest()[:16]


def export_eval_set(tasks: Iterable[Task], path: str | Path) -> int:
    """Write tasks as JSONL (atomically); returns the number written."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(target.name + ".tmp")
    n = 0
    with tmp.open("w", encoding="utf-8") as fh:
        for task in tasks:
            fh.write(task.to_json() + "\n")
            n += 1
    tmp.replace(target)
    return n
