"""Reward functions for TRL trainers (GRPO, RLOO): ``f(prompts, completions, **columns) -> list[float | None]``.

Each function reads the task of every row from the ``task_json`` column that
:mod:`rlvr.datasets` writes (or, failing that, from ``id``/``family``/``prompt``/
``ground_truth``/``meta`` columns of a task-record dataset) and scores the completion with
:func:`rlvr.api.verify`. A row of a family the function does not cover gets ``None`` (TRL then
ignores this function for that row). When TRL passes ``log_metric`` (TRL >= 1.x), the batch means
of the verdict metrics are logged as ``<name>/<metric>`` (plus ``<name>/acc/<family>``), and
``log_extra`` adds a ``<name>_reason`` column to the completions table.

Importable by name: ``rlvr.rewards.chem_reward``, ``stoich_reward``, ``mol_reward``,
``format_reward``, ``partial_reward``; :func:`make_reward` builds others.
"""
from __future__ import annotations

import logging
from collections import defaultdict
from typing import Any, Callable, Iterable, Mapping, Sequence

from rlvr.rewards.scoring import answered, family_selector, load_task, scalar_metrics, score, summary
from rlvr.task import Task, TaskFormatError

log = logging.getLogger(__name__)

RewardFunc = Callable[..., "list[float | None]"]

_RECORD_COLUMNS = ("id", "family", "prompt", "ground_truth", "meta")


def tasks_from_columns(n: int, columns: Mapping[str, Any]) -> list[Task | None]:
    """The task of each of ``n`` rows from TRL's column kwargs (None where the row has no readable task)."""
    task_json = columns.get("task_json")
    tasks: list[Task | None] = []
    for i in range(n):
        try:
            if task_json is not None:
                tasks.append(load_task(task_json[i]))
            elif all(columns.get(c) is not None for c in ("id", "family", "ground_truth")):
                record = {c: columns[c][i] for c in _RECORD_COLUMNS if columns.get(c) is not None}
                record.setdefault("meta", {})
                record.setdefault("prompt", [])  # TRL passes the prompt separately; the checkers do not need it
                tasks.append(load_task(record))
            else:
                tasks.append(None)
        except (TaskFormatError, ValueError, TypeError, IndexError, KeyError) as exc:
            log.error("row %d: unreadable task record (%s); reward 0", i, exc)
            tasks.append(None)
    return tasks


def _log(name: str, tasks: Sequence[Task | None], verdicts: Sequence[Any], columns: Mapping[str, Any]) -> None:
    log_metric = columns.get("log_metric")
    log_extra = columns.get("log_extra")
    if callable(log_extra):
        log_extra(f"{name}_reason", ["" if v is None else v.reason for v in verdicts])
    if not callable(log_metric):
        return
    sums: dict[str, float] = defaultdict(float)
    counts: dict[str, int] = defaultdict(int)
    for task, verdict in zip(tasks, verdicts):
        if verdict is None or task is None:
            continue
        values = {**scalar_metrics(verdict.metrics), **summary(verdict)}
        values[f"acc/{task.family}"] = float(bool(verdict.correct))
        for key, value in values.items():
            sums[key] += value
            counts[key] += 1
    for key in sorted(sums):
        log_metric(f"{name}/{key}", sums[key] / counts[key])


def make_reward(
    reward: str | Mapping[str, str] | None = None,
    families: str | Iterable[str] | None = None,
    *,
    name: str | None = None,
    log_metrics: bool = True,
    **verify_options: Any,
) -> RewardFunc:
    """A TRL reward function scoring rows with :func:`rlvr.api.verify`.

    Args:
        reward: the checkers' reward mode for every family (``"em"``, ``"shaped"``...) or per family
            ``{"stoich.": "f1", "mol.": "shaped"}``; None: the family's default, or the trainer's
            ``reward_mode`` column/kwarg when given.
        families: family names or prefixes (``"stoich."``) this function scores; rows of other
            families get ``None``. None: every family.
        name: the function's ``__name__`` (TRL logs each reward under it).
        log_metrics: log per-metric batch means through TRL's ``log_metric``/``log_extra``.
        verify_options: further keyword options for the checkers.
    """
    selected = family_selector(families)
    fname = name or "chem_reward" + (f"_{reward}" if isinstance(reward, str) else "")

    def reward_fn(prompts: list[Any], completions: list[Any], **kwargs: Any) -> list[float | None]:
        mode = reward if reward is not None else kwargs.get("reward_mode")
        n = len(completions)
        tasks = tasks_from_columns(n, kwargs)
        out: list[float | None] = []
        verdicts: list[Any] = []
        for task, completion in zip(tasks, completions):
            if task is None:
                out.append(0.0)
                verdicts.append(None)
                continue
            if not selected(task.family):
                out.append(None)
                verdicts.append(None)
                continue
            verdict = score(task, completion, mode, **verify_options)
            out.append(float(verdict.reward))
            verdicts.append(verdict)
        if log_metrics:
            _log(fname, tasks, verdicts, kwargs)
        return out

    reward_fn.__name__ = fname
    reward_fn.__qualname__ = fname
    reward_fn.__doc__ = (
        f"TRL reward `{fname}`: verifier reward of each completion"
        + (f" (families {families!r})" if families is not None else "")
        + (f", reward mode {reward!r}" if reward is not None else "")
        + "; None for rows of other families."
    )
    return reward_fn


def format_reward(prompts: list[Any], completions: list[Any], **kwargs: Any) -> list[float | None]:
    """1.0 when the completion has a readable answer block for its task (right or wrong), else 0.0."""
    tasks = tasks_from_columns(len(completions), kwargs)
    out: list[float | None] = []
    verdicts = []
    for task, completion in zip(tasks, completions):
        if task is None:
            out.append(0.0)
            verdicts.append(None)
            continue
        verdict = score(task, completion)
        out.append(float(answered(verdict)))
        verdicts.append(verdict)
    log_metric = kwargs.get("log_metric")
    scored = [v for v in verdicts if v is not None]
    if callable(log_metric) and scored:
        log_metric("format_reward/answered", sum(answered(v) for v in scored) / len(scored))
    return out


#: verifier reward for every family (strict by default)
chem_reward = make_reward(name="chem_reward")
#: stoichiometry families only (None for other rows)
stoich_reward = make_reward(families="stoich.", name="stoich_reward")
#: molecular families only (None for other rows)
mol_reward = make_reward(families="mol.", name="mol_reward")
#: exact match only, whatever the recipe's reward_mode (an all-or-nothing bonus next to a partial-credit reward)
exact_reward = make_reward(reward="em", name="exact_reward")
#: partial credit: F1 on stoichiometry bags, fraction of correct keys on molecular tasks
partial_reward = make_reward(reward={"stoich.": "f1", "mol.": "shaped"}, name="partial_reward")

__all__ = ["chem_reward", "exact_reward", "format_reward", "make_reward", "mol_reward", "partial_reward", "stoich_reward", "tasks_from_columns"]
