"""One episode on one task, single- or multi-turn: the logic shared by the Gymnasium env and the TRL adapter.

Scoring goes through :func:`rlvr.api.verify` only. Per-turn reward (documented in ``docs/integrations.md``)::

    r_t = (1 - turn_penalty) ** (t - 1) * max(0, s_t - max(s_1, ..., s_{t-1}))

where ``s_t`` is the verifier's reward for the answer at turn ``t`` (``s_0 = 0``). The episode return
``sum_t r_t`` is at most 1: 1 for a correct first answer, ``(1 - turn_penalty) ** (t - 1)`` for a binary
task solved at turn ``t``, and with shaped rewards (F1, fraction of keys) only improvements earn reward,
so re-submitting a partial answer cannot accumulate reward. The episode ends when the answer is
correct or after ``max_turns`` answers.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rlvr.answer import completion_text
from rlvr.api import verify
from rlvr.envs.feedback import RETRY_HINT, feedback_text
from rlvr.task import Task, Verdict


@dataclass(frozen=True)
class TurnConfig:
    """Episode settings: answers allowed, per-turn penalty, verifier options, the reply's retry request."""

    max_turns: int = 1
    turn_penalty: float = 0.1
    verify_options: dict = field(default_factory=dict)
    retry_hint: str = RETRY_HINT

    def __post_init__(self) -> None:
        if int(self.max_turns) < 1:
            raise ValueError(f"max_turns must be >= 1, got {self.max_turns}")
        if not 0.0 <= float(self.turn_penalty) < 1.0:
            raise ValueError(f"turn_penalty must be in [0, 1), got {self.turn_penalty}")


@dataclass
class TurnResult:
    """What one answer produced."""

    reward: float
    done: bool
    feedback: str
    verdict: Verdict
    turn: int


def prompt_text(task: Task) -> str:
    """The prompt as one text: the user message, preceded by any system message."""
    parts = [str(m.get("content", "")) for m in task.prompt if m.get("role") in ("system", "user")]
    return "\n\n".join(p for p in parts if p)


class Episode:
    """The state of one episode: the task, the turns taken, the best verifier score so far."""

    def __init__(self, task: Task, config: TurnConfig) -> None:
        self.task = task
        self.config = config
        self.turn = 0
        self.best = 0.0
        self.total = 0.0
        self.solved = False
        self.done = False
        self.last_verdict: Verdict | None = None
        self.messages: list[dict[str, str]] = [dict(m) for m in task.prompt]

    def submit(self, completion: Any) -> TurnResult:
        """Score one answer; returns the turn's reward, whether the episode ended, and the feedback."""
        if self.done:
            raise RuntimeError("the episode is over; reset before answering again")
        self.turn += 1
        verdict = verify(self.task, completion, **self.config.verify_options)
        score = min(max(float(verdict.reward), 0.0), 1.0)
        gain = max(0.0, score - self.best)
        reward = (1.0 - float(self.config.turn_penalty)) ** (self.turn - 1) * gain
        self.best = max(self.best, score)
        self.total += reward
        self.solved = bool(verdict.correct)
        self.done = self.solved or self.turn >= int(self.config.max_turns)
        self.last_verdict = verdict
        feedback = feedback_text(self.task, verdict, turn=self.turn, max_turns=int(self.config.max_turns),
                                 retry_hint=self.config.retry_hint)
        text = completion_text(completion)
        self.messages.append({"role": "assistant", "content": text if text is not None else str(completion)})
        if not self.done:
            self.messages.append({"role": "user", "content": feedback})
        return TurnResult(reward=reward, done=self.done, feedback=feedback, verdict=verdict, turn=self.turn)


class HoldsEpisode:
    """The ``task`` and ``episode`` properties of an environment that keeps its current :class:`Episode`
    in ``self._episode`` (None before the first reset): the Gymnasium env and the TRL adapter."""

    _episode: Episode | None = None

    @property
    def task(self) -> Task | None:
        """The current task (with its ground truth), or None before the first reset."""
        return None if self._episode is None else self._episode.task

    @property
    def episode(self) -> Episode | None:
        """The current episode state (turns taken, best score, transcript), or None before the first reset."""
        return self._episode
