"""Frontier task selection: draw training tasks where the model's success is strictly between 0 and 1.

A :class:`TaskSampler` turns a :class:`~rlvr.datasets.Mixture` into a stream of tasks chosen by a
:class:`SelectionPolicy` from the rewards seen so far:

- every row ``i`` looks at ``candidates`` tasks of the mixture (rows ``i*K .. i*K+K-1`` of the same
  split), names each one's *difficulty cell* with its family's hook (``FamilySpec.difficulty``:
  reaction multiplier and coefficient size, number of species, load and complexity bin, ...), and
  takes one of them with probability proportional to the policy's weight of its cell. All candidates
  come from the stream's own split, so selection never reaches a held-out task;
- :meth:`TaskSampler.observe` feeds back each graded completion (cell, success); the
  :class:`FrontierPolicy` keeps a window of recent outcomes per cell and weights a cell by
  ``floor + (1 - floor) * (4 p (1 - p)) ** sharpness`` with ``p`` the cell's smoothed success rate:
  cells at 0 or 1 are drawn less, unseen cells are explored first;
- the choice at row ``i`` is a pure function of ``(seed, split, i)`` and the outcomes observed
  before it, so the same seed and reward history give the same tasks on any machine.

The threshold curriculum (:class:`rlvr.train.curriculum.Curriculum`) is the other policy: it sets a
family option by level instead of choosing among candidates. :class:`UniformPolicy` reproduces the
plain stream (row ``i`` is the mixture's row ``i``).
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Protocol, runtime_checkable

from rlvr.registry import get_family
from rlvr.rng import stable_hash, unit_interval
from rlvr.task import Task

#: policy names a recipe may give (``frontier: {policy: ...}``)
POLICIES = ("frontier", "uniform")


def difficulty_cell(task: Task) -> str:
    """``family|cell`` of a task: its family's difficulty hook, or the family alone when it has none."""
    spec = get_family(task.family)
    hook = spec.difficulty
    if hook is None:
        return task.family
    try:
        return f"{task.family}|{hook.cell(task)}"
    except (KeyError, TypeError, ValueError):  # a task record without the fields the hook reads
        return f"{task.family}|?"


@runtime_checkable
class SelectionPolicy(Protocol):
    """Weights of difficulty cells for the next draw, learnt from graded outcomes (the frontier and
    uniform policies here; :class:`rlvr.train.curriculum.Curriculum` is the threshold policy)."""

    def weights(self, cells: list[str]) -> list[float]:
        """One non-negative weight per candidate cell (not all zero)."""

    def observe_outcome(self, cell: str, success: float) -> None:
        """One graded completion of a task in ``cell`` (success in [0, 1])."""


@dataclass
class CellStats:
    """Recent outcomes of one cell (a bounded window) and the totals since the start."""

    window: int
    recent: deque = field(default_factory=deque)
    seen: int = 0
    successes: float = 0.0

    def __post_init__(self) -> None:
        self.recent = deque(self.recent, maxlen=int(self.window))

    def add(self, success: float) -> None:
        self.recent.append(float(success))
        self.seen += 1
        self.successes += float(success)

    def rate(self, prior: float) -> float:
        """Smoothed success rate of the window (Beta(prior, prior) pseudo-counts)."""
        return (sum(self.recent) + prior) / (len(self.recent) + 2 * prior)


