"""What every conformance check shares: its error, the answer block of a completion, a completion shown
short in a message, and the minimal perturbations of a correct answer (the wrong answers next to it).

:mod:`rlvr.families.conformance` re-exports these names; the checks of :mod:`rlvr.families.promises`,
:mod:`rlvr.families.items` and :mod:`rlvr.families.leaks` build on them.
"""
from __future__ import annotations

import re
from collections import OrderedDict
from typing import Any, Callable

from rlvr.families.derived import key_steps, step_number
from rlvr.registry import get_family
from rlvr.task import Task

_ANSWER = re.compile(r"<answer>(.*)</answer>", re.S)
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
#: perturbations kept per process (a family's ``perturb`` hook can be costly: a molecule edited until a
#: constraint breaks), keyed by the hook, the task id and the completion
_CACHE_SIZE = 4096
_CACHE: OrderedDict[tuple[Any, str, str], list[str]] = OrderedDict()


class ConformanceError(AssertionError):
    """A family broke one of the checks."""


def require(condition: bool, message: str) -> None:
    """Raise :class:`ConformanceError` with ``message`` unless ``condition`` holds."""
    if not condition:
        raise ConformanceError(message)


def shown(completion: Any) -> str:
    """A completion as a message shows it: its repr, cut after 60 characters."""
    text = str(completion)
    return repr(text if len(text) < 80 else text[:60] + f"... ({len(text)} chars)")


def answer_span(completion: str) -> tuple[int, int]:
    """Where the answer block's body lies in ``completion`` (``ConformanceError`` when there is none)."""
    match = _ANSWER.search(completion)
    require(match is not None, f"the oracle gave no answer block: {completion!r}")
    return match.start(1), match.end(1)


def answer_body(completion: str) -> str | None:
    """The body of the (first) answer block of ``completion``, or None."""
    match = _ANSWER.search(completion)
    return None if match is None else match.group(1)


def near_misses(completion: str) -> list[str]:
    """The default minimal perturbations: each number of the answer block, one at a time, moved by
    one unit of its last written digit either way (``{2}H2O`` -> ``{1}H2O``, ``{3}H2O``, ``H1O``, ...;
    ``46.1`` -> ``46.0``, ``46.2``). Empty when the answer holds no number."""
    start, end = answer_span(completion)
    body = completion[start:end]
    out = []
    for match in _NUMBER.finditer(body):
        for delta in (-1, 1):
            new = step_number(match.group(), delta)
            if new is not None:
                out.append(completion[:start] + body[:match.start()] + new + body[match.end():] + completion[end:])
    return list(dict.fromkeys(out))


def perturbations(task: Task, completion: str) -> list[str]:
    """The minimal perturbations of a correct ``completion``: the family's ``perturb`` hook, else
    :func:`near_misses`, plus each number of a JSON answer one unit off (:func:`key_steps`)."""
    hook: Callable[[Task, str], list[str]] | None = get_family(task.family).perturb
    key = (hook, task.id, completion)
    if key in _CACHE:
        _CACHE.move_to_end(key)
        return list(_CACHE[key])
    own = list(hook(task, completion)) if hook is not None else near_misses(completion)
    out = list(dict.fromkeys(own + key_steps(completion)))
    _CACHE[key] = out
    if len(_CACHE) > _CACHE_SIZE:
        _CACHE.popitem(last=False)
    return list(out)


__all__ = ["ConformanceError", "answer_body", "answer_span", "near_misses", "perturbations", "require", "shown"]
