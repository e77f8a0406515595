"""Bounded logging of checker failures (rlvr.failure_log): 10,000 crashing verdicts make a handful of
lines, counts repeat at most once per interval, tracebacks only at debug level (or ``RLVR_DEBUG=1``)."""
from __future__ import annotations

import logging

import rlvr
from rlvr.failure_log import MAX_KEYS, FailureLog
from rlvr.reasons import Reason


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _rlvr_records(caplog) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name.startswith("rlvr")]


def test_ten_thousand_crashing_verdicts_make_a_handful_of_lines(hang, caplog, monkeypatch):
    monkeypatch.delenv("RLVR_DEBUG", raising=False)
    task = rlvr.generate(hang.NAME)
    caplog.set_level(logging.INFO)
    verdicts = [rlvr.verify(task, "<answer>raise</answer>") for _ in range(10_000)]
    assert {v.reason for v in verdicts} == {Reason.CHECKER_ERROR} and all(v.reward == 0.0 for v in verdicts)
    records = _rlvr_records(caplog)
    assert 1 <= len(records) <= 3, [r.getMessage() for r in records]
    assert "test.hang" in records[0].getMessage() and "RuntimeError" in records[0].getMessage()
    assert not any(r.exc_info for r in records)  # no traceback outside the debug level


def test_the_traceback_goes_to_the_debug_level(hang, caplog):
    task = rlvr.generate(hang.NAME)
    caplog.set_level(logging.DEBUG, logger="rlvr")
    rlvr.verify(task, "<answer>raise</answer>")
    debug = [r for r in _rlvr_records(caplog) if r.levelno == logging.DEBUG and r.exc_info]
    assert debug and debug[0].exc_info[0] is RuntimeError


def test_counts_repeat_at_most_once_per_interval(caplog):
    clock = Clock()
    failures = FailureLog(logging.getLogger("rlvr.test_failure_log"), interval_s=60.0, clock=clock)
    caplog.set_level(logging.INFO)
    for step in range(6000):  # ten minutes, ten failures a second, of two kinds in one family
        clock.now = step / 10
        failures.record("fam", "ValueError" if step % 2 else "KeyError")
    lines = [r.getMessage() for r in _rlvr_records(caplog)]
    # per kind: the first line, then one count line per elapsed minute (at most)
    assert len(lines) <= 2 * (1 + 10), lines
    assert failures.totals() == {("fam", "ValueError"): 3000, ("fam", "KeyError"): 3000}
    assert any("more times in the last 60 s" in line for line in lines)
    caplog.clear()
    failures.record("fam", "KeyError")
    failures.flush()
    flushed = [r.getMessage() for r in _rlvr_records(caplog)]
    assert len(flushed) == 2 and any("KeyError" in line for line in flushed)  # each pending count, once
    caplog.clear()
    failures.flush()
    assert not _rlvr_records(caplog)


def test_the_key_table_is_bounded(caplog):
    failures = FailureLog(logging.getLogger("rlvr.test_failure_log"), clock=Clock())
    caplog.set_level(logging.INFO)
    for i in range(MAX_KEYS + 500):
        failures.record(f"fam{i}", "ValueError")
    assert len(failures.totals()) == MAX_KEYS + 1  # every key past the bound is counted under one
    assert len(_rlvr_records(caplog)) == MAX_KEYS + 1
