"""``call_in_fresh_process``: the call's result, its errors and a dead child come back to the parent."""
from __future__ import annotations

import operator
import os
import pickle
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from rlvr.fresh_process import ChildTraceback, call_in_fresh_process, torch_threads
from rlvr.registry import list_families

HANG_PLUGIN = Path(__file__).parent / "rewards" / "hang_family.py"
ROOT = Path(__file__).resolve().parents[1]

#: a parent that runs one long call in a fresh process; the child writes its pid, then sleeps
PARENT = """
import sys
sys.path[:0] = [{root!r}, {here!r}]
from rlvr.fresh_process import call_in_fresh_process
from sleeper import sleep_after_writing_pid

if __name__ == "__main__":
    call_in_fresh_process(sleep_after_writing_pid, {pidfile!r})
"""
SLEEPER = """
import os, time
from pathlib import Path

def sleep_after_writing_pid(path):
    Path(path).write_text(str(os.getpid()))
    time.sleep(120)
"""


def _alive(pid: int) -> bool:
    """Whether ``pid`` runs; a zombie waiting to be reaped does not (read from /proc where there is one)."""
    if Path("/proc/self").exists():
        try:
            return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
        except OSError:
            return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_the_result_comes_back_and_the_child_is_another_process():
    assert call_in_fresh_process(operator.add, [1], [2]) == [1, 2]
    assert call_in_fresh_process(os.getpid) != os.getpid()


def test_an_error_in_the_child_is_raised_again_with_the_childs_traceback():
    with pytest.raises(ValueError, match="invalid literal") as info:
        call_in_fresh_process(int, "not a number")
    assert isinstance(info.value.__cause__, ChildTraceback) and "Traceback" in info.value.__cause__.text


def test_the_child_runs_torch_with_the_parents_thread_count():
    torch = pytest.importorskip("torch")
    before = torch.get_num_threads()
    try:
        for threads in (1, 2):
            torch.set_num_threads(threads)
            assert torch_threads() == threads and call_in_fresh_process(torch_threads) == threads
    finally:
        torch.set_num_threads(before)


def test_a_child_that_dies_without_a_result_names_its_exit_code():
    with pytest.raises(RuntimeError, match=r"the test process ended without a result \(exit code 3\)"):
        call_in_fresh_process(os._exit, 3, name="test")


def test_the_child_imports_the_plugins_first():
    assert "test.hang" not in list_families()
    assert "test.hang" in call_in_fresh_process(list_families, plugins=[str(HANG_PLUGIN)])
    assert "test.hang" not in list_families()  # the parent imported nothing


def test_a_result_that_does_not_pickle_is_a_clear_error_and_an_argument_fails_before_the_start():
    with pytest.raises(RuntimeError, match="pickle"):
        call_in_fresh_process(threading.Lock)
    with pytest.raises((AttributeError, pickle.PicklingError, TypeError)):
        call_in_fresh_process(operator.itemgetter(0), [lambda: None])


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL], ids=["SIGTERM", "SIGKILL"])
def test_the_child_does_not_outlive_a_parent_killed_by_a_signal(tmp_path, sig):
    pidfile = tmp_path / "child.pid"
    (tmp_path / "sleeper.py").write_text(SLEEPER)
    (tmp_path / "parent.py").write_text(PARENT.format(root=str(ROOT), here=str(tmp_path), pidfile=str(pidfile)))
    parent = subprocess.Popen([sys.executable, str(tmp_path / "parent.py")], cwd=tmp_path)
    try:
        deadline = time.monotonic() + 90
        while not (pidfile.exists() and pidfile.read_text()) and time.monotonic() < deadline:
            assert parent.poll() is None, "the parent ended before its child started"
            time.sleep(0.1)
        child = int(pidfile.read_text())
        assert _alive(child)
        parent.send_signal(sig)  # neither signal lets the parent's Python code end the child
        parent.wait(timeout=30)
        deadline = time.monotonic() + 20
        while _alive(child) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not _alive(child), "the child outlived its parent"
    finally:
        if parent.poll() is None:
            parent.kill()
        if pidfile.exists() and pidfile.read_text() and _alive(int(pidfile.read_text())):
            os.kill(int(pidfile.read_text()), signal.SIGKILL)
