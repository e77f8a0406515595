"""The two records that cross every module boundary: :class:`Task` and :class:`Verdict`."""
from __future__ import annotations

import dataclasses
import json
import os
from dataclasses import asdict, dataclass, field
from typing import Any, Mapping

from rlvr.rng import stable_hash

REQUIRED_TASK_FIELDS = ("id", "family", "prompt", "ground_truth", "meta")


class TaskFormatError(ValueError):
    """A task record is malformed (raised at load time, never inside a reward call)."""


@dataclass
class Task:
    """A JSON-serialisable task: what the model sees (``prompt``) and what the checker needs.

    ``prompt`` is a list of chat messages (``{"role": ..., "content": ...}``);
    ``ground_truth`` is a family-specific dict; ``meta`` carries the split, seed, index,
    generator options and family-specific provenance.
    """

    id: str
    family: str
    prompt: list[dict[str, str]]
    ground_truth: dict[str, Any]
    meta: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, sort_keys=False)

    @property
    def user_text(self) -> str:
        """The content of the last user message (the question as shown to the model)."""
        for message in reversed(self.prompt):
            if message.get("role") == "user":
                return message.get("content", "")
        return ""

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "Task":
        """Build a task from a mapping, validating its shape (clear error on bad records)."""
        if isinstance(data, Task):
            return data
        if not isinstance(data, Mapping):
            raise TaskFormatError(f"task record must be a mapping, got {type(data).__name__}")
        missing = [k for k in REQUIRED_TASK_FIELDS if k not in data]
        if missing:
            raise TaskFormatError(f"task record is missing field(s) {missing}")
        prompt = data["prompt"]
        if isinstance(prompt, str):
            prompt = json.loads(prompt) if prompt.lstrip().startswith("[") else [{"role": "user", "content": prompt}]
        if not isinstance(prompt, list) or not all(isinstance(m, Mapping) and "content" in m for m in prompt):
            raise TaskFormatError(f"task {data.get('id')!r}: prompt must be a list of chat messages")
        gt = data["ground_truth"]
        if isinstance(gt, str):
            try:
                gt = json.loads(gt)
            except json.JSONDecodeError as exc:
                raise TaskFormatError(f"task {data.get('id')!r}: ground_truth is not valid JSON: {exc}") from exc
        if not isinstance(gt, Mapping):
            raise TaskFormatError(f"task {data.get('id')!r}: ground_truth must be a dict")
        meta = data["meta"]
        if isinstance(meta, str):
            meta = json.loads(meta)
        if meta is None:
            meta = {}
        if not isinstance(meta, Mapping):
            raise TaskFormatError(f"task {data.get('id')!r}: meta must be a dict")
        return cls(
            id=str(data["id"]),
            family=str(data["family"]),
            prompt=[dict(m) for m in prompt],
            ground_truth=dict(gt),
            meta=dict(meta),
        )

    @classmethod
    def from_json(cls, line: str) -> "Task":
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            raise TaskFormatError(f"task line is not valid JSON: {exc}") from exc
        return cls.from_dict(data)


@dataclass
class Verdict:
    """What a checker returns: a reward in [0, 1], a correctness flag, metrics and a reason code.

    ``reason`` is ``"ok"`` for a correct answer, otherwise a short code such as
    ``no_answer``, ``unparsable``, ``wrong_count``, ``unbalanced``, ``too_long``.
    """

    reward: float
    correct: bool
    metrics: dict[str, Any] = field(default_factory=dict)
    reason: str = "ok"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @property
    def diagnostics(self) -> Mapping[str, Any]:
        """The checker's diagnostics of a wrong answer (``metrics["diagnostics"]``; empty when absent)."""
        diag = self.metrics.get("diagnostics") if isinstance(self.metrics, Mapping) else None
        return diag if isinstance(diag, Mapping) else {}

    @classmethod
    def fail(cls, reason: str, **metrics: Any) -> "Verdict":
        """A zero-reward verdict with a reason code."""
        return cls(reward=0.0, correct=False, metrics=dict(metrics), reason=reason)


def load_tasks(path: str | os.PathLike[str]) -> list[Task]:
    """Every task of a JSONL file, validated (errors name the file and line; blank lines skipped)."""
    tasks = []
    with open(path, encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                tasks.append(Task.from_json(line))
            except TaskFormatError as exc:
                raise TaskFormatError(f"{path}:{lineno}: {exc}") from exc
    return tasks


def answer_key(task: Task) -> str:
    """The task's true answer as one comparable string (its ground truth as canonical JSON): two tasks
    share it exactly when they have the same answer."""
    return json.dumps(task.ground_truth, sort_keys=True, default=str)


def task_id(family: str, split: str, seed: int, index: int, cfg_key: str) -> str:
    """The id of a task: enough, with ``meta["config"]``, to regenerate it."""
    return f"{family}:{split}:{seed}:{index}:{cfg_key}"


def config_key(config: Any) -> str:
    """A short stable fingerprint of a config dataclass (used in task ids)."""
    payload = json.dumps(dataclasses.asdict(config), sort_keys=True, default=str)
    return format(stable_hash(payload) & 0xFFFFFFFF, "08x")