@dataclass
class FrontierConfig:
    """Options of frontier selection (recipe key ``frontier``).

    - ``candidates``: tasks considered per row (1 = the plain stream);
    - ``window``: most recent graded completions kept per cell;
    - ``prior``: Beta pseudo-counts smoothing a cell's success rate (an unseen cell counts as 0.5);
    - ``floor``: weight of a cell whose success is 0 or 1 (drawn less, never excluded);
    - ``sharpness``: the exponent of ``4 p (1 - p)`` (higher: cells near 0 or 1 fall off faster);
    - ``success``: a completion counts as a success when its verdict is correct (``correct``) or its
      reward reaches this threshold (a number);
    - ``policy``: ``frontier`` or ``uniform``.
    """

    candidates: int = 8
    window: int = 32
    prior: float = 0.5
    floor: float = 0.05
    sharpness: float = 2.0
    success: str | float = "correct"
    policy: str = "frontier"

    def __post_init__(self) -> None:
        if int(self.candidates) < 1:
            raise ValueError(f"frontier: candidates must be >= 1, got {self.candidates}")
        if int(self.window) < 1:
            raise ValueError(f"frontier: window must be >= 1, got {self.window}")
        if not float(self.prior) > 0:
            raise ValueError(f"frontier: prior must be > 0, got {self.prior}")
        if not float(self.sharpness) > 0:
            raise ValueError(f"frontier: sharpness must be > 0, got {self.sharpness}")
        if not 0.0 < float(self.floor) <= 1.0:
            raise ValueError(f"frontier: floor must be in (0, 1], got {self.floor}")
        if self.policy not in POLICIES:
            raise ValueError(f"frontier: unknown policy {self.policy!r}; choose one of {list(POLICIES)}")
        if self.success != "correct" and not isinstance(self.success, (int, float)):
            raise ValueError(f"frontier: success must be 'correct' or a reward threshold, got {self.success!r}")
        self.candidates, self.window = int(self.candidates), int(self.window)
        self.prior, self.floor, self.sharpness = float(self.prior), float(self.floor), float(self.sharpness)

    @classmethod
    def from_mapping(cls, config: Mapping[str, Any] | None) -> "FrontierConfig":
        """From a recipe mapping, naming unknown keys."""
        config = dict(config or {})
        allowed = {f for f in cls.__dataclass_fields__}
        unknown = sorted(set(config) - allowed)
        if unknown:
            raise ValueError(f"frontier: unknown key(s) {unknown}; allowed: {sorted(allowed)}")
        return cls(**config)


class FrontierPolicy:
    """Cells weighted by ``floor + (1 - floor) * (4 p (1 - p)) ** sharpness`` of their smoothed success rate ``p``."""

    def __init__(self, config: FrontierConfig | None = None) -> None:
        self.config = config or FrontierConfig()
        self.cells: dict[str, CellStats] = {}

    def _stats(self, cell: str) -> CellStats:
        if cell not in self.cells:
            self.cells[cell] = CellStats(self.config.window)
        return self.cells[cell]

    def rate(self, cell: str) -> float:
        """The cell's smoothed success rate (0.5 before any outcome)."""
        stats = self.cells.get(cell)
        return 0.5 if stats is None else stats.rate(self.config.prior)

    def weight(self, cell: str) -> float:
        p = self.rate(cell)
        return self.config.floor + (1.0 - self.config.floor) * (4.0 * p * (1.0 - p)) ** self.config.sharpness

    def weights(self, cells: list[str]) -> list[float]:
        return [self.weight(c) for c in cells]

    def observe_outcome(self, cell: str, success: float) -> None:
        self._stats(cell).add(success)

    def summary(self) -> dict[str, dict[str, float]]:
        """Per cell: outcomes seen, overall success, windowed smoothed rate and current weight."""
        return {cell: {"seen": s.seen, "success": round(s.successes / s.seen, 4) if s.seen else 0.0,
                       "rate": round(s.rate(self.config.prior), 4), "weight": round(self.weight(cell), 4)}
                for cell, s in sorted(self.cells.items())}

    def state_dict(self) -> dict[str, Any]:
        return {cell: {"recent": list(s.recent), "seen": s.seen, "successes": s.successes}
                for cell, s in self.cells.items()}

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        self.cells = {cell: CellStats(self.config.window, deque(v.get("recent", [])), int(v.get("seen", 0)),
                                      float(v.get("successes", 0.0)))
                      for cell, v in state.items()}


class UniformPolicy(FrontierPolicy):
    """Every cell weighs the same (outcomes are still tracked and logged)."""

    def weight(self, cell: str) -> float:
        return 1.0


def make_policy(config: FrontierConfig) -> FrontierPolicy:
    """The policy a config names."""
    return (UniformPolicy if config.policy == "uniform" else FrontierPolicy)(config)


