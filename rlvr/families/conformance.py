"""The checks every family passes (``check_family``); ``tests/families/test_registry_grid.py`` runs them on
every registered family, one test per check and family, so ``-k <family>`` runs one family's checks.

On every split and option set of the family's ``option_grid`` (a few indices each):

- the oracle scores 1.0 (reason ``ok``);
- no minimal perturbation of the oracle (:func:`perturbations`: the family's ``perturb`` hook, else
  :func:`near_misses`, plus :func:`rlvr.families.derived.key_steps`: each number of a JSON answer one
  unit off) scores 1.0, nor one of a task with large answers (:func:`scaled_task`: every number of the
  ground truth times :data:`SCALE`, where its oracle still scores 1.0), so a relative tolerance is caught;
- every hostile answer written in the family's own answer structure
  (:func:`rlvr.families.derived.own_hostile_answers`) gets a clean wrong verdict (:func:`check_own_hostile`;
  :func:`check_hostile` sends one task the shared corpus, which :func:`check_family` sends every task);
- a task round-trips through JSON, and ``rlvr.regenerate`` rebuilds it exactly from its id and
  ``meta["config"]``, which records the options it was asked with.

On the family's conformance set (:mod:`rlvr.families.taskset`: at least 144 tasks over every split,
option set and level of every difficulty knob):

- generator-checker agreement: the oracle answer of every task scores 1.0 (:func:`check_agreement`);
- the tasks with the largest true values reject every minimal perturbation (:func:`check_largest_answers`);
- no hedged answer (:mod:`rlvr.families.hedges`: the right answer listed beside wrong ones, in each
  separator, as a list, in several answer blocks, under each key) scores 1.0 in two positions
  (:func:`check_hedges`);
- verdicts stay within a wall-clock budget, median and maximum (:mod:`rlvr.families.timing`);
- another process, with another hash seed, generates the identical tasks (:mod:`rlvr.families.crossprocess`).

What a reward and a held-out split promise (:mod:`rlvr.families.promises`, :mod:`rlvr.families.items`,
:mod:`rlvr.families.leaks`): a pure checker (first, on fresh tasks: :func:`purity_tasks`); a reward in
[0, 1] on every task for its oracle answer, the hedged answers and the hostile corpus; the right answer
scoring 1.0 in every form the family renders it; generator-checker agreement on every item of a small pool;
held-out splits disjoint from train by item; a generator that varies; a prompt that does not give its answer
away. :func:`check_family` times every verdict of the run (:class:`rlvr.families.timing.VerdictClock`).
"""
from __future__ import annotations

import json
from dataclasses import replace
from typing import Any, Iterable, Mapping

from rlvr.api import generate, oracle_completion, regenerate
from rlvr.families.contract import ConformanceError, answer_body, answer_span, near_misses, perturbations
from rlvr.families.contract import require as _require
from rlvr.families.contract import shown as _shown
from rlvr.families.crossprocess import check_cross_process
from rlvr.families.derived import own_hostile_answers, step_number
from rlvr.families.hedges import hedge_groups
from rlvr.families.hostile import hostile_completions
from rlvr.families.items import check_every_item, check_splits_disjoint, check_variety
from rlvr.families.leaks import check_prompt_leaks
from rlvr.families.promises import check_pure, check_renderings, check_reward_range, require_in_range
from rlvr.families.taskset import MIN_TASKS, SEED, cells, largest_number, largest_of, per_cell, tasks_by_split
from rlvr.families.timing import VerdictClock, check_verdict_times, timed_verify
from rlvr.reasons import Reason
from rlvr.registry import get_family
from rlvr.task import Task

#: the factor of :func:`scaled_task`: one unit of a scaled answer is under 0.1 % of it
SCALE = 1000
#: :func:`check_largest_answers` checks this many tasks per split, the largest answers of the conformance set
LARGEST_TOP = 2
#: each task of the timed set is timed on its oracle answer and this many perturbations and hedged answers
TIMED_PER_TASK = 2
#: verdicts that are not a clean wrong answer
_NOT_WRONG = (Reason.OK, Reason.CHECKER_ERROR, Reason.TIMEOUT)


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
        wrong = timed_verify(task, completion)
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
    if not timed_verify(large, oracle).correct or answer_body(oracle) is None:
        return 0
    return _reject_near_misses(large, oracle, f" of a task with large answers (ground truth x{SCALE})",
                               "; a relative tolerance accepts it")


