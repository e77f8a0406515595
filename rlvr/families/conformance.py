"""The checks every family passes, for each split and option set of its ``option_grid``.

``tests/families/test_registry_grid.py`` runs them on every registered family; a family written
elsewhere runs :func:`check_family` in its own tests (one family: ``check_family("toy.atoms")``):

- the oracle scores 1.0 (reason ``ok``);
- no minimal perturbation of the oracle (:func:`perturbations`: the family's ``perturb`` hook, else
  :func:`near_misses`, plus :func:`rlvr.families.derived.key_steps`: each number of a JSON answer one
  unit off) scores 1.0: a checker that accepts an answer one unit off is caught;
- the same holds on the family's own tasks with the largest true values (:func:`check_largest_answers`:
  the top few of many drawn tasks), whose one-unit changes are below any loose relative tolerance,
  wherever the checker reads its truth from (the ground truth, or the task's molecule);
- the same holds for a task with large answers (:func:`scaled_task`: every number of the ground truth
  times :data:`SCALE`), where one unit is far below any relative tolerance, so a checker that accepts
  answers within some percent of the truth is caught even when the drawn answers are all small (the
  scaled task is used where its oracle still scores 1.0, i.e. where the checker reads the ground truth);
- no hostile or malformed completion (:func:`rlvr.families.hostile.hostile_completions`) makes the
  checker raise (reason ``checker_error``) or leave [0, 1];
- every hostile answer written in the family's own answer structure
  (:func:`rlvr.families.derived.own_hostile_answers`: each value under each of its keys replaced by
  ``"x"``, null, Infinity, NaN, a list, an object, a huge or negative number, a value of another type
  that compares equal, a key repeated with a wrong value) gets a wrong verdict with a reason: not
  ``ok``, not ``checker_error``, not ``timeout`` (:func:`check_own_hostile`);
- a task round-trips through JSON, and ``rlvr.regenerate`` rebuilds it exactly from its id and
  ``meta["config"]``, which records the options it was asked with.
"""
from __future__ import annotations

import json
import re
from dataclasses import replace
from typing import Any, Iterable, Mapping

from rlvr.api import generate, oracle_completion, regenerate, verify
from rlvr.families.derived import key_steps, own_hostile_answers, step_number
from rlvr.families.hostile import hostile_completions
from rlvr.reasons import Reason
from rlvr.registry import get_family
from rlvr.task import Task

_ANSWER = re.compile(r"<answer>(.*)</answer>", re.S)
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
#: the factor of :func:`scaled_task`: one unit of a scaled answer is under 0.1 % of it
SCALE = 1000
#: :func:`check_largest_answers` draws this many tasks per split and checks the :data:`LARGEST_TOP` largest
LARGEST_SAMPLE = 48
LARGEST_TOP = 2
#: verdicts that are not a clean wrong answer
_NOT_WRONG = (Reason.OK, Reason.CHECKER_ERROR, Reason.TIMEOUT)


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
    """The minimal perturbations of a correct ``completion``: the family's ``perturb`` hook, else
    :func:`near_misses`, plus each number of a JSON answer one unit off (:func:`key_steps`)."""
    hook = get_family(task.family).perturb
    own = list(hook(task, completion)) if hook is not None else near_misses(completion)
    return list(dict.fromkeys(own + key_steps(completion)))


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


def _reject_near_misses(task: Task, oracle: str, where: str = "", hint: str = "") -> int:
    """No perturbation of the correct ``oracle`` scores 1.0; returns how many were scored."""
    near = perturbations(task, oracle)
    for completion in near:
        wrong = verify(task, completion)
        _require(wrong.reward < 1.0 and not wrong.correct,
                 f"{task.id}: the minimal perturbation {completion!r} of the oracle {oracle!r}{where} "
                 f"scores {wrong}{hint}")
    return len(near)


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
    return _reject_near_misses(large, oracle, f" of a task with large answers (ground truth x{SCALE})",
                               "; a relative tolerance accepts it")


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


def largest_tasks(family: str, *, seed: int = 11, sample: int = LARGEST_SAMPLE, top: int = LARGEST_TOP) -> list[Task]:
    """The ``top`` tasks of each split with the largest numbers in their ground truth, among ``sample``
    drawn per split (index ``i`` with option set ``i`` of the ``option_grid``, in turn)."""
    spec = get_family(family)
    options = [dict(o) for o in spec.option_grid]
    chosen = []
    for split in spec.splits:
        tasks = [generate(family, split, seed, i, **options[i % len(options)]) for i in range(sample)]
        tasks = [t for t in tasks if largest_number(t.ground_truth) > 0]
        chosen += sorted(tasks, key=lambda t: -largest_number(t.ground_truth))[:top]
    return chosen


