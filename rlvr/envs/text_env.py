"""Gymnasium text environments over any rlvr task family (single- and multi-turn).

- observation: the prompt text at ``reset`` (system + user message), then the environment's reply
  (feedback on a wrong answer, ``Correct.``); ``info["messages"]`` is the whole chat so far.
- action: the model's completion (text; reasoning and ``<answer>...</answer>`` block as usual).
- reward: the verifier's reward via :func:`rlvr.api.verify`, discounted per turn (see
  :mod:`rlvr.envs.episode`); ``info`` carries ``score`` (raw verifier reward), ``correct``,
  ``reason`` and ``metrics`` (the verdict's metrics, which hold no ground-truth values).
- determinism: ``reset(seed=s)`` starts a deterministic sequence of task indices derived from ``s``
  (index = ``stable_hash("rlvr-env", s, k) mod 2**40`` for the k-th episode since the seeded reset),
  and the task is ``rlvr.generate(family, split, task_seed, index, **options)``: the same seed gives
  the same episodes on any machine. ``reset(options={"index": i})`` or ``{"task": record}`` pins a task.

The ground truth is never in an observation or ``info``; ``env.unwrapped.task`` is the current
:class:`~rlvr.task.Task` (ground truth included) for evaluation code, and ``reveal_answer=True``
adds ``info["ground_truth"]`` to the final step of an episode.
"""
from __future__ import annotations

import copy
import json
from typing import Any, ClassVar, Mapping

import gymnasium as gym

from rlvr.answer import MAX_COMPLETION_CHARS
from rlvr.datasets import FamilyMix, MixLike, Mixture
from rlvr.envs.episode import Episode, HoldsEpisode, TurnConfig, prompt_text
from rlvr.envs.spaces import ChatText
from rlvr.registry import DEFAULT_ENV_MIX, DEFAULT_MIX, group_for_env, resolve_in_group
from rlvr.rng import stable_hash
from rlvr.task import Task

#: task indices drawn by seeded resets live in [0, INDEX_SPACE)
INDEX_SPACE = 2**40
#: default cap on observation length (characters)
MAX_OBSERVATION_CHARS = 1 << 20

_RESET_OPTIONS = {"index", "task"}


class ChemEnv(HoldsEpisode, gym.Env[str, str]):
    """A text environment over a weighted mixture of task families.

    Args:
        mix: families to draw from: a name (``"stoich.t2"``), ``"fam[@split][:weight],..."``, or a list
            of :class:`~rlvr.datasets.FamilyMix` (None: :data:`rlvr.registry.DEFAULT_ENV_MIX`).
        split: the split every family draws from (unless its ``FamilyMix.split`` overrides it).
        task_seed: the generator seed (task ids are ``family:split:task_seed:index:config``).
        max_turns: answers allowed per episode (1 = single turn; > 1 = feedback after wrong answers).
        turn_penalty: per-turn discount ``p`` of the reward, ``(1 - p) ** (turn - 1)``.
        reward_mode: the checkers' reward mode (``em``/``f1``/``jaccard``/``shaped``...; default: the family's).
        verify_options: any other keyword options for :func:`rlvr.api.verify`.
        reveal_answer: add ``info["ground_truth"]`` to the last step of each episode.
        render_mode: ``"ansi"`` (``render()`` returns the transcript) or ``"human"`` (prints it).
    """

    metadata = {"render_modes": ["ansi", "human"], "render_fps": 4}

    def __init__(
        self,
        mix: MixLike | None = None,
        split: str = "train",
        *,
        task_seed: int = 0,
        max_turns: int = 1,
        turn_penalty: float = 0.1,
        reward_mode: str | None = None,
        verify_options: Mapping[str, Any] | None = None,
        reveal_answer: bool = False,
        render_mode: str | None = None,
        max_observation_chars: int = MAX_OBSERVATION_CHARS,
        max_action_chars: int = MAX_COMPLETION_CHARS,
    ) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None, got {render_mode!r}")
        self.mixture = Mixture(DEFAULT_ENV_MIX if mix is None else mix, split, task_seed)
        options = dict(verify_options or {})
        if reward_mode is not None:
            options["reward"] = reward_mode
        self.turn_config = TurnConfig(int(max_turns), float(turn_penalty), options)
        self.reveal_answer = bool(reveal_answer)
        self.render_mode = render_mode
        self.observation_space = ChatText(int(max_observation_chars))
        self.action_space = ChatText(int(max_action_chars))
        self._episode: Episode | None = None
        self._episode_seed: int | None = None
        self._episodes_since_seed = 0

    # ------------------------------------------------------------------ gymnasium API
    def task_index(self, seed: int, k: int) -> int:
        """The task index of the ``k``-th episode after ``reset(seed=seed)``."""
        return stable_hash("rlvr-env", int(seed), int(k)) % INDEX_SPACE

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
        super().reset(seed=seed)
        options = dict(options or {})
        unknown = set(options) - _RESET_OPTIONS
        if unknown:
            raise ValueError(f"unknown reset option(s) {sorted(unknown)}; valid: {sorted(_RESET_OPTIONS)}")
        if seed is not None:
            self._episode_seed = int(seed)
            self._episodes_since_seed = 0
        elif self._episode_seed is None:
            self._episode_seed = int(self.np_random.integers(0, 2**62))
        if "task" in options:
            raw = options["task"]
            task = Task.from_json(raw) if isinstance(raw, str) else Task.from_dict(raw)
        elif "index" in options:
            index = int(options["index"])
            if index < 0:
                raise ValueError(f"task index must be >= 0, got {index}")
            task = self.mixture.task_at(index)
        else:
            index = self.task_index(self._episode_seed, self._episodes_since_seed)
            self._episodes_since_seed += 1
            task = self.mixture.task_at(index)
        self._episode = Episode(task, self.turn_config)
        info = {
            "task_id": task.id,
            "family": task.family,
            "split": str(task.meta.get("split", self.mixture.split)),
            "messages": copy.deepcopy(self._episode.messages),
            "turn": 0,
            "max_turns": self.turn_config.max_turns,
        }
        if self.render_mode == "human":
            self.render()
        return prompt_text(task), info

    def step(self, action: Any) -> tuple[str, float, bool, bool, dict[str, Any]]:
        if self._episode is None:
            raise RuntimeError("call reset() before step()")
        result = self._episode.submit(action)
        verdict = result.verdict
        info: dict[str, Any] = {
            "task_id": self._episode.task.id,
            "family": self._episode.task.family,
            "turn": result.turn,
            "max_turns": self.turn_config.max_turns,
            "score": float(verdict.reward),
            "correct": bool(verdict.correct),
            "reason": verdict.reason,
            "metrics": _jsonable(verdict.metrics),
            "messages": copy.deepcopy(self._episode.messages),
        }
        if result.done:
            info["solved"] = self._episode.solved
            info["episode_return"] = float(self._episode.total)
            if self.reveal_answer:
                info["ground_truth"] = copy.deepcopy(self._episode.task.ground_truth)
        if self.render_mode == "human":
            self.render()
        return result.feedback, float(result.reward), bool(result.done), False, info

    def render(self) -> str | None:
        """The transcript so far (``ansi``), or print it (``human``)."""
        if self._episode is None:
            text = ""
        else:
            lines = [f"[{m.get('role', '?')}]\n{m.get('content', '')}" for m in self._episode.messages]
            if self._episode.done and self._episode.last_verdict is not None:
                v = self._episode.last_verdict
                lines.append(f"[env] reward={self._episode.total:.3f} correct={v.correct} reason={v.reason}")
            text = "\n\n".join(lines)
        if self.render_mode == "human":
            print(text)
            return None
        return text


