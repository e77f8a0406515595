"""The checks every family passes, for each split and option set of its ``option_grid``.

``tests/families/test_registry_grid.py`` runs them on every registered family; a family written
elsewhere runs :func:`check_family` in its own tests:

- the oracle scores 1.0 (reason ``ok``);
- no minimal perturbation of the oracle (:func:`perturbations`: the family's ``perturb`` hook, else
  :func:`near_misses`) scores 1.0: a checker that accepts an answer one unit off is caught;
- the same holds for a task with large answers (:func:`scaled_task`: every number of the ground truth
  times :data:`SCALE`), where one unit is far below any relative tolerance, so a checker that accepts
  answers within some percent of the truth is caught even when the drawn answers are all small (the
  scaled task is used where its oracle still scores 1.0, i.e. where the checker reads the ground truth);
- no hostile or malformed completion (:func:`rlvr.families.hostile.hostile_completions`) makes the
  checker raise (reason ``checker_error``) or leave [0, 1];
- a task round-trips through JSON, and ``rlvr.regenerate`` rebuilds it exactly from its id and
  ``meta["config"]``, which records the options it was asked with.
"""
from __future__ import annotations

import json
import re
from dataclasses import replace
from typing import Any, Iterable, Mapping

from rlvr.api import generate, oracle_completion, regenerate, verify
from rlvr.families.hostile import hostile_completions
from rlvr.reasons import Reason
from rlvr.registry import get_family
from rlvr.task import Task

_ANSWER = re.compile(r"<answer>(.*)</answer>", re.S)
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
#: the factor of :func:`scaled_task`: one unit of a scaled answer is under 0.1 % of it
SCALE = 1000


class ConformanceError(AssertionError):
    """A family broke one of the checks."""


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise ConformanceError(message)


def answer_span(completion: str) -> tuple[int, int]:
    """Where the answer block's body lies in ``completion`` (``ConformanceError`` when there is none)."""
    match = _ANSWER.search(completion)
    _require(match is not None, f"the oracle gave no answer block: {completion!r}")
    return match.start(1), match.end(1)


def step_number(text: str, delta: int) -> str | None:
    """``text`` (digits, maybe one decimal point) moved by ``delta`` units of its last written digit,
    written with as many decimals (None below zero): ``46.1`` +1 -> ``46.2``, ``3`` -1 -> ``2``."""
    decimals = len(text.split(".", 1)[1]) if "." in text else 0
    units = int(text.replace(".", "")) + delta
    if units < 0:
        return None
    digits = str(units).rjust(decimals + 1, "0")
    return digits if not decimals else f"{digits[:-decimals]}.{digits[-decimals:]}"


def near_misses(completion: str) -> list[str]:
    """The default minimal perturbations: each number of the answer block, one at a time, moved by
    one unit of its last written digit either way (``{2}H2O`` -> ``{1}H2O``, ``{3}H2O``, ``H1O``, ...;
    ``46.1`` -> ``46.0``, ``46.2``). Empty when the answer holds no number."""
    start, end = answer_span(completion)
    body = completion[start:end]
    out = []
    for match in _NUMBER.finditer(body):
        for delta in (-1, 1):
            new = step_number(match.group(), delta)
            if new is not None:
                out.append(completion[:start] + body[:match.start()] + new + body[match.end():] + completion[end:])
    return list(dict.fromkeys(out))


def perturbations(task: Task, completion: str) -> list[str]:
    """The minimal perturbations of a correct ``completion``: the family's ``perturb`` hook, else :func:`near_misses`."""
    hook = get_family(task.family).perturb
    return list(hook(task, completion)) if hook is not None else near_misses(completion)


def _scale(value: Any, factor: int) -> Any:
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)):
        return value * factor
    if isinstance(value, list):
        return [_scale(v, factor) for v in value]
    if isinstance(value, tuple):
        return tuple(_scale(v, factor) for v in value)
    if isinstance(value, dict):
        return {k: _scale(v, factor) for k, v in value.items()}
    return value


def scaled_task(task: Task, factor: int = SCALE) -> Task | None:
    """``task`` with every number of its ground truth times ``factor`` (a task with large answers), or
    None when its ground truth holds no number."""
    truth = _scale(task.ground_truth, factor)
    return None if truth == task.ground_truth else replace(task, ground_truth=truth)


