"""Prompt styles of ``stoich.t1`` / ``stoich.t2``: short questions for small models.

The generators write complete, self-explaining prompts (notation rules, answer format), which is
right for evaluating capable models but costly on CPU: prompt length drives the cost of every RL
step. These styles keep the question and drop the prose:

- ``compact``: the mixture, the reference reaction in open-book mode, one sentence of rules and the
  answer format;
- ``minimal``: only the mixture and (open book) the reaction; the method and the answer format are
  left to the system prompt and the demonstrations.

In both, a few-shot demonstration answers with the molecules in the reaction's order
(:func:`ordered_answer`), as the prompt shows them.
"""
from __future__ import annotations

from typing import Any

from rlvr.chem.notation import format_bag
from rlvr.checkers.stoich import oracle_products
from rlvr.prompting import PromptStyle
from rlvr.task import Task

_COMPACT_RULE = {
    "limiting": "The reaction runs as many times as the limiting reactant allows; reagents are not consumed and "
    "unreacted molecules remain.",
    "paper": "The reaction runs as many times as the smallest multiple allows; reagents are not consumed and "
    "unreacted molecules remain.",
}
_COMPACT_ANSWER = "Answer with the bag after the reaction, each molecule once with its count, inside <answer>...</answer>."


def _reaction_sides(meta: dict[str, Any]) -> tuple[dict[str, int], dict[str, int]]:
    reaction = meta.get("reaction") or {}
    reagents = dict(reaction.get("reagents") or {})
    left = {**dict(reaction.get("reactants") or {}), **reagents}
    right = {**dict(reaction.get("products") or {}), **reagents}
    return left, right


def compact_products_prompt(task: Task, rules: bool = True) -> list[dict[str, str]]:
    """A short user prompt for a products task (``rules=False``: style ``minimal``, no rules or format)."""
    meta = task.meta
    inputs = meta.get("inputs")
    if not isinstance(inputs, dict):
        raise ValueError(f"task {task.id}: meta['inputs'] is missing")
    lines = [f"Mixture: {format_bag(inputs)}"]
    if meta.get("prompt_mode") == "open":
        left, right = _reaction_sides(meta)
        lines.append(f"Reaction: {format_bag(left)}>>{format_bag(right)}")
    if rules:
        lines.append(_COMPACT_RULE.get(str(meta.get("semantics", "limiting")), _COMPACT_RULE["limiting"]))
        lines.append(_COMPACT_ANSWER)
    return [{"role": "user", "content": "\n".join(lines)}]


def minimal_products_prompt(task: Task) -> list[dict[str, str]]:
    """The ``minimal`` style: the mixture and (open book) the reaction only."""
    return compact_products_prompt(task, rules=False)


def ordered_answer(task: Task) -> str:
    """The oracle answer listing molecules in the reaction's order.

    Products and reagents come in the order of the reaction's right side, then any unreacted input
    in the mixture's order; the checker ignores order, so this is the same answer written the way
    the prompt shows the molecules.
    """
    truth = task.ground_truth.get("products") if isinstance(task.ground_truth, dict) else None
    if not isinstance(truth, dict):
        return oracle_products(task)
    _, right = _reaction_sides(task.meta)
    order = [s for s in right if s in truth]
    order += [s for s in (task.meta.get("inputs") or {}) if s in truth and s not in order]
    order += [s for s in truth if s not in order]
    return "<answer>" + ".".join(f"{{{truth[s]}}}{s}" for s in order) + "</answer>"


def unscaled(task: Task) -> int:
    """1 for a task whose scale factor is 1 (a demonstration with k = 1 shows no scaling), else 0."""
    return int(task.meta.get("factor", task.meta.get("runs")) == 1)


#: the styles of the products families
PRODUCT_STYLES = {
    "compact": PromptStyle(compact_products_prompt, ordered_answer,
                           "mixture, reaction (open book), one sentence of rules and the answer format"),
    "minimal": PromptStyle(minimal_products_prompt, ordered_answer,
                           "mixture and reaction only; method and format from the system prompt and demonstrations"),
}
