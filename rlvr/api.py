"""The public API: :func:`sample` and :func:`verify`, thin lookups in the family registry."""
from __future__ import annotations

import dataclasses
import logging
from typing import Any, Iterator, Mapping

from rlvr.registry import get_family
from rlvr.rng import shard_indices
from rlvr.task import Task, TaskFormatError, Verdict

log = logging.getLogger(__name__)


def task_id(family: str, split: str, seed: int, index: int, cfg_key: str) -> str:
    """The id of a task: enough, with ``meta["config"]``, to regenerate it."""
    return f"{family}:{split}:{seed}:{index}:{cfg_key}"


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

    A malformed *task* raises :class:`~rlvr.task.TaskFormatError` and an unknown ``reward`` mode a
    ``ValueError`` (both are caller errors); any completion, however malformed, gets a verdict
    (reward 0 and a reason), never an exception.
    """
    task = Task.from_dict(task)
    spec = get_family(task.family)
    mode = options.get("reward")
    if mode is not None and spec.reward_modes and mode not in spec.reward_modes:
        raise ValueError(f"{task.family}: unknown reward mode {mode!r}; valid modes: {list(spec.reward_modes)}")
    try:
        verdict = spec.check(task, completion, **options)
    except TaskFormatError:
        raise  # a broken record is the caller's error, reported as such
    except TypeError as exc:
        if "unexpected keyword" in str(exc):
            raise
        log.exception("checker for %s failed on task %s", task.family, task.id)
        return Verdict.fail("checker_error", error=f"{type(exc).__name__}: {exc}")
    except Exception as exc:  # noqa: BLE001 - a reward must never crash a training loop
        log.exception("checker for %s failed on task %s", task.family, task.id)
        return Verdict.fail("checker_error", error=f"{type(exc).__name__}: {exc}")
    return verdict


def oracle_completion(task: Task | Mapping[str, Any]) -> str:
    """A completion that answers ``task`` correctly, built from its ground truth."""
    task = Task.from_dict(task)
    return get_family(task.family).oracle(task)


def config_dict(config: Any) -> dict[str, Any]:
    return dataclasses.asdict(config)
