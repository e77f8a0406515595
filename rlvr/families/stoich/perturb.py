"""Minimal wrong variants of a correct stoichiometry answer (the conformance checks' near misses): one
coefficient ``{k}`` moved by one, either way (never below 1)."""
from __future__ import annotations

import re

from rlvr.task import Task

_ANSWER = re.compile(r"<answer>(.*)</answer>", re.S)
_COEFFICIENT = re.compile(r"\{(\d+)\}")


def coefficient_steps(task: Task, completion: str) -> list[str]:
    """``completion`` with one coefficient of its answer block +-1, for every coefficient."""
    match = _ANSWER.search(completion)
    if match is None:
        return []
    start, body = match.start(1), match.group(1)
    out = []
    for coef in _COEFFICIENT.finditer(body):
        k = int(coef.group(1))
        for new in (k - 1, k + 1):
            if new >= 1:
                out.append(completion[:start] + body[:coef.start(1)] + str(new) + body[coef.end(1):]
                           + completion[match.end(1):])
    return out


__all__ = ["coefficient_steps"]
