"""Few-shot prompts: ``k`` solved training examples (user question + worked solution) before a task.

Examples come from the training split of the task's own family and configuration (same encoding,
prompt mode, load, ...), drawn at indices derived from a stable hash of ``(seed, task id)``, so the
same task always gets the same examples on any machine. An example whose question equals the
task's is never used. The selection is :func:`rlvr.prompting.worked_demonstrations`, the same one
the ``few_shot_answers`` config option uses, so :func:`few_shot_task` returns a task that
:func:`rlvr.regenerate` rebuilds exactly.
"""
from __future__ import annotations

from typing import Any, Mapping

from rlvr.api import generate
from rlvr.prompting import PROMPT_OPTIONS, first_examples, worked_demonstrations
from rlvr.registry import FamilySpec, get_family
from rlvr.task import Task


def _base(spec: FamilySpec, task: Task, k: int, split: str) -> Any:
    """The generator config of ``task`` (its prompt options left out), after checking ``k`` and ``split``."""
    if k < 0:
        raise ValueError(f"k must be >= 0, got {k}")
    if split not in spec.splits:
        raise ValueError(f"{task.family}: few-shot examples need a valid split; {split!r} not in {list(spec.splits)}")
    config = {key: v for key, v in (task.meta.get("config") or {}).items() if key not in PROMPT_OPTIONS}
    return spec.make_config(**config).task


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
    spec = get_family(task.family)
    chosen = first_examples(spec, task, _base(spec, task, k, split), k, split=split, seed=seed, per_task=per_task)
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

    Every example's solution is verified; an example that cannot be solved is replaced by the next
    candidate. ``per_task=False`` gives every task of the family the same examples.
    """
    task = Task.from_dict(task)
    spec = get_family(task.family)
    base = _base(spec, task, k, split)
    system = [dict(m) for m in task.prompt if m.get("role") == "system"]
    rest = [dict(m) for m in task.prompt if m.get("role") != "system"]
    if k == 0:
        return system + rest
    shots = worked_demonstrations(spec, task, base, k, split=split, seed=seed, solution_style=style,
                                  max_chars=max_chars, per_task=per_task)
    if len(shots) < k:
        raise ValueError(f"{task.family}: only {len(shots)} of {k} few-shot examples could be written")
    turns = [{"role": role, "content": text} for user, answer in shots
             for role, text in (("user", user), ("assistant", answer))]
    return system + turns + rest


def few_shot_task(task: Task | Mapping[str, Any], k: int = 2, *, split: str = "train", seed: int = 0,
                  style: str = "terse") -> Task:
    """``task`` with ``k`` worked examples before its question (ground truth and id unchanged).

    The examples are options of the task's config (``few_shot``, ``few_shot_split``,
    ``few_shot_seed``, ``few_shot_answers``), recorded in ``meta["config"]``, so
    :func:`rlvr.regenerate` rebuilds this prompt. ``task`` must be regenerable (its id and
    ``meta["config"]`` as :func:`rlvr.generate` writes them).
    """
    task = Task.from_dict(task)
    spec = get_family(task.family)
    _base(spec, task, k, split)
    try:
        family, task_split, task_seed, index, _ = task.id.split(":")
        seed_i, index_i = int(task_seed), int(index)
    except ValueError:
        raise ValueError(f"task {task.id!r} was not made by rlvr.generate: use few_shot_messages") from None
    options = {**(task.meta.get("config") or {}), "few_shot": int(k), "few_shot_split": split,
               "few_shot_seed": int(seed), "few_shot_answers": style}
    return generate(family, task_split, seed_i, index_i, **options)
