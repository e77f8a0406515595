"""Few-shot prompts: ``k`` solved training examples (user question + worked solution) before a task.

Examples come from the training split of the task's own family and configuration (same encoding,
prompt mode, load, ...), drawn at indices derived from a stable hash of ``(seed, task id)``, so the
same task always gets the same examples on any machine. An example whose question equals the
task's is never used.
"""
from __future__ import annotations

import copy
import itertools
from typing import Any, Iterator, Mapping

from rlvr.rng import stable_hash
from rlvr.task import Task

#: how many candidate indices are tried per requested example before giving up
MAX_ATTEMPTS_PER_EXAMPLE = 8
#: examples are drawn from indices below this bound
INDEX_SPACE = 1_000_000


def _user_text(task: Task) -> str:
    return task.user_text


def _candidates(task: Task, k: int, split: str, seed: int, per_task: bool) -> Iterator[Task]:
    """Distinct candidate examples for ``task`` (at most ``k * MAX_ATTEMPTS_PER_EXAMPLE`` generated)."""
    from rlvr.api import generate
    from rlvr.registry import get_family

    spec = get_family(task.family)
    if split not in spec.splits:
        raise ValueError(f"{task.family}: few-shot examples need a valid split; {split!r} not in {list(spec.splits)}")
    config = dict(task.meta.get("config") or {})
    anchor = task.id if per_task else task.family
    seen = {_user_text(task)}
    for attempt in range(k * MAX_ATTEMPTS_PER_EXAMPLE):
        index = stable_hash("rlvr-fewshot", seed, anchor, attempt) % INDEX_SPACE
        example = generate(task.family, split, seed, index, **config)
        text = _user_text(example)
        if text in seen:
            continue
        seen.add(text)
        yield example


def example_tasks(
    task: Task | Mapping[str, Any],
    k: int,
    *,
    split: str = "train",
    seed: int = 0,
    per_task: bool = True,
) -> list[Task]:
    """``k`` distinct example tasks for ``task`` (same family and config, from ``split``)."""
    task = Task.from_dict(task)
    if k < 0:
        raise ValueError(f"k must be >= 0, got {k}")
    chosen = list(itertools.islice(_candidates(task, k, split, seed, per_task), k)) if k else []
    if len(chosen) < k:
        raise ValueError(f"{task.family}: found only {len(chosen)} distinct examples for k={k}")
    return chosen


def few_shot_messages(
    task: Task | Mapping[str, Any],
    k: int = 2,
    *,
    split: str = "train",
    seed: int = 0,
    style: str = "terse",
    max_chars: int | None = None,
    per_task: bool = True,
) -> list[dict[str, str]]:
    """Prompt messages with ``k`` worked examples: system message(s), k (user, assistant) pairs, the task.

    Every example's solution is verified (:func:`rlvr.solutions.worked_solution`); an
    example that cannot be solved is replaced by the next candidate. ``per_task=False`` gives
    every task of the family the same examples.
    """
    from rlvr.solutions import SolutionError, worked_solution

    task = Task.from_dict(task)
    if k < 0:
        raise ValueError(f"k must be >= 0, got {k}")
    system = [dict(m) for m in task.prompt if m.get("role") == "system"]
    rest = [dict(m) for m in task.prompt if m.get("role") != "system"]
    shots: list[dict[str, str]] = []
    used = 0
    if k > 0:
        for example in _candidates(task, k, split, seed, per_task):
            try:
                solution = worked_solution(example, style, max_chars=max_chars)
            except SolutionError:
                continue
            shots.append({"role": "user", "content": example.user_text})
            shots.append({"role": "assistant", "content": solution})
            used += 1
            if used == k:
                break
        if used < k:
            raise ValueError(f"{task.family}: only {used} of {k} few-shot examples could be written")
    return system + shots + rest


def few_shot_task(task: Task | Mapping[str, Any], k: int = 2, **kwargs: Any) -> Task:
    """A copy of ``task`` whose prompt carries ``k`` worked examples (ground truth unchanged, so it verifies the same)."""
    task = Task.from_dict(task)
    out = copy.deepcopy(task)
    out.prompt = few_shot_messages(task, k, **kwargs)
    out.meta["few_shot"] = {"k": int(k), "split": kwargs.get("split", "train"), "seed": int(kwargs.get("seed", 0))}
    return out
