"""Worked solutions: a short, correct chain of reasoning for any task, ending in the verified answer block.

- :func:`worked_solution` ``(task, style="terse"|"detailed", max_chars=None) -> str``: the completion
  a model should write; verified by :func:`rlvr.verify` before it is returned (reward must be 1.0,
  else :class:`SolutionError`). It calls the family's ``solve`` hook (:mod:`rlvr.registry`).
- :func:`few_shot_messages` builds a prompt with ``k`` solved training examples before the task;
  :func:`few_shot_task` is the task with that prompt (regenerable: the examples are options of its config).
- :func:`solution_messages` is the ``completion`` column (one assistant message) of SFT datasets.

Writers derive every number from what the prompt shows (plus, for closed-book stoichiometry, the
reference reaction, which is the chemistry being taught); none reads the ground-truth answer.
"""
from __future__ import annotations

from rlvr.solutions.common import DEFAULT_MAX_CHARS, STYLES, SolutionError, SolutionOptions, Trace
from rlvr.solutions.fewshot import few_shot_messages, few_shot_task
from rlvr.solutions.worked import solution_messages, supported_families, worked, worked_solution, write_solution

__all__ = [
    "DEFAULT_MAX_CHARS", "STYLES", "SolutionError", "SolutionOptions", "Trace", "few_shot_messages", "few_shot_task",
    "solution_messages", "supported_families", "worked", "worked_solution", "write_solution",
]
