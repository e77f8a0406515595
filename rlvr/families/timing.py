"""A wall-clock budget for verdicts, for the conformance checks.

A reward is computed for every rollout of every training step: a checker that takes half a second on
some inputs stalls the trainer, and waiting (a sleep, a lock, a network call) is invisible to CPU time.
:func:`check_verdict_times` measures the wall-clock time of each verdict over a family's conformance
set (the oracle answer, its first minimal perturbations and its first hedged answers, per task) and
holds it to two budgets:

- the median verdict within :data:`MEDIAN_SECONDS` (the built-in families take well under a
  millisecond: 50 ms is a slow checker on any machine);
- every verdict within :data:`MAX_SECONDS` (the built-in families' slowest take a few milliseconds). A
  verdict over the budget is timed once more: slow again, it fails; fast the second time, it may have been
  a pause of a loaded machine, or a checker that is slow on what it has not seen and then caches it, so
  only :data:`FORGIVEN` such inputs pass. The conformance checks time each input's first verdict.

The message names the slowest input: its task and its completion. What is not timed: the shared hostile
corpus (100,000-character and 5,001-digit completions), which only the verdict deadline bounds.
"""
from __future__ import annotations

import statistics
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from rlvr.api import verify
from rlvr.task import Task

#: the budget of the median verdict (wall-clock seconds)
MEDIAN_SECONDS = 0.05
#: the budget of any one verdict (wall-clock seconds, measured twice before it fails)
MAX_SECONDS = 0.25
#: inputs whose first verdict may be over :data:`MAX_SECONDS` when their second is not
FORGIVEN = 2


class SlowVerdicts(AssertionError):
    """Verdicts over the wall-clock budget (the conformance checks raise their own error instead)."""


def _shown(completion: Any) -> str:
    text = str(completion)
    return repr(text if len(text) < 80 else text[:60] + f"... ({len(text)} chars)")


def wall_seconds(task: Task, completion: Any) -> float:
    """The wall-clock seconds of one verdict of ``completion`` on ``task``."""
    start = time.perf_counter()
    verify(task, completion)
    return time.perf_counter() - start


@dataclass
class VerdictTimes:
    """Wall-clock seconds of each verdict measured, with the slowest one's input."""

    seconds: list[float] = field(default_factory=list)
    slowest: tuple[float, str, str] = (0.0, "", "")

    def record(self, task: Task, completion: Any, seconds: float) -> None:
        """Keep one verdict's time."""
        self.seconds.append(seconds)
        if seconds > self.slowest[0]:
            self.slowest = (seconds, task.id, _shown(completion))

    @property
    def median(self) -> float:
        """The median verdict time (0 when none was measured)."""
        return statistics.median(self.seconds) if self.seconds else 0.0


def check_verdict_times(pairs: Iterable[tuple[Task, Any]], *, median_seconds: float = MEDIAN_SECONDS,
                        max_seconds: float = MAX_SECONDS,
                        fail: Callable[[str], BaseException] = SlowVerdicts) -> VerdictTimes:
    """Time the verdict of every ``(task, completion)`` in ``pairs`` (wall-clock); raise ``fail(message)``
    naming the slowest input when one verdict is over ``max_seconds`` twice, when more than
    :data:`FORGIVEN` inputs are over it once, or when the median is over ``median_seconds`` (measured
    twice too: each verdict's faster time counts). Returns the times."""
    pairs = list(pairs)
    times, forgiven = VerdictTimes(), []
    for task, completion in pairs:
        seconds = wall_seconds(task, completion)
        if seconds > max_seconds:
            again = wall_seconds(task, completion)
            if again > max_seconds:
                raise fail(f"{task.id}: a verdict took {min(seconds, again):.2f} s of wall-clock time, twice (budget "
                           f"{max_seconds:g} s a verdict), on {_shown(completion)}: the checker is slow on this "
                           f"input (a sleep, a lock, a network call or a costly computation)")
            forgiven.append((seconds, task.id, _shown(completion)))
            if len(forgiven) > FORGIVEN:
                slowest = max(forgiven)
                raise fail(f"{slowest[1]}: the first verdicts of {len(forgiven)} inputs took over {max_seconds:g} s of "
                           f"wall-clock time each (the slowest, {slowest[0]:.2f} s, on {slowest[2]}), fast only when "
                           f"repeated: the checker is slow on inputs it has not seen")
        times.record(task, completion, seconds)
    if times.median > median_seconds:
        again = VerdictTimes()
        for (task, completion), first in zip(pairs, list(times.seconds)):
            again.record(task, completion, min(first, wall_seconds(task, completion)))
        if again.median > median_seconds:
            seconds, task_id, shown = again.slowest
            raise fail(f"{task_id}: verdicts are slow: the median takes {again.median * 1000:.0f} ms of wall-clock "
                       f"time over {len(again.seconds)} verdicts (budget {median_seconds * 1000:.0f} ms); the slowest "
                       f"input, {seconds:.2f} s, is {shown} on this task")
        times = again
    return times


__all__ = ["FORGIVEN", "MAX_SECONDS", "MEDIAN_SECONDS", "SlowVerdicts", "VerdictTimes", "check_verdict_times", "wall_seconds"]
