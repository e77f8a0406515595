"""The checks every family passes, for each split and option set of its ``option_grid``.

``tests/families/test_registry_grid.py`` runs them on every registered family; a family written
elsewhere runs :func:`check_family` in its own tests:

- the oracle scores 1.0 (reason ``ok``) and a near miss of it (:func:`perturb`) scores below 1;
- a task round-trips through JSON, and ``rlvr.regenerate`` rebuilds it exactly from its id and
  ``meta["config"]``, which records the options it was asked with.
"""
from __future__ import annotations

import json
import re
from typing import Any, Iterable, Mapping

from rlvr.api import generate, oracle_completion, regenerate, verify
from rlvr.registry import get_family
from rlvr.task import Task

_ANSWER = re.compile(r"<answer>(.*)</answer>", re.S)


class ConformanceError(AssertionError):
    """A family broke one of the checks."""


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise ConformanceError(message)


def perturb(completion: str) -> str:
    """A near miss of a correct completion: the first digit of its answer bumped by one, or an empty answer."""
    match = _ANSWER.search(completion)
    _require(match is not None, f"the oracle gave no answer block: {completion!r}")
    body = match.group(1)
    digit = re.search(r"\d", body)
    new = "" if digit is None else body[:digit.start()] + str((int(digit.group()) + 1) % 10) + body[digit.end():]
    return completion[:match.start(1)] + new + completion[match.end(1):]


def grid(family: str) -> list[tuple[str, dict[str, Any]]]:
    """Every (split, options) of a family: its splits x its ``option_grid``."""
    spec = get_family(family)
    return [(split, dict(options)) for split in spec.splits for options in spec.option_grid]


def _jsonable(value: Any) -> Any:
    return json.loads(json.dumps(value, default=str))


def check_task(task: Task, options: Mapping[str, Any] | None = None) -> None:
    """Oracle 1.0, near miss < 1, JSON round trip, identical regeneration, ``options`` recorded in the config."""
    oracle = oracle_completion(task)
    verdict = verify(task, oracle)
    _require(verdict.reward == 1.0 and verdict.correct and verdict.reason == "ok",
             f"{task.id}: the oracle scores {verdict}")
    near = perturb(oracle)
    wrong = verify(task, near)
    _require(wrong.reward < 1.0 and not wrong.correct, f"{task.id}: the near miss {near!r} scores {wrong}")
    record = json.loads(task.to_json())
    _require(Task.from_dict(record).to_dict() == task.to_dict(), f"{task.id}: does not round-trip through JSON")
    _require(regenerate(record).to_dict() == task.to_dict(), f"{task.id}: regenerate builds a different task")
    config = task.meta.get("config") or {}
    for key, value in (options or {}).items():
        _require(key in config and _jsonable(config[key]) == _jsonable(value),
                 f"{task.id}: option {key}={value!r} is not in meta['config']")


def generate_cell(family: str, split: str, options: Mapping[str, Any], seed: int,
                  indices: Iterable[int]) -> list[Task]:
    """The tasks of one grid cell."""
    return [generate(family, split, seed, i, **options) for i in indices]


def check_family(family: str, *, seed: int = 11, indices: Iterable[int] = (0, 1)) -> list[Task]:
    """Run :func:`check_task` on every cell of the family's grid; returns the tasks checked."""
    checked = []
    for split, options in grid(family):
        for task in generate_cell(family, split, options, seed, tuple(indices)):
            _require(task.family == family, f"{task.id}: family {task.family!r} is not {family!r}")
            check_task(task, options)
            checked.append(task)
    return checked