def check_largest_answers(family: str, *, seed: int = 11, sample: int = LARGEST_SAMPLE,
                          top: int = LARGEST_TOP) -> list[Task]:
    """No checker accepts a one-unit change of any number of the true answer, on the family's own tasks
    with the largest true values (:func:`largest_tasks`): the perturbations of each one's oracle answer
    must score below 1.0 wherever the checker reads its truth from. Returns the tasks checked."""
    tasks = largest_tasks(family, seed=seed, sample=sample, top=top)
    for task in tasks:
        oracle = oracle_completion(task)
        _require(verify(task, oracle).correct, f"{task.id}: the oracle scores {verify(task, oracle)}")
        _reject_near_misses(task, oracle, f" of one of the family's largest answers (up to "
                                          f"{largest_number(task.ground_truth):g})", "; a tolerance accepts it")
    return tasks


def _shown(completion: str) -> str:
    return repr(completion if len(completion) < 80 else completion[:60] + f"... ({len(completion)} chars)")


def check_hostile(task: Task) -> None:
    """Every hostile completion gets a verdict in [0, 1] whose reason is not ``checker_error``."""
    for completion in hostile_completions():
        verdict = verify(task, completion)
        _require(verdict.reason != Reason.CHECKER_ERROR,
                 f"{task.id}: the checker raised on {_shown(completion)}: {verdict.metrics.get('error', verdict)}")
        _require(0.0 <= verdict.reward <= 1.0,
                 f"{task.id}: reward {verdict.reward} outside [0, 1] for {_shown(completion)}")


def check_own_hostile(task: Task) -> int:
    """Every hostile answer in the structure of the task's oracle answer (:func:`own_hostile_answers`)
    gets a clean wrong verdict: reward below 1.0, a reason that is not ``ok``, ``checker_error`` or
    ``timeout`` (each verdict runs under the verdict deadline). Returns how many were scored."""
    answers = own_hostile_answers(oracle_completion(task))
    for completion in answers:
        verdict = verify(task, completion)
        _require(verdict.reason != Reason.CHECKER_ERROR,
                 f"{task.id}: the checker raised on {_shown(completion)}, a hostile value under the family's own "
                 f"keys: {verdict.metrics.get('error', verdict)}")
        _require(verdict.reason != Reason.TIMEOUT,
                 f"{task.id}: the checker ran past its deadline on {_shown(completion)}")
        _require(verdict.reward < 1.0 and not verdict.correct and verdict.reason not in _NOT_WRONG,
                 f"{task.id}: the checker accepts {_shown(completion)}, a wrong answer in the family's own structure "
                 f"(another type, a look-alike such as true for 1 or 2.5 for 2, a key repeated with a wrong value): "
                 f"{verdict}")
    return len(answers)


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
    scored = _reject_near_misses(task, oracle)
    check_large_answers(task)
    record = json.loads(task.to_json())
    _require(Task.from_dict(record).to_dict() == task.to_dict(), f"{task.id}: does not round-trip through JSON")
    _require(regenerate(record).to_dict() == task.to_dict(), f"{task.id}: regenerate builds a different task")
    config = task.meta.get("config") or {}
    for key, value in (options or {}).items():
        _require(key in config and _jsonable(config[key]) == _jsonable(value),
                 f"{task.id}: option {key}={value!r} is not in meta['config']")
    return scored


def generate_cell(family: str, split: str, options: Mapping[str, Any], seed: int,
                  indices: Iterable[int]) -> list[Task]:
    """The tasks of one grid cell."""
    return [generate(family, split, seed, i, **options) for i in indices]


def check_family(family: str, *, seed: int = 11, indices: Iterable[int] = (0, 1), hostile: bool = True,
                 largest: bool = True) -> list[Task]:
    """All the checks on one family: :func:`check_task` on every cell of its grid; :func:`check_hostile`
    and :func:`check_own_hostile` on the first task of each split (``hostile``); :func:`check_largest_answers`
    (``largest``). At least one perturbation must have been scored. Returns the tasks of the grid checked."""
    checked, perturbed, splits_seen = [], 0, set()
    for split, options in grid(family):
        for task in generate_cell(family, split, options, seed, tuple(indices)):
            _require(task.family == family, f"{task.id}: family {task.family!r} is not {family!r}")
            perturbed += check_task(task, options)
            if hostile and split not in splits_seen:
                splits_seen.add(split)
                check_hostile(task)
                check_own_hostile(task)
            checked.append(task)
    _require(perturbed > 0, f"{family}: no minimal perturbation of any oracle answer; give the family a `perturb` hook")
    if largest:
        check_largest_answers(family, seed=seed)
    return checked


__all__ = ["LARGEST_SAMPLE", "LARGEST_TOP", "SCALE", "ConformanceError", "answer_span", "check_family",
           "check_hostile", "check_large_answers", "check_largest_answers", "check_own_hostile", "check_task",
           "generate_cell", "grid", "largest_number", "largest_tasks", "near_misses", "perturbations", "scaled_task",
           "step_number"]