class TaskSampler:
    """Tasks of a mixture chosen row by row by a policy (see the module docstring).

    ``task_at(i)`` is what a stream calls for row ``i``; ``fresh(n)`` draws ``n`` further tasks from a
    separate row range (for dynamic sampling's replacement prompts); ``observe(task, success)`` grades.
    Counters: ``drawn`` (rows served), ``drawn_by_cell``.
    """

    def __init__(self, mixture: Any, config: FrontierConfig | None = None,
                 policy: SelectionPolicy | None = None) -> None:
        self.mixture = mixture
        self.config = config or FrontierConfig()
        self.policy = policy or make_policy(self.config)
        self.drawn = 0
        self.drawn_by_cell: dict[str, int] = {}
        self._fresh_next = 0

    # ------------------------------------------------------------------ drawing
    def _task(self, index: int) -> Task:
        # an option-setting policy (the threshold curriculum) steers the generator itself
        steer = self.policy if hasattr(self.policy, "options_for") else None
        return self.mixture.task_at(index, steer)

    def _choose(self, row: int, namespace: str) -> Task:
        k = self.config.candidates
        if k == 1 or self.config.policy == "uniform":
            task = self._task(self._candidate_index(row, 0, namespace))
            self._count(difficulty_cell(task))
            return task
        tasks = [self._task(self._candidate_index(row, j, namespace)) for j in range(k)]
        cells = [difficulty_cell(t) for t in tasks]
        weights = self.policy.weights(cells)
        total = sum(weights)
        u = unit_interval("rlvr-frontier", self.mixture.seed, self.mixture.split, namespace, row) * total
        acc, chosen = 0.0, k - 1
        for j, w in enumerate(weights):
            acc += w
            if u < acc:
                chosen = j
                break
        self._count(cells[chosen])
        return tasks[chosen]

    def _candidate_index(self, row: int, j: int, namespace: str) -> int:
        if self.config.candidates == 1 or self.config.policy == "uniform":
            base = row
        else:
            base = row * self.config.candidates + j
        if namespace == "main":
            return base
        # replacement draws: a disjoint, deterministic index range of the same split
        return (1 << 40) + (stable_hash("rlvr-frontier-fresh", namespace) % (1 << 20)) * (1 << 32) + base

    def _count(self, cell: str) -> None:
        self.drawn += 1
        self.drawn_by_cell[cell] = self.drawn_by_cell.get(cell, 0) + 1

    def task_at(self, index: int, curriculum: Any = None) -> Task:
        """The task of stream row ``index`` (``curriculum`` is not used: the policy chooses)."""
        return self._choose(int(index), "main")

    def fresh(self, n: int, namespace: str = "resample") -> list[Task]:
        """``n`` tasks from a row range the main stream never uses (replacement prompts)."""
        out = [self._choose(self._fresh_next + i, namespace) for i in range(int(n))]
        self._fresh_next += int(n)
        return out

    # ------------------------------------------------------------------ feedback
    def is_success(self, correct: bool, reward: float | None = None) -> float:
        """One completion's success under the config's rule."""
        if self.config.success == "correct":
            return 1.0 if correct else 0.0
        return 1.0 if reward is not None and float(reward) >= float(self.config.success) else 0.0

    def observe(self, task: Task, success: float) -> None:
        """Feed one graded completion of ``task``."""
        self.policy.observe_outcome(difficulty_cell(task), success)

    def observe_many(self, outcomes: Iterable[tuple[Task, float]]) -> None:
        for task, success in outcomes:
            self.observe(task, success)

    # ------------------------------------------------------------------ reporting
    def metrics(self) -> dict[str, float]:
        """Flat logging metrics: cells at the frontier, mean windowed rate, per-cell rates."""
        summary = self.policy.summary() if hasattr(self.policy, "summary") else {}
        out: dict[str, float] = {}
        if summary:
            rates = [v["rate"] for v in summary.values()]
            out["frontier/cells"] = float(len(summary))
            out["frontier/cells_at_frontier"] = float(sum(0.1 < r < 0.9 for r in rates))
            out["frontier/mean_rate"] = round(sum(rates) / len(rates), 4)
        for cell, v in summary.items():
            out[f"frontier/rate/{cell}"] = v["rate"]
        return out

    def state_dict(self) -> dict[str, Any]:
        return {"policy": self.policy.state_dict(), "drawn": self.drawn, "drawn_by_cell": dict(self.drawn_by_cell),
                "fresh_next": self._fresh_next}

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        self.policy.load_state_dict(state.get("policy", {}))
        self.drawn = int(state.get("drawn", 0))
        self.drawn_by_cell = dict(state.get("drawn_by_cell", {}))
        self._fresh_next = int(state.get("fresh_next", 0))

    @property
    def seed(self) -> int:
        return self.mixture.seed

    @property
    def split(self) -> str:
        return self.mixture.split
