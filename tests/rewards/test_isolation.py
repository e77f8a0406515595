"""Scoring processes that are killed and replaced when an item hangs in C code (rlvr.rewards.isolation).

Jobs use standard-library functions (picklable by reference): ``time.sleep`` blocks in C, which an
in-process deadline cannot interrupt.
"""
from __future__ import annotations

import multiprocessing
import os
import signal
import threading
import time

import pytest

from rlvr.rewards.isolation import ScorerProcess, _send

TIMEOUT, GRACE = 0.3, 0.3


@pytest.fixture(scope="module")
def scorer():
    proc = ScorerProcess(TIMEOUT, grace=GRACE)
    try:
        proc.start()
        yield proc
    finally:
        proc.close()


def test_a_job_runs_item_by_item_in_the_child(scorer):
    assert scorer.run(list, ["-3", "4"], int, lambda kind: kind) == [-3, 4]
    assert scorer.run(list, [], int, lambda kind: kind) == []
    assert scorer.pid != os.getpid()


def test_an_item_stuck_in_c_is_lost_and_the_rest_of_the_job_goes_on(scorer):
    before, pid = scorer.restarts, scorer.pid
    start = time.monotonic()
    assert scorer.run(list, [0, 60, 0, 0], time.sleep, lambda kind: kind) == [None, "timeout", None, None]
    assert time.monotonic() - start < 60
    assert scorer.restarts == before + 1 and scorer.pid != pid


def test_errors_of_the_job_reach_the_caller(scorer):
    with pytest.raises(ValueError, match="invalid literal"):
        scorer.run(list, ["1", "x"], int, lambda kind: kind)
    assert scorer.run(list, ["5"], int, lambda kind: kind) == [5]  # the child serves on


def test_a_child_killed_between_jobs_is_replaced(scorer):
    os.kill(scorer.pid, signal.SIGKILL)
    time.sleep(0.2)
    assert scorer.run(list, ["7"], int, lambda kind: kind) == [7]


def test_close_stops_a_running_job():
    proc = ScorerProcess(None)  # no deadline: only close() ends the job
    proc.start()
    outcome = {}

    def job():
        try:
            proc.run(list, [60], time.sleep, lambda kind: kind)
        except RuntimeError as exc:
            outcome["error"] = str(exc)

    thread = threading.Thread(target=job)
    thread.start()
    time.sleep(0.5)
    proc.close(wait=0.2)
    thread.join(timeout=30)
    assert not thread.is_alive() and "stopped" in outcome["error"]
    proc.close()


def test_a_replaced_scorer_sends_nothing_to_a_closed_parent_and_raises_nothing():
    parent, child = multiprocessing.Pipe()
    assert _send(child, ("done", [], 0)) and parent.recv() == ("done", [], 0)
    parent.close()
    assert _send(child, ("done", [(0, 1.0)], 1)) is False  # BrokenPipeError is swallowed, not printed


def test_a_child_whose_parent_stopped_waiting_exits_without_a_traceback(capfd):
    from rlvr.rewards.isolation import _IDLE, _child_main

    # the parent closed its end before the child was ready (its start timed out, or the parent was killed):
    # the child's "ready" finds a broken pipe; it must return quietly, not print a traceback into the server log
    parent, child = multiprocessing.Pipe()
    parent.close()
    progress = multiprocessing.RawArray("d", 2)
    progress[0] = _IDLE
    _child_main(child, progress, 1.0, ())
    assert "Traceback" not in capfd.readouterr().err
    # the same with a failing plugin import: the "failed" report to the closed parent is dropped too
    parent, child = multiprocessing.Pipe()
    parent.close()
    _child_main(child, progress, 1.0, ("no_such_module_for_rlvr_tests",))
    assert "Traceback" not in capfd.readouterr().err
