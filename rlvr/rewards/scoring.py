"""The one scorer under every trainer adapter (TRL, verl, OpenRLHF, the HTTP server).

Adapters only turn their framework's inputs into ``(task, completion)`` pairs and call
:func:`rlvr.api.verify` (after :func:`rlvr.api.prepare` on a batch); nothing here checks an answer itself.
"""
from __future__ import annotations

import logging
from functools import lru_cache
from typing import Any, Iterable, Mapping

from rlvr.api import prepare, verify
from rlvr.reasons import answered
from rlvr.task import Task, TaskFormatError, Verdict

log = logging.getLogger(__name__)

#: the per-sample numbers every adapter reports (same keys for every family, so batches stack)
SUMMARY_KEYS = ("score", "acc", "answered")


@lru_cache(maxsize=2048)
def _parse_task_json(text: str) -> Task:
    return Task.from_json(text)


def load_task(value: Any) -> Task:
    """A :class:`Task` from a ``task_json`` string, a record mapping or a Task (JSON strings parsed once, cached)."""
    if isinstance(value, Task):
        return value
    if isinstance(value, (bytes, bytearray)):
        value = value.decode("utf-8")
    if isinstance(value, str):
        return _parse_task_json(value)
    if isinstance(value, Mapping):
        if "task_json" in value:
            return load_task(value["task_json"])
        return Task.from_dict(value)
    raise TaskFormatError(f"cannot read a task from {type(value).__name__}")


def family_selector(families: str | Iterable[str] | None):
    """A predicate on family names: exact names, or prefixes ending in ``.`` (``"stoich."``); None = all."""
    if families is None:
        return lambda family: True
    names = [families] if isinstance(families, str) else list(families)
    exact = {n for n in names if not n.endswith(".")}
    prefixes = tuple(n for n in names if n.endswith("."))
    exact_prefixes = tuple(n + "." for n in exact)  # "stoich" also selects "stoich.t1"
    return lambda family: family in exact or family.startswith(prefixes) or family.startswith(exact_prefixes)


def mode_for(reward: str | Mapping[str, str] | None, family: str) -> str | None:
    """The checker reward mode for ``family``: one mode for all, or ``{family or prefix: mode}`` (longest match)."""
    if reward is None or isinstance(reward, str):
        return reward
    best = None
    for key, mode in reward.items():
        if family == key or (key.endswith(".") and family.startswith(key)) or family.startswith(key + "."):
            if best is None or len(key) > len(best[0]):
                best = (key, mode)
    if best is None:
        return reward.get("*")
    return best[1]


def score(task: Task, completion: Any, reward: str | Mapping[str, str] | None = None, **options: Any) -> Verdict:
    """:func:`rlvr.api.verify` with the family's reward mode; an unknown mode raises (a config error)."""
    mode = mode_for(reward, task.family)
    if mode is not None:
        options = {**options, "reward": mode}
    return verify(task, completion, **options)


def summary(verdict: Verdict) -> dict[str, float]:
    """``{"score", "acc", "answered"}`` of one verdict (floats)."""
    return {"score": float(verdict.reward), "acc": float(bool(verdict.correct)), "answered": float(answered(verdict))}


def scalar_metrics(metrics: Mapping[str, Any]) -> dict[str, float]:
    """The top-level numeric (and boolean) metrics of a verdict, as floats; nested values are skipped."""
    out: dict[str, float] = {}
    for key, value in metrics.items():
        if isinstance(value, bool):
            out[key] = float(value)
        elif isinstance(value, (int, float)):
            out[key] = float(value)
    return out


def response_of(query: str, prompt: str | None) -> str:
    """The model's response inside an OpenRLHF ``query`` (prompt + response, as templated text)."""
    if not isinstance(query, str):
        return ""
    if isinstance(prompt, str) and prompt:
        if query.startswith(prompt):
            return query[len(prompt):]
        at = query.rfind(prompt)
        if at >= 0:
            return query[at + len(prompt):]
    return query


def score_queries(
    queries: list[Any],
    prompts: list[Any] | None,
    labels: list[Any],
    *,
    reward: str | Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """Score OpenRLHF-style batches: ``labels[i]`` is the task record (``task_json``) of ``queries[i]``.

    Returns lists: ``rewards`` and ``scores`` (the verifier reward in [0, 1]) and
    ``extra_logs`` with ``acc`` and ``answered`` per sample. Raises ``ValueError`` naming the first
    malformed row (shape or task record).
    """
    n = len(queries)
    if labels is None or len(labels) != n:
        raise ValueError(f"`labels` must list one task record (task_json) per query: {n} queries, "
                         f"{'no' if labels is None else len(labels)} labels")
    if prompts is not None and len(prompts) != n:
        raise ValueError(f"`prompts` must have one entry per query: {n} queries, {len(prompts)} prompts")
    tasks = []
    for i, label in enumerate(labels):
        try:
            tasks.append(load_task(label))
        except (TaskFormatError, ValueError, TypeError) as exc:
            raise ValueError(f"labels[{i}] is not a task record: {exc}") from exc
    responses = [response_of(query, prompts[i] if prompts is not None else None) for i, query in enumerate(queries)]
    if n > 1:  # the batch's molecule work together, before the verdicts
        prepare(tasks, responses)
    rewards: list[float] = []
    acc: list[float] = []
    ans: list[float] = []
    for task, response in zip(tasks, responses):
        s = summary(score(task, response, reward))
        rewards.append(s["score"])
        acc.append(s["acc"])
        ans.append(s["answered"])
    return {"rewards": rewards, "scores": list(rewards), "extra_logs": {"acc": acc, "answered": ans}}