def check_large_answers(task: Task) -> int:
    """No minimal perturbation of the oracle of :func:`scaled_task` scores 1.0 (where that oracle scores
    1.0); returns how many perturbations were scored."""
    large = scaled_task(task)
    if large is None:
        return 0
    try:
        oracle = oracle_completion(large)
    except Exception:  # noqa: BLE001 - a family whose oracle cannot write a scaled answer is not tested here
        return 0
    if not verify(large, oracle).correct or not _ANSWER.search(oracle):
        return 0
    near = perturbations(large, oracle)
    for completion in near:
        wrong = verify(large, completion)
        _require(wrong.reward < 1.0 and not wrong.correct,
                 f"{task.id}: the minimal perturbation {completion!r} of the oracle {oracle!r} of a task with "
                 f"large answers (ground truth x{SCALE}) scores {wrong}; a relative tolerance accepts it")
    return len(near)


def check_hostile(task: Task) -> None:
    """Every hostile completion gets a verdict in [0, 1] whose reason is not ``checker_error``."""
    for completion in hostile_completions():
        verdict = verify(task, completion)
        shown = completion if len(completion) < 80 else completion[:60] + f"... ({len(completion)} chars)"
        _require(verdict.reason != Reason.CHECKER_ERROR,
                 f"{task.id}: the checker raised on {shown!r}: {verdict.metrics.get('error', verdict)}")
        _require(0.0 <= verdict.reward <= 1.0, f"{task.id}: reward {verdict.reward} outside [0, 1] for {shown!r}")


def grid(family: str) -> list[tuple[str, dict[str, Any]]]:
    """Every (split, options) of a family: its splits x its ``option_grid``."""
    spec = get_family(family)
    return [(split, dict(options)) for split in spec.splits for options in spec.option_grid]


def _jsonable(value: Any) -> Any:
    return json.loads(json.dumps(value, default=str))


def check_task(task: Task, options: Mapping[str, Any] | None = None) -> int:
    """Oracle 1.0, no minimal perturbation 1.0, JSON round trip, identical regeneration, ``options``
    recorded in the config; returns how many perturbations were scored."""
    oracle = oracle_completion(task)
    verdict = verify(task, oracle)
    _require(verdict.reward == 1.0 and verdict.correct and verdict.reason == "ok",
             f"{task.id}: the oracle scores {verdict}")
    near = perturbations(task, oracle)
    for completion in near:
        wrong = verify(task, completion)
        _require(wrong.reward < 1.0 and not wrong.correct,
                 f"{task.id}: the minimal perturbation {completion!r} of the oracle {oracle!r} scores {wrong}")
    check_large_answers(task)
    record = json.loads(task.to_json())
    _require(Task.from_dict(record).to_dict() == task.to_dict(), f"{task.id}: does not round-trip through JSON")
    _require(regenerate(record).to_dict() == task.to_dict(), f"{task.id}: regenerate builds a different task")
    config = task.meta.get("config") or {}
    for key, value in (options or {}).items():
        _require(key in config and _jsonable(config[key]) == _jsonable(value),
                 f"{task.id}: option {key}={value!r} is not in meta['config']")
    return len(near)


def generate_cell(family: str, split: str, options: Mapping[str, Any], seed: int,
                  indices: Iterable[int]) -> list[Task]:
    """The tasks of one grid cell."""
    return [generate(family, split, seed, i, **options) for i in indices]


def check_family(family: str, *, seed: int = 11, indices: Iterable[int] = (0, 1), hostile: bool = True) -> list[Task]:
    """Run :func:`check_task` on every cell of the family's grid, and :func:`check_hostile` on the first
    task of each split (``hostile``); at least one perturbation must have been scored. Returns the tasks checked."""
    checked, perturbed, splits_seen = [], 0, set()
    for split, options in grid(family):
        for task in generate_cell(family, split, options, seed, tuple(indices)):
            _require(task.family == family, f"{task.id}: family {task.family!r} is not {family!r}")
            perturbed += check_task(task, options)
            if hostile and split not in splits_seen:
                splits_seen.add(split)
                check_hostile(task)
            checked.append(task)
    _require(perturbed > 0, f"{family}: no minimal perturbation of any oracle answer; give the family a `perturb` hook")
    return checked


__all__ = ["SCALE", "ConformanceError", "answer_span", "check_family", "check_hostile", "check_large_answers",
           "check_task", "generate_cell", "grid", "near_misses", "perturbations", "scaled_task", "step_number"]
