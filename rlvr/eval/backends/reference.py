"""Reference backends that need no model: ``oracle`` (ceiling) and ``copy-input`` (floor)."""
from __future__ import annotations

from rlvr.api import oracle_completion
from rlvr.eval.backends.base import Backend, Completion
from rlvr.registry import get_family
from rlvr.task import Task

#: the name of the "nothing happens" baseline in ``FamilySpec.baselines``
COPY_INPUT = "copy-input"


class OracleBackend(Backend):
    """Answers every task correctly from its ground truth (:func:`rlvr.api.oracle_completion`)."""

    name = "oracle"

    def _generate(self, tasks: list[Task], samples: int) -> list[list[Completion]]:
        return [[Completion(oracle_completion(task))] * samples for task in tasks]


def copy_input_completion(task: Task) -> str:
    """The "nothing happens" answer: the task's input given back unchanged, inside ``<answer>``.

    The family's ``copy-input`` baseline (``FamilySpec.baselines``: e.g. the input bag as the
    predicted products, the equation with every coefficient 1, the molecule shown as every value);
    a family without one gets its last user message verbatim.
    """
    baseline = get_family(task.family).baselines.get(COPY_INPUT)
    if baseline is not None:
        return baseline(task)
    return "<answer>" + task.user_text.strip() + "</answer>"


class CopyInputBackend(Backend):
    """Answers with the task's input unchanged (see :func:`copy_input_completion`)."""

    name = COPY_INPUT

    def _generate(self, tasks: list[Task], samples: int) -> list[list[Completion]]:
        return [[Completion(copy_input_completion(task))] * samples for task in tasks]
