"""The shared hostile corpus against every registered family, a few tasks each: every completion gets a
verdict in [0, 1] with a reason from the vocabulary, never ``checker_error`` or ``timeout``, quickly."""
from __future__ import annotations

import time

import pytest

import rlvr
from rlvr.families.hostile import HUGE_DIGITS, MAX_TOTAL_CHARS, hostile_completions
from rlvr.reasons import Reason
from rlvr.registry import get_family

#: tasks per family (indices 0..N-1 of each split's first option set)
TASKS_PER_SPLIT = 2
#: a generous wall-time bound for one hostile verdict on a shared machine
MAX_SECONDS = 2.0
VOCABULARY = {str(r) for r in Reason}


def _tasks(family: str) -> list:
    return [rlvr.generate(family, split=split, seed=5, index=i)
            for split in get_family(family).splits[:2] for i in range(TASKS_PER_SPLIT)]


def test_the_corpus_is_deterministic_bounded_and_holds_the_reported_cases():
    corpus = hostile_completions()
    assert corpus == hostile_completions() and len(corpus) == len(set(corpus))
    assert sum(map(len, corpus)) <= MAX_TOTAL_CHARS
    assert f"<answer>{{{'9' * HUGE_DIGITS}}}CH4</answer>" in corpus
    for needle in ("1e308", "NaN", "<answer>-1</answer>", "\ud800", "🧪", "</think>" * 100, "%99"):
        assert any(needle in c for c in corpus), needle
    assert max(map(len, corpus)) >= 100_000


@pytest.mark.parametrize("family", rlvr.list_families())
def test_no_hostile_completion_reaches_checker_error(family):
    corpus = hostile_completions()
    failures = []
    for task in _tasks(family):
        for completion in corpus:
            start = time.perf_counter()
            verdict = rlvr.verify(task, completion)
            seconds = time.perf_counter() - start
            reason = str(verdict.reason)
            if reason in (Reason.CHECKER_ERROR, Reason.TIMEOUT) or reason not in VOCABULARY \
                    or not 0.0 <= verdict.reward <= 1.0 or seconds > MAX_SECONDS:
                failures.append((task.id, completion[:60], reason, verdict.reward, round(seconds, 2)))
            assert not verdict.correct or verdict.reward == 1.0
    assert not failures, failures[:5]
