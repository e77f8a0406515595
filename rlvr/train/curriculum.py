"""A reward-driven curriculum: one task option steps through levels as the model gets better.

It is the threshold policy of :mod:`rlvr.frontier` (``TaskSampler(mixture, policy=curriculum)``): it
sets a generator option by level, where the frontier policy chooses among candidate tasks by the
success of their difficulty cells.

Example (recipe YAML)::

    curriculum:
      option: coef_max          # a task-family option (any of the mixture's families)
      levels: [2, 3, 4, 6, 8]   # values, easiest first
      metric: reward            # a key of the trainer's train logs
      threshold: 0.6            # advance when the rolling mean reaches this
      window: 5                 # number of train logs in the rolling mean
      min_steps: 10             # at least this many optimizer steps per level

The :class:`Curriculum` is plain state shared by the training stream (which asks for the current
options whenever it generates a task) and :class:`rlvr.train.callbacks.CurriculumCallback` (which
feeds it the logged metrics). Logged metrics are already gathered across ranks, so every rank
advances at the same step and generates the same global task stream.
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any, Mapping


@dataclass
class Curriculum:
    """Levels of one task option, advanced when a rolling metric mean passes a threshold."""

    option: str
    levels: list[Any]
    metric: str = "reward"
    threshold: float = 0.6
    window: int = 5
    min_steps: int = 10
    families: list[str] | None = None
    level: int = 0
    _recent: deque = field(default_factory=deque, repr=False)
    _level_started: int = 0
    history: list[dict[str, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.option:
            raise ValueError("curriculum: `option` (a task option name) is required")
        if not isinstance(self.levels, list) or len(self.levels) < 2:
            raise ValueError("curriculum: `levels` must list at least two option values, easiest first")
        if self.window < 1:
            raise ValueError("curriculum: `window` must be >= 1")
        self._recent = deque(maxlen=int(self.window))

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> "Curriculum":
        """Build from a recipe mapping (unknown keys are named in the error)."""
        if not isinstance(config, Mapping):
            raise ValueError("curriculum must be a mapping {option, levels, metric, threshold, window, min_steps}")
        allowed = {"option", "levels", "metric", "threshold", "window", "min_steps", "families"}
        unknown = set(config) - allowed
        if unknown:
            raise ValueError(f"curriculum: unknown key(s) {sorted(unknown)}; allowed: {sorted(allowed)}")
        if "option" not in config or "levels" not in config:
            raise ValueError("curriculum needs `option` and `levels`")
        kwargs = dict(config)
        if isinstance(kwargs.get("families"), str):
            kwargs["families"] = [kwargs["families"]]
        return cls(**kwargs)

    @property
    def value(self) -> Any:
        """The option value of the current level."""
        return self.levels[self.level]

    @property
    def finished(self) -> bool:
        return self.level >= len(self.levels) - 1

    def options_for(self, family: str) -> dict[str, Any]:
        """The option override for ``family`` at the current level (empty if it does not apply)."""
        if self.families is not None and family not in self.families:
            return {}
        return {self.option: self.value}

    def observe(self, logs: Mapping[str, Any], step: int) -> bool:
        """Feed one train log; returns True if the level advanced."""
        value = logs.get(self.metric)
        if value is None or not isinstance(value, (int, float)):
            return False
        self._recent.append(float(value))
        if self.finished or len(self._recent) < self._recent.maxlen or step - self._level_started < self.min_steps:
            return False
        mean = sum(self._recent) / len(self._recent)
        if mean < self.threshold:
            return False
        self.level += 1
        self._level_started = step
        self._recent.clear()
        self.history.append({"step": step, "level": self.level, "value": self.value, "metric_mean": round(mean, 4)})
        return True

    # ---------------------------------------------------------------- as a selection policy
    def weights(self, cells: list[str]) -> list[float]:
        """As a :class:`rlvr.frontier.SelectionPolicy`: every candidate weighs the same (the level sets the option)."""
        return [1.0] * len(cells)

    def observe_outcome(self, cell: str, success: float) -> None:
        """Graded completions do not move a threshold curriculum: it advances on logged metrics (:meth:`observe`)."""

    def summary(self) -> dict[str, dict[str, float]]:
        return {}

    def state_dict(self) -> dict[str, Any]:
        """What a checkpoint stores to resume at the same level."""
        return {"level": self.level, "level_started": self._level_started, "history": list(self.history)}

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        self.level = min(int(state.get("level", 0)), len(self.levels) - 1)
        self._level_started = int(state.get("level_started", 0))
        self.history = list(state.get("history", []))
        self._recent.clear()