def largest_tasks(family: str, *, seed: int = SEED, top: int = LARGEST_TOP,
                  by_split: dict[str, list[Task]] | None = None) -> list[Task]:
    """The ``top`` tasks of each split with the largest numbers in their ground truth, among the family's
    conformance set (``by_split``: one already generated, :func:`rlvr.families.taskset.tasks_by_split`)."""
    return largest_of(by_split if by_split is not None else tasks_by_split(family, seed=seed), top)


def check_largest_answers(family: str, *, seed: int = SEED, top: int = LARGEST_TOP,
                          by_split: dict[str, list[Task]] | None = None) -> list[Task]:
    """No checker accepts a one-unit change of any number of the true answer, on the family's own tasks
    with the largest true values (:func:`largest_tasks`): the perturbations of each one's oracle answer
    must score below 1.0, whether the checker reads its truth from the ground truth or recomputes it
    from the task. Returns the tasks checked."""
    tasks = largest_tasks(family, seed=seed, top=top, by_split=by_split)
    for task in tasks:
        oracle = oracle_completion(task)
        verdict = timed_verify(task, oracle)
        _require(verdict.correct, f"{task.id}: the oracle scores {verdict}")
        _reject_near_misses(task, oracle, f" of one of the family's largest answers (up to "
                                          f"{largest_number(task.ground_truth):g})", "; a tolerance accepts it")
    return tasks


def check_hostile(task: Task) -> None:
    """Every hostile completion gets a verdict in [0, 1] whose reason is not ``checker_error``."""
    for completion in hostile_completions():
        verdict = timed_verify(task, completion)
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
        verdict = timed_verify(task, completion)
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
    verdict = timed_verify(task, oracle)
    require_in_range(task, oracle, verdict, "the oracle answer")
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


def require_family(family: str) -> None:
    """``ConformanceError`` with the registry's one line when ``family`` is not registered or its
    provider failed to import."""
    try:
        get_family(family)
    except KeyError as exc:
        raise ConformanceError(str(exc.args[0]) if exc.args else f"unknown task family {family!r}") from None


def check_agreement(family: str, tasks: Iterable[Task]) -> int:
    """Generator-checker agreement: the oracle answer of every task in ``tasks`` (the family's conformance
    set) scores 1.0 with reason ``ok``. The message counts the tasks they disagree on and shows the
    first. Returns how many tasks were checked."""
    tasks, wrong = list(tasks), []
    for task in tasks:
        try:
            oracle = oracle_completion(task)
        except Exception as exc:  # noqa: BLE001 - the oracle's own failure is the finding
            wrong.append((task, f"its oracle raised {type(exc).__name__}: {exc}"))
            continue
        verdict = timed_verify(task, oracle)
        require_in_range(task, oracle, verdict, "the oracle answer")
        if not (verdict.reward == 1.0 and verdict.correct and verdict.reason == Reason.OK):
            wrong.append((task, f"the oracle answer {_shown(oracle)} scores {verdict}"))
    if wrong:
        first, why = wrong[0]
        raise ConformanceError(
            f"{family}: the generator and the checker disagree on {len(wrong)} of {len(tasks)} conformance tasks "
            f"({100 * len(wrong) / len(tasks):.0f} %): on {first.id}, {why}. A checker that recomputes its truth "
            f"must agree with the ground truth its generator wrote on every task")
    return len(tasks)


def check_hedges(task: Task) -> int:
    """No minimal perturbation of the oracle scores 1.0 (they are the wrong candidates), and no hedged
    answer (:func:`rlvr.families.hedges.hedge_groups`: the right answer beside wrong ones) scores 1.0 in
    two positions of its group; returns how many hedged answers were scored."""
    oracle = oracle_completion(task)
    _reject_near_misses(task, oracle)
    scored = 0
    for form, group in hedge_groups(oracle, perturbations(task, oracle)):
        accepted = [c for c in group if timed_verify(task, c).correct]
        scored += len(group)
        if len(accepted) > 1:
            raise ConformanceError(
                f"{task.id}: the checker accepts a hedged answer, several candidates {form} with the right one in "
                f"any position: {_shown(accepted[0])} and {_shown(accepted[1])} both score 1.0, so a policy earns "
                f"the reward by listing candidates (read one answer; reject an answer that lists several)")
    return scored


def timed_pairs(tasks: Iterable[Task], sample: Iterable[Task], per_task: int = TIMED_PER_TASK) -> list[tuple[Task, str]]:
    """What :func:`rlvr.families.timing.check_verdict_times` times: the oracle answer of each of ``tasks``,
    and the first ``per_task`` perturbations and hedged answers of each of ``sample``."""
    out = [(task, oracle_completion(task)) for task in tasks]
    for task in sample:
        oracle = oracle_completion(task)
        near = perturbations(task, oracle)
        hedged = [c for _, group in hedge_groups(oracle, near)[:1] for c in group]
        out += [(task, c) for c in [*near[:per_task], *hedged[:per_task]]]
    return out


