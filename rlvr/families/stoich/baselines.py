"""Model-free reference answers of the stoichiometry families (the floor of every table).

``copy-input``, the "nothing happens" answer: the task's input given back unchanged.
"""
from __future__ import annotations

from typing import Any, Mapping

from rlvr.task import Task


def _bag_answer(task: Task, bag: Any) -> str:
    if not isinstance(bag, Mapping) or not bag:  # not the shape the family writes: the question itself
        return "<answer>" + task.user_text.strip() + "</answer>"
    return "<answer>" + ".".join(f"{{{int(k)}}}{species}" for species, k in bag.items()) + "</answer>"


def copy_inputs(task: Task) -> str:
    """``stoich.t1``/``stoich.t2``: the input bag ``{k}A.{k}B`` as the predicted products
    (atom-balanced, but wrong whenever something reacts)."""
    return _bag_answer(task, task.meta.get("inputs"))


def copy_shown_left(task: Task) -> str:
    """``stoich.byproduct``: the reactant bag shown in the prompt."""
    shown = task.meta.get("shown")
    return _bag_answer(task, shown.get("left") if isinstance(shown, Mapping) else None)


def copy_equation(task: Task) -> str:
    """``stoich.balance``: the equation as given, every coefficient 1."""
    gt = task.ground_truth
    if "reactants" not in gt or "products" not in gt:
        return "<answer>" + task.user_text.strip() + "</answer>"
    left = ".".join(f"{{1}}{s}" for s in gt["reactants"])
    right = ".".join(f"{{1}}{s}" for s in gt["products"])
    return f"<answer>{left}>>{right}</answer>"
