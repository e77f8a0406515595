"""The ``/get_reward`` protocol: configuration, request validation, and the scoring job run in a child process.

A request body ``{"query": [...], "prompts": [...], "labels": [...]}`` is decoded and validated by
:func:`prepare_request` (in the scoring process, so the HTTP worker only moves bytes), each sample
is scored by :func:`score_item` with :func:`rlvr.rewards.scoring.score_queries`, and
:func:`assemble` builds ``{"rewards", "scores", "extra_logs": {"acc", "answered"}}``.
"""
from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from typing import Any, Sequence

from rlvr.deadline import resolve_timeout
from rlvr.reasons import Reason, answered
from rlvr.rewards.scoring import load_task, score_queries
from rlvr.task import TaskFormatError

#: default request-body limit (bytes)
DEFAULT_MAX_BODY = 16 * 1024 * 1024
#: default cap on samples per request
DEFAULT_MAX_ITEMS = 8192
#: environment variable holding the shared-secret token (``Authorization: Bearer <token>``)
TOKEN_ENV_VAR = "RLVR_REWARD_TOKEN"


@dataclass(frozen=True)
class ServerConfig:
    """Where to listen, what to accept, and how to score.

    ``token``: when set, ``POST /get_reward`` needs ``Authorization: Bearer <token>`` (401 without).
    ``timeout``: the per-verdict deadline in seconds (None: none); default ``$RLVR_VERDICT_TIMEOUT`` or 5.
    ``workers``: HTTP worker processes, each with its own scoring process.
    ``imports``: plugin modules or ``.py`` files each scoring process imports (custom families).
    """

    host: str = "127.0.0.1"
    port: int = 5000
    max_body_bytes: int = DEFAULT_MAX_BODY
    max_items: int = DEFAULT_MAX_ITEMS
    reward_mode: str | None = None
    token: str | None = field(default=None, repr=False)
    timeout: float | None = field(default_factory=resolve_timeout)
    workers: int = 1
    imports: tuple[str, ...] = ()
    log_level: str = "warning"

    def to_json(self) -> str:
        """The config as JSON (how it reaches worker processes)."""
        return json.dumps(dataclasses.asdict(self))

    @classmethod
    def from_json(cls, text: str) -> "ServerConfig":
        data = json.loads(text)
        data["imports"] = tuple(data.get("imports") or ())
        return cls(**data)


class RequestError(Exception):
    """A client error: HTTP status plus message."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message

    def __reduce__(self) -> tuple[Any, ...]:  # crosses the process boundary intact
        return (RequestError, (self.status, self.message))


def parse_request(data: Any, max_items: int = DEFAULT_MAX_ITEMS) -> tuple[list[str], list[str] | None, list[Any]]:
    """Validate a decoded ``/get_reward`` body: ``(queries, prompts, labels)`` or :class:`RequestError` (422)."""
    if not isinstance(data, dict):
        raise RequestError(422, f"body must be a JSON object with `query`, `prompts`, `labels`; got {type(data).__name__}")
    queries = data.get("query", data.get("queries"))
    if not isinstance(queries, list) or not all(isinstance(q, str) for q in queries):
        raise RequestError(422, "`query` must be a list of strings (prompt + response)")
    if len(queries) > max_items:
        raise RequestError(413, f"{len(queries)} samples in one request; the limit is {max_items}")
    prompts = data.get("prompts")
    if prompts is not None and (not isinstance(prompts, list) or not all(isinstance(p, str) for p in prompts)):
        raise RequestError(422, "`prompts` must be a list of strings")
    if prompts is not None and len(prompts) != len(queries):
        raise RequestError(422, f"`prompts` has {len(prompts)} entries for {len(queries)} queries")
    labels = data.get("labels")
    if not isinstance(labels, list):
        raise RequestError(422, "`labels` must be a list of task records (the task_json column of `rlvr export`)")
    if len(labels) != len(queries):
        raise RequestError(422, f"`labels` has {len(labels)} entries for {len(queries)} queries")
    return queries, prompts, labels


Item = tuple[str, "str | None", Any, "str | None"]


def prepare_request(payload: tuple[bytes, int, str | None]) -> list[Item]:
    """``(body, max_items, reward_mode)`` -> one ``(query, prompt, label, mode)`` per sample, or :class:`RequestError`."""
    body, max_items, mode = payload
    try:
        data = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise RequestError(400, f"body is not valid JSON: {exc}") from None
    queries, prompts, labels = parse_request(data, max_items)
    for i, label in enumerate(labels):
        try:
            load_task(label)
        except (TaskFormatError, ValueError, TypeError) as exc:
            raise RequestError(422, f"labels[{i}] is not a task record: {exc}") from None
    return [(q, None if prompts is None else prompts[i], labels[i], mode) for i, q in enumerate(queries)]


def score_item(item: Item) -> tuple[float, float, float]:
    """``(reward, acc, answered)`` of one sample (a ``ValueError`` for an unknown reward mode)."""
    query, prompt, label, mode = item
    result = score_queries([query], None if prompt is None else [prompt], [label], reward=mode)
    return result["rewards"][0], result["extra_logs"]["acc"][0], result["extra_logs"]["answered"][0]


def lost_item(kind: str) -> tuple[float, float, float]:
    """The summary of a sample whose verdict hung past the deadline or crashed the scoring process."""
    reason = Reason.TIMEOUT if kind == "timeout" else Reason.CHECKER_ERROR
    return 0.0, 0.0, float(answered(reason))


def assemble(summaries: Sequence[tuple[float, float, float]]) -> dict[str, Any]:
    """The response body from per-sample ``(reward, acc, answered)``."""
    rewards = [s[0] for s in summaries]
    return {"rewards": rewards, "scores": list(rewards),
            "extra_logs": {"acc": [s[1] for s in summaries], "answered": [s[2] for s in summaries]}}


__all__ = ["DEFAULT_MAX_BODY", "DEFAULT_MAX_ITEMS", "TOKEN_ENV_VAR", "RequestError", "ServerConfig", "assemble",
           "lost_item", "parse_request", "prepare_request", "score_item"]
