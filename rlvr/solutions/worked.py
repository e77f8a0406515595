"""Worked solutions through the family registry: the ``solve`` hook of each family, verified.

:func:`worked` turns a trace writer (``(task, SolutionOptions) -> (Trace, answer)``) into the
``FamilySpec.solve`` hook (``(task, style, max_chars) -> text``); the family modules set it.
"""
from __future__ import annotations

from typing import Any, Callable, Mapping

from rlvr.api import verify as verify_completion
from rlvr.registry import Solver, get_family, list_families
from rlvr.solutions.common import SolutionError, SolutionOptions, Trace, render
from rlvr.task import Task

Writer = Callable[[Task, SolutionOptions], "tuple[Trace, str]"]


def worked(writer: Writer) -> Solver:
    """The ``solve`` hook of a trace writer: the rendered trace and answer within the budget."""

    def solve(task: Task, style: str = "terse", max_chars: int | None = None) -> str:
        options = SolutionOptions(style=style, max_chars=max_chars)
        trace, answer = writer(task, options)
        return render(trace, answer, options, what=f"task {task.id}")

    solve.__name__ = getattr(writer, "__name__", "solve")
    solve.__doc__ = writer.__doc__
    return solve


def supported_families() -> list[str]:
    """Families with a worked-solution writer (a ``solve`` hook on their :class:`~rlvr.registry.FamilySpec`)."""
    return [name for name in list_families() if get_family(name).solve is not None]


def write_solution(task: Task | Mapping[str, Any], style: str = "terse", *, max_chars: int | None = None) -> str:
    """The worked solution of ``task`` without the verification gate (see :func:`worked_solution`)."""
    task = Task.from_dict(task)
    try:
        solve = get_family(task.family).solve
    except KeyError:  # an unregistered family has no writer either
        solve = None
    if solve is None:
        raise SolutionError(f"no worked-solution writer for family {task.family!r}; supported: {supported_families()}")
    return solve(task, style=style, max_chars=max_chars)


def worked_solution(
    task: Task | Mapping[str, Any],
    style: str = "terse",
    *,
    max_chars: int | None = None,
    verify: bool = True,
) -> str:
    """A worked solution of ``task`` ending in ``<answer>...</answer>``, verified at reward 1.0.

    ``style``: ``terse`` (the essential steps) or ``detailed`` (also compositions, checks, atom
    walks); ``max_chars`` bounds the whole completion (defaults: :data:`~rlvr.solutions.common.DEFAULT_MAX_CHARS`; a
    detailed trace over budget falls back to terse). Raises :class:`SolutionError` when no writer
    exists, the trace does not fit, or the checker does not give it full reward.
    """
    task = Task.from_dict(task)
    text = write_solution(task, style, max_chars=max_chars)
    if verify:
        verdict = verify_completion(task, text)
        if verdict.reward < 1.0 or not verdict.correct:
            raise SolutionError(
                f"task {task.id}: worked solution scored {verdict.reward} ({verdict.reason}); not emitted"
            )
    return text



def solution_messages(task: Task | Mapping[str, Any], style: str = "terse", **kwargs: Any) -> list[dict[str, str]]:
    """The worked solution as a conversational completion: ``[{"role": "assistant", "content": ...}]``."""
    return [{"role": "assistant", "content": worked_solution(task, style, **kwargs)}]
