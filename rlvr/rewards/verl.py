"""verl adapter: ``compute_score(data_source, solution_str, ground_truth, extra_info=None) -> dict``.

Point verl (0.9) at it with ``reward.custom_reward_function.path=<site-packages>/rlvr/rewards/verl.py``
and ``reward.custom_reward_function.name=compute_score`` on a parquet written by ``rlvr export
--format verl``, whose rows carry the full task record in ``extra_info.task_json`` (and the ground
truth, as JSON, in ``reward_model.ground_truth``). The result has ``score`` (the verifier reward) plus
``acc`` and ``answered``: the same keys for every family, so verl can stack them across a mixed batch.
:func:`compute_score_batch` is the same for verl's ``batch`` reward manager, after :func:`rlvr.api.prepare` on the batch.
"""
from __future__ import annotations

import json
import logging
from collections.abc import Mapping, Sequence
from typing import Any

from rlvr.api import prepare
from rlvr.rewards.scoring import load_task, score, summary
from rlvr.task import Task, TaskFormatError

log = logging.getLogger(__name__)


def task_of(ground_truth: Any, extra_info: Mapping[str, Any] | None = None) -> Task:
    """Rebuild the task of a verl row: ``extra_info["task_json"]``, else a full record in ``ground_truth``."""
    if isinstance(extra_info, Mapping) and extra_info.get("task_json"):
        return load_task(extra_info["task_json"])
    record = ground_truth
    if isinstance(record, (str, bytes, bytearray)):
        try:
            record = json.loads(record)
        except json.JSONDecodeError as exc:
            raise TaskFormatError(f"ground_truth is not JSON and extra_info has no task_json: {exc}") from exc
    if isinstance(record, Mapping) and "family" in record and "ground_truth" in record:
        return load_task(record)
    raise TaskFormatError("cannot rebuild the task: put the task record in extra_info.task_json (rlvr export --format verl)")


def compute_score(
    data_source: str,
    solution_str: str,
    ground_truth: Any,
    extra_info: Mapping[str, Any] | None = None,
    reward_mode: str | Mapping[str, str] | None = None,
    **kwargs: Any,
) -> dict[str, float]:
    """Score one verl sample: ``{"score", "acc", "answered"}`` (``score`` is the verifier reward in [0, 1]).

    ``reward_mode`` (set through verl's ``custom_reward_function.reward_kwargs``) selects the
    checkers' reward mode. A row whose task cannot be rebuilt scores 0 and is logged as an error.
    """
    return _scored(_row_task(data_source, ground_truth, extra_info), solution_str, reward_mode)


def _scored(task: Task | None, solution: str, reward_mode: str | Mapping[str, str] | None) -> dict[str, float]:
    """The summary of a row's verdict; 0 everywhere for a row whose task could not be rebuilt."""
    if task is None:
        return {"score": 0.0, "acc": 0.0, "answered": 0.0}
    return summary(score(task, solution, reward_mode))


def _row_task(data_source: str, ground_truth: Any, extra_info: Mapping[str, Any] | None) -> Task | None:
    """The task of a verl row, or None (logged as an error) when it cannot be rebuilt."""
    try:
        return task_of(ground_truth, extra_info)
    except (TaskFormatError, ValueError, TypeError) as exc:
        log.error("verl row from %s: %s; score 0", data_source, exc)
        return None


def compute_score_batch(
    data_sources: Sequence[str],
    solution_strs: Sequence[str],
    ground_truths: Sequence[Any],
    extra_infos: Sequence[Mapping[str, Any] | None] | None = None,
    reward_mode: str | Mapping[str, str] | None = None,
    **kwargs: Any,
) -> list[dict[str, float]]:
    """:func:`compute_score` for a whole batch (verl's ``batch`` reward manager): one dict per sample."""
    n = len(solution_strs)
    if len(data_sources) != n or len(ground_truths) != n or (extra_infos is not None and len(extra_infos) != n):
        raise ValueError(f"verl batch of {n} responses has {len(data_sources)} data sources, "
                         f"{len(ground_truths)} ground truths and "
                         f"{'no' if extra_infos is None else len(extra_infos)} extra_infos")
    infos = extra_infos if extra_infos is not None else [None] * n
    tasks = [_row_task(source, truth, info) for source, truth, info in zip(data_sources, ground_truths, infos)]
    rows = [(task, solution) for task, solution in zip(tasks, solution_strs) if task is not None]
    if len(rows) > 1:  # the batch's molecule work together, before the verdicts
        prepare([t for t, _ in rows], [c for _, c in rows])
    return [_scored(task, solution, reward_mode) for task, solution in zip(tasks, solution_strs)]


__all__ = ["compute_score", "compute_score_batch", "task_of"]
