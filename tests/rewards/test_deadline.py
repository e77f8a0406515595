"""The hard deadline on verdicts (rlvr.deadline): runaway checkers end with reason `timeout`, in time."""
from __future__ import annotations

import threading
import time

import pytest

import rlvr
from rlvr.deadline import DeadlineExceeded, Watchdog, call_with_deadline, parse_timeout, resolve_timeout
from rlvr.reasons import Reason
from rlvr.rewards.scoring import score_queries

SLACK = 1.5  # seconds allowed past a deadline on a slow, loaded machine


def spin() -> None:
    while True:
        pass


def test_parse_and_resolve_timeout(monkeypatch):
    assert parse_timeout("2.5") == 2.5 and parse_timeout(3) == 3.0
    for off in (0, -1, "0", "off", "none", "inf", None):
        assert parse_timeout(off) is None
    with pytest.raises(ValueError, match="seconds"):
        parse_timeout("soon")
    monkeypatch.delenv("RLVR_VERDICT_TIMEOUT", raising=False)
    assert resolve_timeout() == 5.0
    monkeypatch.setenv("RLVR_VERDICT_TIMEOUT", "0.25")
    assert resolve_timeout() == 0.25 and resolve_timeout(1) == 1.0
    monkeypatch.setenv("RLVR_VERDICT_TIMEOUT", "off")
    assert resolve_timeout() is None


def test_fast_calls_return_their_value_and_leave_nothing_behind():
    assert [call_with_deadline(0.5, pow, i, 2) for i in range(2000)] == [i * i for i in range(2000)]
    assert call_with_deadline(None, pow, 3, 2) == 9
    time.sleep(0.05)  # nothing pending may surface later
    assert sum(range(100_000)) == 4_999_950_000


def test_calls_ending_at_their_deadline_never_leak_the_exception():
    """Calls racing the watchdog either return or raise inside the guarded call, never after it."""
    outcomes = {"ok": 0, "timeout": 0}

    def busy(seconds: float) -> int:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            pass
        return 1

    for i in range(150):
        try:
            call_with_deadline(0.01, busy, 0.008 + (i % 5) * 0.001)
            outcomes["ok"] += 1
        except DeadlineExceeded:
            outcomes["timeout"] += 1
        sum(range(2000))  # code after the call runs undisturbed
    assert outcomes["ok"] + outcomes["timeout"] == 150


@pytest.mark.parametrize("where", ["main thread", "other thread"])
def test_a_python_loop_is_interrupted_within_the_deadline(where):
    result = {}

    def run():
        start = time.monotonic()
        with pytest.raises(DeadlineExceeded):
            call_with_deadline(0.3, spin)
        result["elapsed"] = time.monotonic() - start

    if where == "main thread":
        run()
    else:
        thread = threading.Thread(target=run)
        thread.start()
        thread.join(timeout=30)
    assert 0.29 <= result["elapsed"] < 0.3 + SLACK


def test_a_catch_all_in_the_checker_cannot_swallow_the_deadline():
    def stubborn():
        while True:
            try:
                spin()
            except Exception:  # noqa: BLE001 - what a careless checker does
                pass

    start = time.monotonic()
    with pytest.raises(DeadlineExceeded):
        call_with_deadline(0.2, stubborn)
    assert time.monotonic() - start < 0.2 + SLACK


def test_a_nested_call_runs_under_the_outer_deadline():
    start = time.monotonic()
    with pytest.raises(DeadlineExceeded):
        call_with_deadline(0.2, call_with_deadline, 60.0, spin)
    assert time.monotonic() - start < 0.2 + SLACK


def test_a_separate_watchdog_parks_when_idle_and_wakes_for_the_next_call():
    dog = Watchdog(min_tick=0.005, idle_after=0.05)
    assert dog.call(1.0, sum, [1, 2]) == 3
    time.sleep(0.3)
    assert dog._parked  # idle: no scans
    start = time.monotonic()
    with pytest.raises(DeadlineExceeded):
        dog.call(0.2, spin)
    assert time.monotonic() - start < 0.2 + SLACK


def test_verify_turns_a_hanging_checker_into_a_timeout_verdict(hang):
    task = rlvr.generate(hang.NAME)
    assert rlvr.verify(task, "ok", timeout=0.3).reward == 1.0
    start = time.monotonic()
    verdict = rlvr.verify(task, "loop", timeout=0.3)
    elapsed = time.monotonic() - start
    assert verdict.reason == Reason.TIMEOUT and verdict.reward == 0.0 and not verdict.correct
    assert verdict.metrics["timeout_s"] == 0.3
    assert 0.29 <= elapsed < 0.3 + SLACK
    assert not rlvr.reasons.answered(verdict)


def test_the_default_deadline_comes_from_the_environment(hang, monkeypatch):
    monkeypatch.setenv("RLVR_VERDICT_TIMEOUT", "0.3")
    task = rlvr.generate(hang.NAME)
    start = time.monotonic()
    assert rlvr.verify(task, "loop").reason == Reason.TIMEOUT
    assert time.monotonic() - start < 0.3 + SLACK


def test_a_hanging_verdict_does_not_stall_the_batch(hang, monkeypatch):
    monkeypatch.setenv("RLVR_VERDICT_TIMEOUT", "0.3")
    label = rlvr.generate(hang.NAME).to_json()
    other = rlvr.generate("stoich.t2", "train", 0, 1)
    queries = ["ok", "loop", rlvr.oracle_completion(other), "loop", "no"]
    labels = [label, label, other.to_json(), label, label]
    start = time.monotonic()
    result = score_queries(queries, None, labels)
    assert result["rewards"] == [1.0, 0.0, 1.0, 0.0, 0.0]
    assert time.monotonic() - start < 2 * 0.3 + 2 * SLACK
