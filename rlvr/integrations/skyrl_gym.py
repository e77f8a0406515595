"""rlvr tasks as a SkyRL-gym (0.4) text environment, single- or multi-turn with rlvr's exact feedback.

Importing this module registers :class:`ChemTextEnv` in SkyRL-gym's registry as ``rlvr_chem``, so
``skyrl_gym.make("rlvr_chem", env_config=..., extras=row)`` builds it, as SkyRL-train does for every
dataset row (``environment.env_class=rlvr_chem``). The row is one of ``rlvr export --format verl``:
the task record is ``extra_info.task_json`` (a top-level ``task_json`` also works), the rest of the row
is ignored. ``env_config`` (SkyRL-train's ``environment.skyrl_gym.rlvr_chem``) and the row's
``max_turns`` set the episode (:class:`ChemEnvConfig`).

Each ``step(completion)`` scores with :func:`rlvr.verify` through the episode logic the Gymnasium
environments use (:class:`rlvr.envs.Episode`): the turn's reward is the discounted improvement of the
verifier reward, a wrong answer with turns left gets the exact feedback as a user message, and the
episode ends on a correct answer or after ``max_turns``.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Optional

from skyrl_gym.envs.base_text_env import BaseTextEnv, BaseTextEnvStepOutput, ConversationType
from skyrl_gym.envs.registration import register, registry

from rlvr.envs.episode import Episode, TurnConfig
from rlvr.rewards.scoring import load_task
from rlvr.task import Task, TaskFormatError

#: the id this module registers in SkyRL-gym's registry
ENV_ID = "rlvr_chem"


@dataclass(frozen=True)
class ChemEnvConfig:
    """Episode settings: answers allowed, the per-turn discount, the checker's reward mode."""

    max_turns: int = 1
    turn_penalty: float = 0.1
    reward_mode: Optional[str] = None

    @classmethod
    def resolve(cls, env_config: Any, extras: Mapping[str, Any]) -> "ChemEnvConfig":
        """``env_config`` fields (a mapping or an OmegaConf node), then the row's ``max_turns`` over them."""
        names = {f.name for f in dataclasses.fields(cls)}
        values = {k: env_config.get(k) for k in names if env_config is not None and env_config.get(k) is not None}
        extra_info = extras.get("extra_info") or {}
        turns = extras.get("max_turns", extra_info.get("max_turns") if isinstance(extra_info, Mapping) else None)
        if turns is not None:
            values["max_turns"] = int(turns)
        return cls(**values)

    def turns(self) -> TurnConfig:
        options = {} if self.reward_mode is None else {"reward": self.reward_mode}
        return TurnConfig(int(self.max_turns), float(self.turn_penalty), options)


def task_of(extras: Mapping[str, Any]) -> Task:
    """The rlvr task of a SkyRL row: ``extra_info.task_json`` (``rlvr export --format verl``) or ``task_json``."""
    extra_info = extras.get("extra_info")
    record = extra_info.get("task_json") if isinstance(extra_info, Mapping) else None
    record = record if record is not None else extras.get("task_json")
    if record is None:
        raise TaskFormatError("the row has no rlvr task: export it with `rlvr export --format verl` "
                              "(extra_info.task_json) or give it a task_json column")
    return load_task(record)


class ChemTextEnv(BaseTextEnv):
    """One rlvr task per episode; ``step`` takes the model's completion and answers with rlvr's feedback."""

    def __init__(self, env_config: Any = None, extras: Optional[Mapping[str, Any]] = None) -> None:
        super().__init__()
        extras = dict(extras or {})
        self.config = ChemEnvConfig.resolve(env_config, extras)
        self.task = task_of(extras)
        self.episode = Episode(self.task, self.config.turns())
        self.max_turns = int(self.config.max_turns)

    def init(self, prompt: ConversationType) -> tuple[ConversationType, dict[str, Any]]:
        """The row's prompt (the task's chat prompt when the row has none) and the task's id and family."""
        messages = prompt if prompt else [dict(m) for m in self.task.prompt]
        return messages, {"task_id": self.task.id, "family": self.task.family}

    def step(self, action: str) -> BaseTextEnvStepOutput:
        result = self.episode.submit(action)
        self.turns = result.turn
        verdict = result.verdict
        observations = [] if result.done else [{"role": "user", "content": result.feedback}]
        metadata = {"score": float(verdict.reward), "correct": bool(verdict.correct), "reason": str(verdict.reason),
                    "turn": result.turn, "task_id": self.task.id}
        return BaseTextEnvStepOutput(observations=observations, reward=float(result.reward), done=result.done,
                                     metadata=metadata, postprocessed_action=None)

    def get_metrics(self) -> dict[str, Any]:
        """``solved`` (0/1), ``turns`` used and the best verifier reward of the episode."""
        return {"solved": float(self.episode.solved), "turns": self.episode.turn, "best_score": self.episode.best}


def register_env(env_id: str = ENV_ID) -> str:
    """Register :class:`ChemTextEnv` under ``env_id`` in SkyRL-gym's registry (idempotent)."""
    if env_id not in registry:
        register(id=env_id, entry_point=f"{__name__}:ChemTextEnv")
    return env_id


register_env()

__all__ = ["ENV_ID", "ChemEnvConfig", "ChemTextEnv", "register_env", "task_of"]
