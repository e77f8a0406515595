"""Prompt shaping for training: a system prompt, a compact question style and few-shot demonstrations.

The task families write complete, self-explaining prompts (notation rules, answer format), which
is right for evaluation of capable models but costly on CPU: prompt length drives the cost of
every RL step (prefill for each of the ``num_generations`` samples, then the forward/backward
pass). For small models, these options keep the question and drop the prose:

- ``system_prompt``: replaces the task's system message;
- ``prompt_style: compact`` (``stoich.t1``/``stoich.t2``): the mixture, the reference reaction in
  open-book mode, one sentence of rules and the answer format;
- ``few_shot: N``: N solved training tasks (the shortest of a fixed pool, answered with the oracle)
  as user/assistant turns before the question, which teaches a small model the answer format by
  example.

Only the prompt changes: ids, ground truths and checkers stay the family's own.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Sequence

from rlvr.task import Task

PROMPT_STYLES = ("default", "compact")

_COMPACT_RULE = {
    "limiting": "The reaction runs as many times as the limiting reactant allows; reagents are not consumed and "
    "unreacted molecules remain.",
    "paper": "The reaction runs as many times as the smallest multiple allows; reagents are not consumed and "
    "unreacted molecules remain.",
}
_COMPACT_ANSWER = "Answer with the bag after the reaction, each molecule once with its count, inside <answer>...</answer>."


def compact_products_prompt(task: Task) -> list[dict[str, str]]:
    """A short user prompt for a ``stoich.t1``/``stoich.t2`` task (``ValueError`` for other families)."""
    from rlvr.chem.notation import format_bag

    if task.family not in ("stoich.t1", "stoich.t2"):
        raise ValueError(f"prompt_style 'compact' supports stoich.t1 and stoich.t2, not {task.family}")
    meta = task.meta
    inputs = meta.get("inputs")
    if not isinstance(inputs, dict):
        raise ValueError(f"task {task.id}: meta['inputs'] is missing")
    lines = [f"Mixture: {format_bag(inputs)}"]
    if meta.get("prompt_mode") == "open":
        reaction = meta.get("reaction") or {}
        reagents = dict(reaction.get("reagents") or {})
        left = {**dict(reaction.get("reactants") or {}), **reagents}
        right = {**dict(reaction.get("products") or {}), **reagents}
        lines.append(f"Reaction: {format_bag(left)}>>{format_bag(right)}")
    lines.append(_COMPACT_RULE.get(str(meta.get("semantics", "limiting")), _COMPACT_RULE["limiting"]))
    lines.append(_COMPACT_ANSWER)
    return [{"role": "user", "content": "\n".join(lines)}]


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
        if self.style == "compact":
            return compact_products_prompt(task)
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
    from rlvr.data_gen.datasets import FamilyMix, Mixture

    mix = [FamilyMix(**m) for m in json.loads(mix_json)]
    mixture = Mixture(mix, split, seed)
    shaper = PromptShaper(style=style)
    candidates = []
    for i in range(pool):
        task = mixture.task_at(i)
        user = "\n\n".join(m["content"] for m in shaper.question(task))
        candidates.append((len(user), i, user, oracle_completion(task)))
    candidates.sort()
    return tuple((user, answer) for _, _, user, answer in candidates[:n])


def demonstrations(mix: Sequence[Any], n: int, *, split: str = "train", seed: int = 4242, pool: int = 32,
                   style: str = "default") -> tuple[tuple[str, str], ...]:
    """``n`` solved (user, assistant) pairs: the shortest of ``pool`` tasks of ``mix`` drawn from ``split``."""
    if n <= 0:
        return ()
    payload = json.dumps([{"family": m.family, "weight": m.weight, "options": m.options, "split": m.split} for m in mix],
                         sort_keys=True, default=list)
    return _demonstrations(payload, int(n), split, int(seed), max(int(pool), int(n)), style)
