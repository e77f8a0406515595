"""One definition of "answered": the format reward, eval's answered column, the quickstart's format-ok
rate and the environments' feedback all read :func:`rlvr.reasons.answered`."""
from __future__ import annotations

import pytest

import rlvr
from rlvr.envs.feedback import feedback_lines
from rlvr.eval.report import render_reasons
from rlvr.eval.tables import task_answered
from rlvr.reasons import FORMAT_FAILURES, Reason, answered, format_ok
from rlvr.rewards import format_reward
from rlvr.quickstart.scores import score_records


@pytest.mark.parametrize("completion, readable", [
    ("<answer></answer>", False),  # an empty answer block: unparsable, never "answered"
    ("no block at all", False),
    ("<answer>{1}H2O</answer>", True),  # read, but wrong
])
def test_every_consumer_agrees_on_answered(completion, readable):
    task = next(rlvr.sample("stoich.t1", n=1, split="test_in", seed=1))
    verdict = rlvr.verify(task, completion)
    assert answered(verdict) is readable and format_ok(verdict.reason) is readable
    assert (verdict.reason in FORMAT_FAILURES) is not readable
    assert format_reward([task.prompt], [completion], task_json=[task.to_json()]) == [float(readable)]
    record = {"family": task.family, "split": "test_in", "split_group": "in", "info": {},
              "rollouts": [{"reason": verdict.reason, "correct": verdict.correct, "metrics": verdict.metrics}]}
    assert task_answered(record) == float(readable)
    assert score_records([record])["in"].format_ok == float(readable)
    row = next(line for line in render_reasons([record]).splitlines() if line.startswith(f"| {task.family}"))
    assert row.split("|")[3].strip() == ("100.00" if readable else "0.00")
    advice = " ".join(feedback_lines(task, verdict))
    assert ("<answer>" in advice or "parsed" in advice) is not readable


def test_the_empty_block_is_unparsable_and_timeouts_are_format_failures():
    task = next(rlvr.sample("mol.count", n=1))
    assert rlvr.verify(task, "<answer></answer>").reason in FORMAT_FAILURES
    assert Reason.TIMEOUT in FORMAT_FAILURES and not answered(Reason.TIMEOUT) and answered(Reason.WRONG_VALUE)
