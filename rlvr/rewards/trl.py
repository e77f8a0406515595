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
:func:`make_async_reward` builds an ``async`` reward function that scores each batch concurrently
in scoring processes, a hung verdict costing one process rather than the training step.
"""
from __future__ import annotations

import asyncio
import logging
import os
import weakref
from collections import defaultdict
from typing import Any, Callable, Iterable, Mapping, Sequence

from rlvr.api import prepare
from rlvr.deadline import resolve_timeout
from rlvr.reasons import Reason
from rlvr.rewards.isolation import ScorerProcess
from rlvr.rewards.scoring import answered, family_selector, load_task, scalar_metrics, score, summary
from rlvr.task import Task, TaskFormatError, Verdict

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
        rows = [(t, c) for t, c in zip(tasks, completions) if t is not None and selected(t.family)]
        if len(rows) > 1:  # the batch's molecule work together, before the verdicts
            prepare([t for t, _ in rows], [c for _, c in rows], timeout=verify_options.get("timeout"))
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


Row = tuple[Task, Any, Any, dict[str, Any]]


def _rows(payload: list[Row]) -> list[Row]:
    """The items of an async-reward job (already validated in the trainer process)."""
    return payload


def _score_row(row: Row) -> Verdict:
    task, completion, mode, options = row
    return score(task, completion, mode, **options)


def _lost_verdict(kind: str) -> Verdict:
    if kind == "timeout":
        return Verdict.fail(Reason.TIMEOUT, error="the verdict hung past its deadline in native code")
    return Verdict.fail(Reason.CHECKER_ERROR, error="the checker crashed its scoring process")


def _close_scorers(scorers: list[ScorerProcess]) -> None:
    for scorer in scorers:
        scorer.close()


class AsyncReward:
    """An ``async`` TRL reward function (see :func:`make_async_reward`); ``close()`` stops its processes."""

    def __init__(self, reward: str | Mapping[str, str] | None, families: str | Iterable[str] | None, name: str,
                 workers: int, timeout: float | None, imports: Sequence[str], log_metrics: bool,
                 verify_options: Mapping[str, Any]) -> None:
        self.reward = reward
        self.selected = family_selector(families)
        self.__name__ = self.__qualname__ = name
        self.workers = workers
        self.timeout = timeout
        self.log_metrics = log_metrics
        self.verify_options = dict(verify_options)
        self.scorers = [ScorerProcess(timeout, imports=imports) for _ in range(workers)]
        self._finalizer = weakref.finalize(self, _close_scorers, self.scorers)

    async def __call__(self, prompts: list[Any], completions: list[Any], **kwargs: Any) -> list[float | None]:
        mode = self.reward if self.reward is not None else kwargs.get("reward_mode")
        tasks = tasks_from_columns(len(completions), kwargs)
        out: list[float | None] = [0.0 if task is None else None for task in tasks]  # None: another family's row
        verdicts: list[Any] = [None] * len(tasks)
        options = {**self.verify_options, "timeout": 0 if self.timeout is None else self.timeout}
        scored = [i for i, task in enumerate(tasks) if task is not None and self.selected(task.family)]
        rows: list[Row] = [(tasks[i], completions[i], mode, options) for i in scored]  # type: ignore[misc]
        for i, verdict in zip(scored, await self._score(rows)):
            out[i] = float(verdict.reward)
            verdicts[i] = verdict
        if self.log_metrics:
            _log(self.__name__, tasks, verdicts, kwargs)
        return out

    async def _score(self, rows: list[Row]) -> list[Verdict]:
        if not rows:
            return []
        if self.workers == 0:  # in this process, on a thread (the in-process deadline only)
            return await asyncio.to_thread(lambda: [_score_row(r) for r in rows])
        size = -(-len(rows) // self.workers)
        chunks = [rows[i:i + size] for i in range(0, len(rows), size)]
        parts = await asyncio.gather(*(asyncio.to_thread(scorer.run, _rows, chunk, _score_row, _lost_verdict)
                                       for scorer, chunk in zip(self.scorers, chunks)))
        return [v for part in parts for v in part]

    def close(self) -> None:
        """Stop the scoring processes (they restart on the next call)."""
        _close_scorers(self.scorers)


def make_async_reward(
    reward: str | Mapping[str, str] | None = None,
    families: str | Iterable[str] | None = None,
    *,
    name: str | None = None,
    workers: int | None = None,
    timeout: float | str | None = None,
    imports: Sequence[str] = (),
    log_metrics: bool = True,
    **verify_options: Any,
) -> AsyncReward:
    """An ``async`` TRL reward function: like :func:`make_reward`, scoring each batch concurrently.

    The batch is split over ``workers`` scoring processes (default ``min(4, cores)``; ``0``: a
    thread of this process), every verdict under a deadline of ``timeout`` seconds (default
    ``$RLVR_VERDICT_TIMEOUT`` or 5): a verdict past it scores 0 with reason ``timeout``, and one
    stuck in native code costs its process, which is replaced. The processes start on the first
    call; ``imports`` are modules or ``.py`` files they import first (custom families registered
    with :func:`rlvr.registry.register_family` in this process are not seen there otherwise).
    TRL (>= 1.x) awaits async reward functions on its own event loop, concurrently with the others.
    """
    n = min(4, os.cpu_count() or 1) if workers is None else int(workers)
    if n < 0:
        raise ValueError(f"workers must be >= 0, got {workers}")
    fname = name or "chem_reward_async" + (f"_{reward}" if isinstance(reward, str) else "")
    return AsyncReward(reward, families, fname, n, resolve_timeout(timeout), tuple(imports), log_metrics,
                       verify_options)


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

__all__ = ["AsyncReward", "chem_reward", "exact_reward", "format_reward", "make_async_reward", "make_reward", "mol_reward", "partial_reward", "stoich_reward", "tasks_from_columns"]
