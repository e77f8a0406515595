"""Worked solutions: a short, correct chain of reasoning for any task, ending in the verified answer block.

- :func:`worked_solution` ``(task, style="terse"|"detailed", max_chars=None) -> str``: the completion
  a model should write; verified by :func:`rlvr.verify` before it is returned (reward must be 1.0,
  else :class:`SolutionError`).
- :func:`few_shot_messages` builds a prompt with ``k`` solved training examples before the task.
- :func:`solution_messages` is the ``completion`` column (one assistant message) of SFT datasets.

Writers derive every number from what the prompt shows (plus, for closed-book stoichiometry, the
reference reaction, which is the chemistry being taught); none reads the ground-truth answer.
"""
from __future__ import annotations

from typing import Any, Callable, Mapping

from rlvr.solutions.common import (
    DEFAULT_MAX_CHARS,
    STYLES,
    SolutionError,
    SolutionOptions,
    Trace,
    render,
)
from rlvr.task import Task

Writer = Callable[[Task, SolutionOptions], "tuple[Trace, str]"]


def _writers() -> dict[str, Writer]:
    from rlvr.solutions import molecules, stoich

    return {**stoich.WRITERS, **molecules.WRITERS}


def supported_families() -> list[str]:
    """Families with a worked-solution writer."""
    return sorted(_writers())


def write_solution(task: Task | Mapping[str, Any], style: str = "terse", *, max_chars: int | None = None) -> str:
    """The worked solution of ``task`` without the verification gate (see :func:`worked_solution`)."""
    task = Task.from_dict(task)
    options = SolutionOptions(style=style, max_chars=max_chars)
    writer = _writers().get(task.family)
    if writer is None:
        raise SolutionError(f"no worked-solution writer for family {task.family!r}; supported: {supported_families()}")
    trace, answer = writer(task, options)
    return render(trace, answer, options, what=f"task {task.id}")


def worked_solution(
    task: Task | Mapping[str, Any],
    style: str = "terse",
    *,
    max_chars: int | None = None,
    verify: bool = True,
) -> str:
    """A worked solution of ``task`` ending in ``<answer>...</answer>``, verified at reward 1.0.

    ``style``: ``terse`` (the essential steps) or ``detailed`` (also compositions, checks, atom
    walks); ``max_chars`` bounds the whole completion (defaults: :data:`DEFAULT_MAX_CHARS`; a
    detailed trace over budget falls back to terse). Raises :class:`SolutionError` when no writer
    exists, the trace does not fit, or the checker does not give it full reward.
    """
    task = Task.from_dict(task)
    text = write_solution(task, style, max_chars=max_chars)
    if verify:
        from rlvr.api import verify as verify_completion

        verdict = verify_completion(task, text)
        if verdict.reward < 1.0 or not verdict.correct:
            raise SolutionError(
                f"task {task.id}: worked solution scored {verdict.reward} ({verdict.reason}); not emitted"
            )
    return text


def solution_messages(task: Task | Mapping[str, Any], style: str = "terse", **kwargs: Any) -> list[dict[str, str]]:
    """The worked solution as a conversational completion: ``[{"role": "assistant", "content": ...}]``."""
    return [{"role": "assistant", "content": worked_solution(task, style, **kwargs)}]


from rlvr.solutions.fewshot import few_shot_messages, few_shot_task  # noqa: E402

__all__ = [
    "DEFAULT_MAX_CHARS", "STYLES", "SolutionError", "SolutionOptions", "few_shot_messages", "few_shot_task",
    "solution_messages", "supported_families", "worked_solution", "write_solution",
]
