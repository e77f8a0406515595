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

The message names the slowest input: its task and its completion.

:class:`VerdictClock` times every verdict of a whole conformance run (every answer the run tries: oracle
answers, perturbations, hedged answers, hostile values, renderings, copied answers and the shared hostile
corpus), through :func:`timed_verify`: each one within :data:`MAX_SECONDS` (the shared hostile corpus's
completions, up to 100,000 characters, within :data:`HOSTILE_MAX_SECONDS`), timed twice before it fails as
above, and all of them together within :data:`TOTAL_SECONDS`.
"""
from __future__ import annotations

import statistics
import time
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator

from rlvr.api import verify
from rlvr.task import Task, Verdict

#: the budget of the median verdict (wall-clock seconds)
MEDIAN_SECONDS = 0.05
#: the budget of any one verdict (wall-clock seconds, measured twice before it fails)
MAX_SECONDS = 0.25
#: inputs whose first verdict may be over :data:`MAX_SECONDS` when their second is not
FORGIVEN = 2
#: the budget of one verdict of the shared hostile corpus (completions up to 100,000 characters)
HOSTILE_MAX_SECONDS = 1.0
#: the budget of all the verdicts of one family's conformance run together (wall-clock seconds)
TOTAL_SECONDS = 40.0


class SlowVerdicts(AssertionError):
    """Verdicts over the wall-clock budget (the conformance checks raise their own error instead)."""


def _shown(completion: Any) -> str:
    text = str(completion)
    return repr(text if len(text) < 80 else text[:60] + f"... ({len(text)} chars)")


def wall_seconds(task: Task, completion: Any) -> float:
    """The wall-clock seconds of one verdict of ``completion`` on ``task`` (counted by the active
    :class:`VerdictClock`, if any, toward its run's total)."""
    start = time.perf_counter()
    verify(task, completion)
    seconds = time.perf_counter() - start
    clock = _CLOCK.get()
    if clock is not None:
        clock.count(task, completion, seconds)
    return seconds


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


class VerdictClock:
    """Times every verdict of one family's conformance run (:func:`timed_verify` while :meth:`active`): each
    within its budget (timed twice before it fails; :data:`FORGIVEN` inputs may be slow only once), all of
    them together within ``total_seconds`` (defaults: :data:`MAX_SECONDS`, :data:`TOTAL_SECONDS` as they are
    when the clock is made). ``fail(message)`` is the error raised."""

    def __init__(self, family: str, *, max_seconds: float | None = None, total_seconds: float | None = None,
                 fail: Callable[[str], BaseException] = SlowVerdicts) -> None:
        self.family, self.fail = family, fail
        self.max_seconds = MAX_SECONDS if max_seconds is None else max_seconds
        self.total_seconds = TOTAL_SECONDS if total_seconds is None else total_seconds
        self.times = VerdictTimes()
        self.forgiven: list[tuple[float, str, str]] = []
        #: wall-clock seconds of every verdict counted so far
        self.total = 0.0

    def count(self, task: Task, completion: Any, seconds: float) -> None:
        """Count one verdict's time toward the total; raise when the total is over its budget."""
        self.times.record(task, completion, seconds)
        self.total += seconds
        total = self.total
        if total > self.total_seconds:
            slowest, task_id, shown = self.times.slowest
            raise self.fail(f"{self.family}: the run's verdicts are too slow: {len(self.times.seconds)} verdicts took "
                            f"{total:.1f} s of wall-clock time in all (budget {self.total_seconds:g} s for one family's "
                            f"run); the slowest, {slowest:.2f} s, was {shown} on {task_id}")

    def verify(self, task: Task, completion: Any, *, max_seconds: float | None = None) -> Verdict:
        """The verdict of ``completion`` on ``task``, timed: over ``max_seconds`` (default: the clock's) twice
        it fails, as do more than :data:`FORGIVEN` inputs over it once."""
        budget = self.max_seconds if max_seconds is None else max_seconds
        start = time.perf_counter()
        verdict = verify(task, completion)
        seconds = time.perf_counter() - start
        if seconds > budget:
            start = time.perf_counter()
            verdict = verify(task, completion)
            again = time.perf_counter() - start
            self.count(task, completion, again)
            if again > budget:
                raise self.fail(f"{task.id}: a verdict took {min(seconds, again):.2f} s of wall-clock time, twice "
                                f"(budget {budget:g} s a verdict), on {_shown(completion)}: the checker is slow on "
                                f"this input (a sleep, a lock, a network call or a costly computation)")
            self.forgiven.append((seconds, task.id, _shown(completion)))
            if len(self.forgiven) > FORGIVEN:
                slowest = max(self.forgiven)
                raise self.fail(f"{slowest[1]}: the first verdicts of {len(self.forgiven)} inputs took over {budget:g} s "
                                f"of wall-clock time each (the slowest, {slowest[0]:.2f} s, on {slowest[2]}), fast only "
                                f"when repeated: the checker is slow on inputs it has not seen")
        self.count(task, completion, seconds)
        return verdict

    @contextmanager
    def active(self) -> Iterator["VerdictClock"]:
        """While open, :func:`timed_verify` (and :func:`wall_seconds`) count on this clock."""
        token = _CLOCK.set(self)
        try:
            yield self
        finally:
            _CLOCK.reset(token)


_CLOCK: ContextVar[VerdictClock | None] = ContextVar("rlvr_verdict_clock", default=None)


def timed_verify(task: Task, completion: Any, *, max_seconds: float | None = None) -> Verdict:
    """``rlvr.verify(task, completion)``, timed by the active :class:`VerdictClock` when there is one."""
    clock = _CLOCK.get()
    if clock is None:
        return verify(task, completion)
    return clock.verify(task, completion, max_seconds=max_seconds)


__all__ = ["FORGIVEN", "HOSTILE_MAX_SECONDS", "MAX_SECONDS", "MEDIAN_SECONDS", "TOTAL_SECONDS", "SlowVerdicts",
           "VerdictClock", "VerdictTimes", "check_verdict_times", "timed_verify", "wall_seconds"]
