"""Prompt shaping for training: a system prompt, a compact question style and few-shot demonstrations.

The task families write complete, self-explaining prompts (notation rules, answer format), which
is right for evaluation of capable models but costly on CPU: prompt length drives the cost of
every RL step (prefill for each of the ``num_generations`` samples, then the forward/backward
pass). For small models, these options keep the question and drop the prose:

- ``system_prompt``: replaces the task's system message;
- ``prompt_style: compact`` (``stoich.t1``/``stoich.t2``): the mixture, the reference reaction in
  open-book mode, one sentence of rules and the answer format;
- ``prompt_style: minimal``: only the mixture and (open book) the reaction; the method and the
  answer format are left to the system prompt and the demonstrations;
- ``few_shot: N``: N solved training tasks as user/assistant turns before the question, which
  teaches a small model the answer format by example. The shortest tasks of a fixed pool are
  taken, preferring ones whose scale factor is not 1 (a demonstration with k = 1 shows no
  scaling); in the compact styles the answer lists the molecules in the reaction's order.

Only the prompt changes: ids, ground truths and checkers stay the family's own.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Sequence

from rlvr.task import Task

PROMPT_STYLES = ("default", "compact", "minimal")
COMPACT_STYLES = ("compact", "minimal")
#: the families the compact styles and the ordered demonstration answers apply to
COMPACT_FAMILIES = ("stoich.t1", "stoich.t2")

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
    """A short user prompt for a ``stoich.t1``/``stoich.t2`` task (``ValueError`` for other families).

    ``rules=False`` (style ``minimal``) leaves out the sentence of rules and the answer format.
    """
    from rlvr.chem.notation import format_bag

    if task.family not in COMPACT_FAMILIES:
        raise ValueError(f"prompt_style 'compact'/'minimal' supports stoich.t1 and stoich.t2, not {task.family}")
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


def ordered_answer(task: Task) -> str:
    """The oracle answer of a ``stoich.t1``/``stoich.t2`` task listing molecules in the reaction's order.

    Products and reagents come in the order of the reaction's right side, then any unreacted input
    in the mixture's order; the checker ignores order, so this is the same answer written the way
    the prompt shows the molecules. Other families: their oracle completion.
    """
    from rlvr.api import oracle_completion

    truth = task.ground_truth.get("products") if isinstance(task.ground_truth, dict) else None
    if task.family not in COMPACT_FAMILIES or not isinstance(truth, dict):
        return oracle_completion(task)
    _, right = _reaction_sides(task.meta)
    order = [s for s in right if s in truth]
    order += [s for s in (task.meta.get("inputs") or {}) if s in truth and s not in order]
    order += [s for s in truth if s not in order]
    return "<answer>" + ".".join(f"{{{truth[s]}}}{s}" for s in order) + "</answer>"


@dataclass(frozen=True)
class PromptShaper:
    """Rewrites a task's prompt: optional system prompt, style and few-shot demonstrations."""

    system_prompt: str | None = None
    style: str = "default"
    shots: tuple[tuple[str, str], ...] = ()  # (user text, assistant text) pairs

    def __post_init__(self) -> None:
        if self.style not in PROMPT_STYLES:
            raise ValueError(f"prompt_style must be one of {PROMPT_STYLES}, got {self.style!r}")

    @property
    def active(self) -> bool:
        return bool(self.system_prompt) or self.style != "default" or bool(self.shots)

    def question(self, task: Task) -> list[dict[str, str]]:
        """The task's own messages in the chosen style (system message excluded)."""
        if self.style in COMPACT_STYLES:
            return compact_products_prompt(task, rules=self.style == "compact")
        return [dict(m) for m in task.prompt if m.get("role") != "system"]

    def messages(self, task: Task) -> list[dict[str, str]]:
        """The full shaped prompt of ``task``."""
        system = self.system_prompt
        if system is None:
            system = next((m["content"] for m in task.prompt if m.get("role") == "system"), None)
        out: list[dict[str, str]] = [{"role": "system", "content": system}] if system else []
        for user, assistant in self.shots:
            out += [{"role": "user", "content": user}, {"role": "assistant", "content": assistant}]
        return out + self.question(task)

    def shape_task(self, task: Task) -> Task:
        """A copy of ``task`` with the shaped prompt (ids and ground truth unchanged)."""
        if not self.active:
            return task
        return Task(id=task.id, family=task.family, prompt=self.messages(task), ground_truth=task.ground_truth, meta=task.meta)

    def shape_row(self, row: dict[str, Any]) -> dict[str, Any]:
        """``datasets.map`` function: the ``prompt`` column rebuilt from ``task_json``."""
        return {"prompt": self.messages(Task.from_json(row["task_json"]))}


@lru_cache(maxsize=8)
def _demonstrations(mix_json: str, n: int, split: str, seed: int, pool: int, style: str) -> tuple[tuple[str, str], ...]:
    from rlvr.api import oracle_completion
    from rlvr.datasets import FamilyMix, Mixture

    mix = [FamilyMix(**m) for m in json.loads(mix_json)]
    mixture = Mixture(mix, split, seed)
    shaper = PromptShaper(style=style)
    candidates = []
    for i in range(pool):
        task = mixture.task_at(i)
        user = "\n\n".join(m["content"] for m in shaper.question(task))
        answer = ordered_answer(task) if style in COMPACT_STYLES else oracle_completion(task)
        unscaled = task.meta.get("factor", task.meta.get("runs")) == 1
        candidates.append((unscaled, len(user), i, user, answer))
    candidates.sort()
    return tuple((user, answer) for *_, user, answer in candidates[:n])


def demonstrations(mix: Sequence[Any], n: int, *, split: str = "train", seed: int = 4242, pool: int = 32,
                   style: str = "default") -> tuple[tuple[str, str], ...]:
    """``n`` solved (user, assistant) pairs from ``pool`` tasks of ``mix`` drawn from ``split``.

    The shortest tasks are taken, those with a scale factor other than 1 first.
    """
    if n <= 0:
        return ()
    payload = json.dumps([{"family": m.family, "weight": m.weight, "options": m.options, "split": m.split} for m in mix],
                         sort_keys=True, default=list)
    return _demonstrations(payload, int(n), split, int(seed), max(int(pool), int(n)), style)