def _jsonable(value: Any) -> Any:
    """A deep copy of verdict metrics restricted to JSON types (fresh objects on every call)."""
    return json.loads(json.dumps(value, default=str))


class GroupEnv(ChemEnv):
    """One family of the group bound to this environment id (:attr:`env_id`, the group's ``env_id``).

    ``family`` is a family of the group, by full or short name (``t2``, ``count``); None takes the
    group's default family. Other keyword options are the family's config fields, validated at construction.
    """

    env_id: ClassVar[str] = ""

    def __init__(self, family: str | None = None, split: str = "train", *, task_seed: int = 0, max_turns: int = 1,
                 turn_penalty: float = 0.1, reward_mode: str | None = None, reveal_answer: bool = False,
                 render_mode: str | None = None, **options: Any) -> None:
        name = resolve_in_group(group_for_env(self.env_id), family)
        super().__init__([FamilyMix(name, 1.0, options)], split, task_seed=task_seed, max_turns=max_turns,
                         turn_penalty=turn_penalty, reward_mode=reward_mode, reveal_answer=reveal_answer,
                         render_mode=render_mode)


class StoichiometryEnv(GroupEnv):
    """``rlvr/Stoichiometry-v0``: one stoichiometry family; its options are keyword arguments.

    Example: ``gymnasium.make("rlvr/Stoichiometry-v0", family="stoich.t2", encoding="smiles",
    split="test_out", max_turns=3)``. Options are the family's config fields (encoding, semantics,
    prompt mode, coefficient sets, ...), validated at construction.
    """

    env_id = "rlvr/Stoichiometry-v0"


class MolecularIQEnv(GroupEnv):
    """``rlvr/MolecularIQ-v0``: molecular-structure tasks; ``task_type`` is ``count``, ``index`` or ``gen``.

    ``split`` is the molecule pool split (``train``, ``easy``, ``hard``); other keyword options
    (load, complexity bin, SMILES presentation, ...) are the family's config fields.
    """

    env_id = "rlvr/MolecularIQ-v0"

    def __init__(self, task_type: str | None = None, split: str = "train", **kwargs: Any) -> None:
        super().__init__(task_type, split, **kwargs)


class ChemMixEnv(ChemEnv):
    """``rlvr/ChemMix-v0``: a weighted mixture of any families (``mix="stoich.t1:2,mol.count@easy:1"``)."""

    def __init__(self, mix: MixLike = DEFAULT_MIX, split: str = "train", **kwargs: Any) -> None:
        super().__init__(mix, split, **kwargs)
