"""How a task's prompt is presented: style, system prompt and few-shot demonstrations.

These are options of every family's config, next to the generator's own fields
(``rlvr.generate("stoich.t1", prompt_style="compact", few_shot=1)``). Options that differ from
their defaults are stored in ``meta["config"]``, so :func:`rlvr.regenerate` rebuilds exactly the
prompt the model saw. A family lists its styles in ``FamilySpec.prompt_styles``; ``default`` is
the generator's own prompt.

- ``prompt_style``: a style of the family (``default``: the generator's prompt);
- ``system_prompt``: replaces the task's system message (None: the task's own);
- ``few_shot``: N solved tasks of the same family and config as user/assistant turns before the
  question, drawn from ``few_shot_split`` with ``few_shot_seed``. ``few_shot_answers``:

  - ``answer`` (default): the same demonstrations for every task, the shortest of a fixed pool (the
    family's ``demo_priority`` first), answered as the style shows answers (the oracle by default);
  - ``terse`` / ``detailed``: verified worked solutions (the family's ``solve`` hook) of examples
    drawn per task from a stable hash of ``(few_shot_seed, task id)``; an example whose question
    equals the task's is never used.

Ids and ground truths stay the generator's: only the prompt changes.
"""
from __future__ import annotations

import dataclasses
import json
import itertools
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Callable, Iterator, Mapping, Protocol

from rlvr.rng import stable_hash
from rlvr.task import Task, Verdict

Messages = list[dict[str, str]]

#: the generator's own prompt
DEFAULT_STYLE = "default"
#: demonstrations are the shortest of this many candidate tasks (or of ``few_shot`` if larger)
DEMO_POOL = 32
#: ``few_shot_answers`` value: the style's answer (the oracle's by default), shared demonstrations
ANSWERS = "answer"
#: worked-solution examples: how many candidate indices are tried per requested example
MAX_ATTEMPTS_PER_EXAMPLE = 8
#: worked-solution examples are drawn from indices below this bound
INDEX_SPACE = 1_000_000


@dataclass(frozen=True)
class PromptStyle:
    """One way to ask a family's question.

    ``question(task)`` returns the user message(s) (no system message); ``answer(task)`` is the
    answer a demonstration shows in this style (None: the family's oracle completion).
    """

    question: Callable[[Task], Messages]
    answer: Callable[[Task], str] | None = None
    description: str = ""


@dataclass(frozen=True)
class PromptOptions:
    """The prompt options every family config accepts (see the module docstring)."""

    prompt_style: str = DEFAULT_STYLE
    system_prompt: str | None = None
    few_shot: int = 0
    few_shot_seed: int = 4242
    few_shot_split: str = "train"
    few_shot_answers: str = ANSWERS

    def __post_init__(self) -> None:
        if not isinstance(self.prompt_style, str):
            raise ValueError(f"prompt_style must be a style name, got {self.prompt_style!r}")
        if self.system_prompt is not None and not isinstance(self.system_prompt, str):
            raise ValueError(f"system_prompt must be text or None, got {type(self.system_prompt).__name__}")
        if isinstance(self.few_shot, bool) or int(self.few_shot) < 0:
            raise ValueError(f"few_shot must be an integer >= 0, got {self.few_shot!r}")
        object.__setattr__(self, "few_shot", int(self.few_shot))
        object.__setattr__(self, "few_shot_seed", int(self.few_shot_seed))

    def changed(self) -> dict[str, Any]:
        """The options that differ from their defaults (what ``meta["config"]`` records)."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)
                if getattr(self, f.name) != f.default}

    @property
    def is_default(self) -> bool:
        """True when the prompt is the generator's own."""
        return not self.changed()


class PromptedFamily(Protocol):
    """The hooks of a family this module reads (:class:`rlvr.family_spec.FamilySpec` has them all;
    named here so that prompting depends on no registry module)."""

    name: str
    config_cls: type
    generator: Callable[[Any, str, int, int], Task]
    check: Callable[..., Verdict]
    oracle: Callable[[Task], str]
    solve: Callable[..., str] | None
    prompt_styles: Mapping[str, "PromptStyle"]
    demo_priority: Callable[[Task], Any] | None

    def generate(self, config: Any, split: str, seed: int, index: int) -> Task:
        """The task at ``(config, split, seed, index)``, presented as the config asks."""


#: the names of the prompt options (accepted by every family config)
PROMPT_OPTIONS: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(PromptOptions))


@dataclass(frozen=True)
class FamilyConfig:
    """A family's full config: the generator's own config dataclass and the prompt options."""

    task: Any
    prompt: PromptOptions = field(default_factory=PromptOptions)

    def to_dict(self) -> dict[str, Any]:
        """The options that rebuild this config (``meta["config"]`` of its tasks)."""
        return {**_jsonable(dataclasses.asdict(self.task)), **self.prompt.changed()}


def _jsonable(value: Any) -> Any:
    return json.loads(json.dumps(value, default=str))


