"""verl adapter: ``compute_score(data_source, solution_str, ground_truth, extra_info=None) -> dict``.

Point verl at it with ``custom_reward_function.path=<site-packages>/rlvr/rewards/verl.py`` and
``custom_reward_function.name=compute_score`` on a parquet written by ``rlvr export --format verl``,
whose rows carry the full task record in ``extra_info.task_json`` (and the ground truth, as JSON, in
``reward_model.ground_truth``). The result has ``score`` (the verifier reward) plus ``acc`` and
``answered``: the same keys for every family, so verl can stack them across a mixed batch.
"""
from __future__ import annotations

import json
import logging
from typing import Any, Mapping

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
    try:
        task = task_of(ground_truth, extra_info)
    except (TaskFormatError, ValueError, TypeError) as exc:
        log.error("verl row from %s: %s; score 0", data_source, exc)
        return {"score": 0.0, "acc": 0.0, "answered": 0.0}
    return summary(score(task, solution_str, reward_mode))


__all__ = ["compute_score", "task_of"]
