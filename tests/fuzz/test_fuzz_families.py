"""Property-based fuzzing of every registered family's checker (hypothesis, fixed seed).

Per family, answers written in the family's own format and mutations of oracle answers
(:func:`rlvr.families.fuzz.write_answer`, driven by hypothesis's ``randoms``). Invariants: a verdict,
a reason from the vocabulary (never ``checker_error`` or ``timeout``), a reward in [0, 1], reward 1.0
only when :func:`rlvr.families.fuzz.independently_right` does not say the answer is wrong, and a bounded
CPU time per verdict. :data:`EXAMPLES_PER_FAMILY` x the families is at least 20,000 examples.
"""
from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

import rlvr
from rlvr.families.fuzz import independently_right, mutate, write_answer
from rlvr.reasons import Reason
from rlvr.registry import get_family

FAMILIES = rlvr.list_families()
#: examples per family (>= 20,000 in all over the seven built-in families)
EXAMPLES_PER_FAMILY = max(3000, -(-20_000 // max(1, len(FAMILIES))))
#: distinct tasks per family (splits x indices)
TASKS = 6
MAX_SECONDS = 2.0
VOCABULARY = {str(r) for r in Reason}
#: no ``explain`` phase: it re-runs a failing example under a line tracer, which takes many minutes here
FUZZ = settings(max_examples=EXAMPLES_PER_FAMILY, derandomize=True, deadline=None, database=None,
                suppress_health_check=list(HealthCheck), print_blob=True,
                phases=(Phase.explicit, Phase.reuse, Phase.generate, Phase.shrink))


def _tasks(family: str) -> list[tuple]:
    splits = get_family(family).splits
    tasks = [rlvr.generate(family, split=splits[i % len(splits)], seed=17, index=i) for i in range(TASKS)]
    return [(t, rlvr.oracle_completion(t)) for t in tasks]


def _check(task, completion: str, cpu_seconds: Callable[..., tuple[Any, float]]) -> None:
    verdict, seconds = cpu_seconds(rlvr.verify, task, completion)  # this thread's CPU, garbage collector paused
    reason = str(verdict.reason)
    assert reason in VOCABULARY and reason not in (Reason.CHECKER_ERROR, Reason.TIMEOUT), (reason, verdict.metrics)
    assert 0.0 <= verdict.reward <= 1.0
    assert verdict.correct == (reason == Reason.OK)
    if verdict.reward == 1.0:
        assert independently_right(task, completion) is not False, completion
    assert seconds < MAX_SECONDS, (seconds, completion[:200])


@pytest.mark.parametrize("family", FAMILIES)
def test_fuzzed_answers_get_sound_verdicts(family, cpu_seconds):
    tasks = _tasks(family)
    for task, oracle in tasks:  # the judge agrees with the oracle where it can read it
        assert independently_right(task, oracle) in (True, None)

    @FUZZ
    @given(rng=st.randoms(use_true_random=False), which=st.integers(0, TASKS - 1))
    def run(rng: random.Random, which: int) -> None:
        task, oracle = tasks[which]
        _check(task, write_answer(task, oracle, rng), cpu_seconds)

    run()


def test_the_independent_judge_catches_wrong_answers():
    for family in ("stoich.balance", "stoich.t1", "stoich.byproduct", "mol.count", "mol.index"):
        task, oracle = _tasks(family)[0]
        assert independently_right(task, oracle) is True, (family, oracle)
        wrong = [m for m in (mutate(oracle, random.Random(i), steps=1) for i in range(200))
                 if independently_right(task, m) is False]
        assert wrong, family
        assert all(rlvr.verify(task, m).reward < 1.0 for m in wrong[:20])
