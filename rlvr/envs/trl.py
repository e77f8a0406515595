"""A TRL ``environment_factory`` adapter: the task environment as a ``submit_answer`` tool.

``GRPOTrainer(..., environment_factory=ChemToolEnv)`` (TRL >= 1.x, transformers >= 5.2) creates one
instance per rollout and, for every dataset row, calls ``reset(**row)``; the string it returns is
appended to the last user message. Every public method other than ``reset``/``get_reward`` becomes
a tool: here only :meth:`ChemToolEnv.submit_answer`. After each wrong submission the tool returns
exact, non-leaking feedback and the model may submit again (up to ``max_turns`` times);
:meth:`ChemToolEnv.get_reward` returns the episode's discounted return (see :mod:`rlvr.envs.episode`).

Rows from :func:`rlvr.datasets.build_stream`/``build_dataset`` carry ``task_json``, so every
generation of a GRPO group sees the same task. Without a dataset (TRL feeds empty placeholder
prompts) the environment draws its own tasks and ``reset`` returns the whole question: the k-th
reset of every instance draws the same task (deterministic from ``seed`` and ``k``), which keeps
GRPO groups consistent but gives one task per generation batch, so prefer a dataset.
"""
from __future__ import annotations

import functools
from typing import Any

from rlvr.datasets import MixLike, Mixture
from rlvr.envs.episode import Episode, HoldsEpisode, TurnConfig, prompt_text
from rlvr.registry import DEFAULT_ENV_MIX
from rlvr.rng import stable_hash
from rlvr.task import Task

#: the tool's request after a wrong answer when attempts remain
RETRY_HINT = "Call `submit_answer` again with the complete corrected answer."
#: appended to the question so the model knows how to answer
TOOL_INSTRUCTION = (
    "\n\nSubmit your final answer by calling the `submit_answer` tool with what you would put inside "
    "<answer>...</answer>. You have {max_turns} attempt(s); after a wrong answer the tool says what is wrong."
)


class ChemToolEnv(HoldsEpisode):
    """One task episode exposed to TRL as the ``submit_answer`` tool.

    Args:
        mix: families drawn when a row carries no task (a name, ``"fam[@split][:weight],..."`` or FamilyMix list).
        split: split of those tasks.
        seed: generator seed of those tasks.
        max_turns: submissions allowed per episode.
        turn_penalty: per-turn discount ``p``: a task solved at submission ``t`` earns ``(1 - p) ** (t - 1)``.
        reward_mode: the checkers' reward mode (default: the family's own).
    """

    def __init__(self, mix: MixLike = DEFAULT_ENV_MIX, split: str = "train", seed: int = 0, *, max_turns: int = 3,
                 turn_penalty: float = 0.1, reward_mode: str | None = None) -> None:
        self._mix = mix
        self._split = split
        self._seed = int(seed)
        self._mixture: Mixture | None = None
        options = {"reward": reward_mode} if reward_mode else {}
        self._config = TurnConfig(int(max_turns), float(turn_penalty), options, RETRY_HINT)
        self._episode: Episode | None = None
        self._draws = 0

    @classmethod
    def factory(cls, **kwargs: Any):
        """A zero-argument callable for ``environment_factory`` with these settings bound."""
        return functools.partial(cls, **kwargs)

    def reset(self, **kwargs: Any) -> str | None:
        """Start an episode on the row's task (``task_json``); returns the text to append to the prompt."""
        raw = kwargs.get("task_json")
        if raw is not None:
            task = Task.from_json(raw) if isinstance(raw, str) else Task.from_dict(raw)
            own_prompt = False
        else:
            if self._mixture is None:
                self._mixture = Mixture(self._mix, self._split, self._seed)
            if kwargs.get("index") is not None:
                index = int(kwargs["index"])
            else:
                index = stable_hash("rlvr-tool-env", self._seed, self._draws) % 2**40
                self._draws += 1
            task = self._mixture.task_at(index)
            own_prompt = True
        self._episode = Episode(task, self._config)
        instruction = TOOL_INSTRUCTION.format(max_turns=self._config.max_turns)
        if own_prompt or not _has_content(kwargs.get("prompt")):
            return prompt_text(task) + instruction
        return instruction

    def submit_answer(self, answer: str) -> str:
        """Submit the final answer to the question for checking.

        Args:
            answer: The answer exactly as it would appear inside <answer>...</answer>, without the tags.

        Returns:
            "Correct." if the answer is right; otherwise what is wrong with it and how many attempts remain.
        """
        if self._episode is None:
            return "No question is open."
        if self._episode.done:
            return "The episode is over: no more answers are accepted."
        text = answer if isinstance(answer, str) else str(answer)
        completion = text if "<answer>" in text.lower() else f"<answer>{text}</answer>"
        return self._episode.submit(completion).feedback

    def get_reward(self) -> float:
        """The episode's return: discounted verifier reward of the submissions (0.0 if none)."""
        return 0.0 if self._episode is None else float(self._episode.total)


def _has_content(prompt: Any) -> bool:
    if isinstance(prompt, str):
        return bool(prompt.strip())
    if isinstance(prompt, list):
        return any(isinstance(m, dict) and str(m.get("content", "")).strip() for m in prompt)
    return False