def check_verdict_time(tasks: Iterable[Task], sample: Iterable[Task] = ()) -> int:
    """The wall-clock budget of :mod:`rlvr.families.timing` over :func:`timed_pairs`; returns the verdicts timed."""
    return len(check_verdict_times(timed_pairs(tasks, sample), fail=ConformanceError).seconds)


def first_of_each_cell(family: str, by_split: dict[str, list[Task]], min_tasks: int = MIN_TASKS) -> list[Task]:
    """The first task of every cell of the conformance set (what the hedges are tried on)."""
    step = per_cell(family, min_tasks)
    return [task for tasks in by_split.values() for task in tasks[::step]]


def purity_tasks(family: str, *, seed: int = SEED, min_tasks: int = MIN_TASKS) -> list[Task]:
    """Fresh tasks for :func:`rlvr.families.promises.check_pure`: one per cell of the conformance set, at the
    index after its conformance draws (no other check has verified them)."""
    index = per_cell(family, min_tasks)
    return [generate(family, split, seed, index, **options) for split, options in cells(family)]


def check_family(family: str, *, seed: int = SEED, indices: Iterable[int] = (0, 1), hostile: bool = True,
                 largest: bool = True, cross_process: bool = True, min_tasks: int = MIN_TASKS) -> list[Task]:
    """All the checks on one family, every verdict timed (:class:`~rlvr.families.timing.VerdictClock`): first
    :func:`~rlvr.families.promises.check_pure` on :func:`purity_tasks`; on its conformance set (``min_tasks``
    tasks at least) :func:`check_verdict_time` and :func:`~rlvr.families.promises.check_reward_range` (the
    hostile corpus with ``hostile``); :func:`check_task` on every cell of its grid and :func:`check_own_hostile`
    on the first task of each split (``hostile``); :func:`check_agreement`,
    :func:`~rlvr.families.items.check_every_item`, :func:`check_largest_answers` (``largest``),
    :func:`check_hedges`, :func:`~rlvr.families.promises.check_renderings`, the item checks
    (:mod:`rlvr.families.items`), :func:`~rlvr.families.leaks.check_prompt_leaks`, and the cross-process check
    (``cross_process``). At least one perturbation must have been scored. Returns the tasks of the grid checked."""
    require_family(family)
    with VerdictClock(family, fail=ConformanceError).active():
        check_pure(purity_tasks(family, seed=seed, min_tasks=min_tasks))
        by_split = tasks_by_split(family, seed=seed, min_tasks=min_tasks)
        tasks = [task for split in by_split.values() for task in split]
        sample = first_of_each_cell(family, by_split, min_tasks)
        check_verdict_time(tasks, sample)  # each input's first verdict is timed
        check_reward_range(tasks, hostile=hostile)
        checked, perturbed, splits_seen = [], 0, set()
        for split, options in grid(family):
            for task in generate_cell(family, split, options, seed, tuple(indices)):
                _require(task.family == family, f"{task.id}: family {task.family!r} is not {family!r}")
                perturbed += check_task(task, options)
                if hostile and split not in splits_seen:
                    splits_seen.add(split)
                    check_own_hostile(task)
                checked.append(task)
        _require(perturbed > 0, f"{family}: no minimal perturbation of any oracle answer; give the family a `perturb` hook")
        check_agreement(family, tasks)
        check_every_item(family, seed=seed)
        if largest:
            check_largest_answers(family, seed=seed, by_split=by_split)
        for task in sample:
            check_hedges(task)
        check_renderings(family, tasks)
        check_splits_disjoint(family, by_split, seed=seed)
        check_variety(family, seed=seed)
        check_prompt_leaks(family, tasks)
        if cross_process:
            check_cross_process(family, seed, fail=ConformanceError)
    return checked


__all__ = ["LARGEST_TOP", "SCALE", "TIMED_PER_TASK", "ConformanceError", "answer_span", "check_agreement",
           "check_family", "check_hedges", "check_hostile", "check_large_answers", "check_largest_answers",
           "check_own_hostile", "check_task", "check_verdict_time", "first_of_each_cell", "generate_cell", "grid",
           "largest_number", "largest_tasks", "near_misses", "perturbations", "purity_tasks", "require_family",
           "scaled_task", "step_number", "timed_pairs"]
