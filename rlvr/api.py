"""The public API: :func:`sample` and :func:`verify`, thin lookups in the family registry."""
from __future__ import annotations

import dataclasses
import logging
import time
from typing import Any, Iterator, Mapping, Sequence

from rlvr.deadline import DeadlineExceeded, call_with_deadline, resolve_timeout
from rlvr.failure_log import FailureLog
from rlvr.reasons import Reason
from rlvr.registry import get_family
from rlvr.rng import shard_indices
from rlvr.task import Task, TaskFormatError, Verdict

log = logging.getLogger(__name__)
#: checker crashes and timeouts: one line per (family, kind), then a count at most once a minute
_FAILURES = FailureLog(log)


def generate(family: str, split: str = "train", seed: int = 0, index: int = 0, **options: Any) -> Task:
    """Generate the single task at ``(family, options, seed, split, index)``."""
    spec = get_family(family)
    if split not in spec.splits:
        raise ValueError(f"{family}: unknown split {split!r}; valid splits: {list(spec.splits)}")
    config = spec.make_config(**options)
    return spec.generate(config, split, int(seed), int(index))


def sample(
    family: str,
    n: int | None = None,
    split: str = "train",
    seed: int = 0,
    *,
    start: int = 0,
    rank: int = 0,
    world_size: int = 1,
    **options: Any,
) -> Iterator[Task]:
    """Yield tasks of ``family`` for indices ``start, start+1, ...`` (``n`` of them, unlimited if None).

    With ``world_size > 1`` only the indices owned by ``rank`` are generated (round-robin), so N
    processes drawing with the same seed never see the same task. Options are the family's
    config fields (e.g. ``encoding="smiles"``, ``semantics="paper"``).
    """
    spec = get_family(family)
    if split not in spec.splits:
        raise ValueError(f"{family}: unknown split {split!r}; valid splits: {list(spec.splits)}")
    config = spec.make_config(**options)
    stop = None if n is None else start + int(n)
    for index in shard_indices(start, stop, rank, world_size):
        yield spec.generate(config, split, int(seed), index)


def regenerate(task: Task | Mapping[str, Any]) -> Task:
    """Rebuild a task from its id and ``meta["config"]`` (proves determinism; detects stale records)."""
    task = Task.from_dict(task)
    family, split, seed, index, _ = task.id.split(":")
    options = dict(task.meta.get("config", {}))
    return generate(family, split, int(seed), int(index), **options)


def verify(task: Task | Mapping[str, Any], completion: Any, **options: Any) -> Verdict:
    """Score ``completion`` against ``task``: a :class:`Verdict` with reward in [0, 1].

    A malformed *task* raises :class:`~rlvr.task.TaskFormatError`, an option the family's checker
    does not take a ``TypeError`` and an unknown ``reward`` mode a ``ValueError`` (all caller errors,
    checked up front against the :class:`~rlvr.registry.FamilySpec`); any completion, however
    malformed, gets a verdict (reward 0 and a reason), never an exception.

    ``timeout`` (seconds; default ``$RLVR_VERDICT_TIMEOUT`` or 5; ``0``/``"off"``: none) bounds the
    checker's wall time: past it the verdict is reward 0 with reason ``timeout`` (see :mod:`rlvr.deadline`).
    """
    task = Task.from_dict(task)
    spec = get_family(task.family)
    seconds = resolve_timeout(options.pop("timeout", None))
    spec.validate_check_options(options)
    try:
        verdict = call_with_deadline(seconds, spec.check, task, completion, **options)
    except DeadlineExceeded:
        _FAILURES.record(task.family, "timeout", f"past the {seconds} s deadline on task {task.id}")
        return Verdict.fail(Reason.TIMEOUT, timeout_s=seconds)
    except TaskFormatError:
        raise  # a broken record is the caller's error, reported as such
    except Exception as exc:  # noqa: BLE001 - a reward must never crash a training loop
        _FAILURES.record(task.family, type(exc).__name__, f"{exc} (task {task.id})", exc)
        return Verdict.fail(Reason.CHECKER_ERROR, error=f"{type(exc).__name__}: {exc}")
    return verdict


def prepare(tasks: Sequence[Task | Mapping[str, Any]], completions: Sequence[Any], *,
            timeout: Any = None) -> list[float]:
    """Do ahead, for a batch, the work its verdicts will need, so that :func:`verify` then finds it in
    the checkers' caches: each family's ``prepare`` hook reads every pair first, then the jobs they
    return run back to back (for generation tasks: parsing, validating and counting each generated
    molecule). RDKit work run together is quicker than the same work between Python verdicts
    (docs/scale.md); the verdicts are the same with or without it.

    Never raises: a malformed task or a failing hook is left for :func:`verify` to report. Each hook
    call and each job runs under the verdict deadline (``timeout`` as in :func:`verify`); a sample
    whose job overruns it is then verified as usual, so it takes at most twice the deadline in all.
    Returns the thread CPU seconds spent on each pair (in order; 0 for a pair with nothing to do).
    """
    seconds = resolve_timeout(timeout)
    clock = time.thread_time
    spent = [0.0] * min(len(tasks), len(completions))
    jobs: list[tuple[int, Any]] = []
    for i, (task, completion) in enumerate(zip(tasks, completions)):
        start = clock()
        try:
            task = Task.from_dict(task)
            hook = get_family(task.family).prepare
            job = None if hook is None else call_with_deadline(seconds, hook, task, completion)
        except (Exception, DeadlineExceeded):  # noqa: BLE001 - the verdict reports whatever went wrong
            job = None
        if job is not None:
            jobs.append((i, job))
        spent[i] = clock() - start
    for i, job in jobs:
        start = clock()
        try:
            call_with_deadline(seconds, job)
        except DeadlineExceeded:
            log.warning("preparing the verdict of batch item %d exceeded its %s s deadline", i, seconds)
        except Exception:  # noqa: BLE001 - the verdict reports whatever went wrong
            log.debug("preparing the verdict of batch item %d failed; verify reports it", i, exc_info=True)
        spent[i] += clock() - start
    return spent


def oracle_completion(task: Task | Mapping[str, Any]) -> str:
    """A completion that answers ``task`` correctly, built from its ground truth."""
    task = Task.from_dict(task)
    return get_family(task.family).oracle(task)


def config_dict(config: Any) -> dict[str, Any]:
    return dataclasses.asdict(config)
