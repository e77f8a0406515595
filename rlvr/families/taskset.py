"""The conformance set of a family: the tasks every generator-checker agreement, hedge and timing check
runs on, and the family's largest answers among them.

The set spreads at least :data:`MIN_TASKS` tasks over every split of the family and every *variant*:
each option set of its ``option_grid`` and each level of each of its difficulty knobs
(``FamilySpec.difficulty.knobs``; a span knob at ``(lowest, level)`` for each level, as curricula draw,
and at ``(highest, highest)``, its rarest and largest draws alone). A checker that disagrees with its
generator on a minority of tasks (a feature that only some molecules or reactions have) is found on
such a set where a dozen fixed tasks miss it: wrong on 4 % of tasks, it passes 144 tasks by chance
less than 0.3 % of the time.
"""
from __future__ import annotations

from typing import Any

from rlvr.api import generate
from rlvr.registry import FamilySpec, get_family
from rlvr.task import Task

#: the fewest tasks of a conformance set (over all splits and variants)
MIN_TASKS = 144
#: the seed every conformance task is drawn with
SEED = 11


def knob_values(spec: FamilySpec) -> list[tuple[str, Any]]:
    """``(option, value)`` for every level of every difficulty knob of ``spec``, the rarest draws included."""
    out: list[tuple[str, Any]] = []
    for knob in spec.difficulty.knobs if spec.difficulty is not None else ():
        if knob.span:
            out += [(knob.option, (knob.levels[0], level)) for level in knob.levels]
            out.append((knob.option, (knob.levels[-1], knob.levels[-1])))
        else:
            out += [(knob.option, level) for level in knob.levels]
    return out


def variants(family: str) -> list[dict[str, Any]]:
    """The option sets of the family's ``option_grid``, then one per knob value (:func:`knob_values`), once each."""
    spec = get_family(family)
    out = [dict(options) for options in spec.option_grid] + [{option: value} for option, value in knob_values(spec)]
    seen, unique = set(), []
    for options in out:
        key = repr(sorted(options.items()))
        if key not in seen:
            seen.add(key)
            unique.append(options)
    return unique


def cells(family: str) -> list[tuple[str, dict[str, Any]]]:
    """Every ``(split, options)`` of the family: its splits x its :func:`variants`."""
    return [(split, options) for split in get_family(family).splits for options in variants(family)]


def per_cell(family: str, min_tasks: int = MIN_TASKS) -> int:
    """Tasks drawn per cell so that the set holds at least ``min_tasks``."""
    return max(1, -(-min_tasks // len(cells(family))))


def tasks_by_split(family: str, *, seed: int = SEED, min_tasks: int = MIN_TASKS) -> dict[str, list[Task]]:
    """The conformance set by split: :func:`per_cell` tasks (indices 0, 1, ...) of every cell of :func:`cells`."""
    count = per_cell(family, min_tasks)
    out: dict[str, list[Task]] = {}
    for split, options in cells(family):
        out.setdefault(split, []).extend(generate(family, split, seed, index, **options) for index in range(count))
    return out


def conformance_tasks(family: str, *, seed: int = SEED, min_tasks: int = MIN_TASKS) -> list[Task]:
    """The conformance set (:func:`tasks_by_split`), every split's tasks in turn."""
    return [task for tasks in tasks_by_split(family, seed=seed, min_tasks=min_tasks).values() for task in tasks]


def largest_number(value: Any) -> float:
    """The largest absolute number anywhere in ``value`` (0 when it holds none; booleans are not numbers)."""
    if isinstance(value, bool):
        return 0.0
    if isinstance(value, (int, float)):
        return abs(float(value)) if value == value else 0.0
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, (list, tuple)):
        return max((largest_number(v) for v in value), default=0.0)
    return 0.0


def largest_of(by_split: dict[str, list[Task]], top: int) -> list[Task]:
    """The ``top`` tasks of each split with the largest numbers in their ground truth."""
    chosen = []
    for tasks in by_split.values():
        own = [t for t in tasks if largest_number(t.ground_truth) > 0]
        chosen += sorted(own, key=lambda t: -largest_number(t.ground_truth))[:top]
    return chosen


__all__ = ["MIN_TASKS", "SEED", "cells", "conformance_tasks", "knob_values", "largest_number", "largest_of",
           "per_cell", "tasks_by_split", "variants"]
