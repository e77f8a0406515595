"""Reference backends that need no model: ``oracle`` (ceiling) and ``copy-input`` (floor)."""
from __future__ import annotations

import json
from typing import Any, Mapping

from rlvr.eval.backends.base import Backend, Completion
from rlvr.task import Task


class OracleBackend(Backend):
    """Answers every task correctly from its ground truth (:func:`rlvr.api.oracle_completion`)."""

    name = "oracle"

    def _generate(self, tasks: list[Task], samples: int) -> list[list[Completion]]:
        from rlvr.api import oracle_completion

        return [[Completion(oracle_completion(task))] * samples for task in tasks]


def _bag(bag: Mapping[str, Any]) -> str:
    return ".".join(f"{{{int(k)}}}{species}" for species, k in bag.items())


def copy_input_completion(task: Task) -> str:
    """The "nothing happens" answer: the task's input given back unchanged, inside ``<answer>``.

    - ``stoich.t1``/``stoich.t2`` (``meta["inputs"]``): the input bag ``{k}A.{k}B`` as the predicted
      products (atom-balanced, but wrong whenever something reacts).
    - ``stoich.byproduct`` (``meta["shown"]["left"]``): the reactant bag shown in the prompt.
    - ``stoich.balance``: the equation as given, every coefficient 1.
    - ``mol.count``/``mol.index``: the molecule shown in the prompt (``meta["smiles"]``) as the value of
      every requested key (``{"key": "SMILES", ...}``, never type-valid).
    - ``mol.gen``, whose prompt shows no molecule: the prompt text itself (the reference molecule in
      the meta is never used).
    - otherwise the last user message verbatim.
    """
    meta = task.meta or {}
    gt = task.ground_truth or {}
    inputs = meta.get("inputs")
    if isinstance(inputs, Mapping) and inputs:
        return f"<answer>{_bag(inputs)}</answer>"
    shown = meta.get("shown")
    if isinstance(shown, Mapping) and isinstance(shown.get("left"), Mapping) and shown["left"]:
        return f"<answer>{_bag(shown['left'])}</answer>"
    if task.family == "stoich.balance" and "reactants" in gt and "products" in gt:
        left = ".".join(f"{{1}}{s}" for s in gt["reactants"])
        right = ".".join(f"{{1}}{s}" for s in gt["products"])
        return f"<answer>{left}>>{right}</answer>"
    if task.family.startswith("mol."):
        smiles = meta.get("smiles")
        if isinstance(smiles, str) and smiles and "constraints" not in gt:
            return "<answer>" + json.dumps({key: smiles for key in gt}) + "</answer>"
        return "<answer>" + task.user_text.strip() + "</answer>"
    return "<answer>" + task.user_text.strip() + "</answer>"


class CopyInputBackend(Backend):
    """Answers with the task's input unchanged (see :func:`copy_input_completion`)."""

    name = "copy-input"

    def _generate(self, tasks: list[Task], samples: int) -> list[list[Completion]]:
        return [[Completion(copy_input_completion(task))] * samples for task in tasks]