def present(spec: "PromptedFamily", task: Task, config: FamilyConfig) -> Task:
    """``task`` as the prompt options ask (the task itself when they are the defaults).

    ``meta["config"]`` always holds the options that regenerate the task, prompt options included.
    """
    prompt = config.prompt
    if prompt.is_default and "config" in task.meta:
        return task
    meta = dict(task.meta)
    meta["config"] = {**(meta.get("config") or _jsonable(dataclasses.asdict(config.task))), **prompt.changed()}
    if prompt.is_default:
        return Task(id=task.id, family=task.family, prompt=task.prompt, ground_truth=task.ground_truth, meta=meta)
    system = prompt.system_prompt
    if system is None:
        system = next((m["content"] for m in task.prompt if m.get("role") == "system"), None)
    messages: Messages = [{"role": "system", "content": system}] if system else []
    if prompt.few_shot_answers == ANSWERS:
        shots = demonstrations(spec, config)
    else:
        shots = worked_demonstrations(spec, task, config.task, prompt.few_shot, split=prompt.few_shot_split,
                                      seed=prompt.few_shot_seed, style=prompt.prompt_style,
                                      solution_style=prompt.few_shot_answers)
        if len(shots) < prompt.few_shot:
            raise ValueError(f"{task.family}: only {len(shots)} of {prompt.few_shot} few-shot examples could be written")
    for user, assistant in shots:
        messages += [{"role": "user", "content": user}, {"role": "assistant", "content": assistant}]
    messages += question(spec, task, prompt.prompt_style)
    if prompt.few_shot:
        meta["few_shot"] = {"k": prompt.few_shot, "split": prompt.few_shot_split, "seed": prompt.few_shot_seed}
    return Task(id=task.id, family=task.family, prompt=messages, ground_truth=task.ground_truth, meta=meta)


def question(spec: "PromptedFamily", task: Task, style: str = DEFAULT_STYLE) -> Messages:
    """The task's question in ``style`` (system message excluded)."""
    if style == DEFAULT_STYLE:
        return [dict(m) for m in task.prompt if m.get("role") != "system"]
    return spec.prompt_styles[style].question(task)


def demonstrations(spec: "PromptedFamily", config: FamilyConfig) -> tuple[tuple[str, str], ...]:
    """The ``few_shot`` (user, assistant) pairs shown before every question of this config."""
    if config.prompt.few_shot <= 0:
        return ()
    base = json.dumps(_jsonable(dataclasses.asdict(config.task)), sort_keys=True)
    return _demonstrations(spec, base, config.prompt)


@lru_cache(maxsize=64)
def _demonstrations(spec: "PromptedFamily", base_json: str, prompt: PromptOptions) -> tuple[tuple[str, str], ...]:
    base = spec.config_cls(**json.loads(base_json))
    style = spec.prompt_styles.get(prompt.prompt_style)
    candidates = []
    for i in range(max(DEMO_POOL, prompt.few_shot)):
        task = spec.generator(base, prompt.few_shot_split, prompt.few_shot_seed, i)
        user = "\n\n".join(m["content"] for m in question(spec, task, prompt.prompt_style))
        answer = style.answer(task) if style is not None and style.answer is not None else spec.oracle(task)
        priority = spec.demo_priority(task) if spec.demo_priority is not None else 0
        candidates.append((priority, len(user), i, user, answer))
    candidates.sort()
    return tuple((user, answer) for *_, user, answer in candidates[: prompt.few_shot])


def example_tasks(spec: "PromptedFamily", task: Task, base: Any, k: int, *, split: str, seed: int,
                  per_task: bool = True) -> Iterator[Task]:
    """Distinct candidate examples for ``task`` (same family, generator config ``base``; at most
    ``k * MAX_ATTEMPTS_PER_EXAMPLE`` generated), in their default prompt."""
    anchor = task.id if per_task else task.family
    seen = {task.user_text}
    for attempt in range(k * MAX_ATTEMPTS_PER_EXAMPLE):
        index = stable_hash("rlvr-fewshot", seed, anchor, attempt) % INDEX_SPACE
        example = spec.generate(FamilyConfig(base), split, seed, index)
        if example.user_text in seen:
            continue
        seen.add(example.user_text)
        yield example


def worked_demonstrations(spec: "PromptedFamily", task: Task, base: Any, k: int, *, split: str, seed: int,
                          style: str = DEFAULT_STYLE, solution_style: str = "terse", max_chars: int | None = None,
                          per_task: bool = True) -> list[tuple[str, str]]:
    """Up to ``k`` (question, worked solution) pairs for ``task``; an example whose solution cannot be
    written or does not score 1.0 is replaced by the next candidate."""
    if spec.solve is None:
        raise ValueError(f"{spec.name}: worked-solution examples need a family with a `solve` hook")
    shots: list[tuple[str, str]] = []
    for example in example_tasks(spec, task, base, k, split=split, seed=seed, per_task=per_task):
        try:
            text = spec.solve(example, style=solution_style, max_chars=max_chars)
        except ValueError:  # no derivable solution, or over budget: try the next example
            continue
        try:
            verdict = spec.check(example, text)
        except Exception:  # noqa: BLE001 - an example the checker cannot score is not shown
            continue
        if verdict.reward < 1.0 or not verdict.correct:
            continue
        shots.append(("\n\n".join(m["content"] for m in question(spec, example, style)), text))
        if len(shots) == k:
            break
    return shots


def first_examples(spec: "PromptedFamily", task: Task, base: Any, k: int, **kwargs: Any) -> list[Task]:
    """The first ``k`` candidate examples of ``task`` (see :func:`example_tasks`)."""
    return list(itertools.islice(example_tasks(spec, task, base, k, **kwargs), k))


__all__ = ["ANSWERS", "DEFAULT_STYLE", "FamilyConfig", "PROMPT_OPTIONS", "PromptOptions", "PromptStyle", "PromptedFamily", "demonstrations",
           "example_tasks", "first_examples", "present", "question", "worked_demonstrations"]
