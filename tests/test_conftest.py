"""The shared timing fixture: a verdict's own CPU, with neither sleep, other threads nor a garbage collection billed."""
from __future__ import annotations

import gc
import threading
import time

import pytest


def test_cpu_seconds_counts_this_threads_work_and_not_its_sleep(cpu_seconds):
    def busy_then_asleep() -> str:
        end = time.thread_time() + 0.05
        while time.thread_time() < end:
            pass
        time.sleep(0.2)
        return "done"

    result, seconds = cpu_seconds(busy_then_asleep)
    assert result == "done"
    assert 0.05 <= seconds < 0.15


def test_cpu_seconds_does_not_bill_another_threads_work(cpu_seconds):
    stop = threading.Event()
    spinner = threading.Thread(target=lambda: [None for _ in iter(stop.is_set, True)], daemon=True)
    spinner.start()
    try:
        _, seconds = cpu_seconds(time.sleep, 0.2)
    finally:
        stop.set()
        spinner.join()
    assert seconds < 0.05


def test_cpu_seconds_pauses_the_garbage_collector_and_restores_it_even_on_an_error(cpu_seconds):
    assert gc.isenabled()
    during, _ = cpu_seconds(gc.isenabled)
    assert during is False and gc.isenabled()
    with pytest.raises(ZeroDivisionError):
        cpu_seconds(lambda: 1 / 0)
    assert gc.isenabled()
    gc.disable()
    try:
        cpu_seconds(len, "abc")
        assert not gc.isenabled()  # a collector the caller had paused stays paused
    finally:
        gc.enable()
