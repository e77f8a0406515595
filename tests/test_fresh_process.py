"""``call_in_fresh_process``: the call's result, its errors and a dead child come back to the parent."""
from __future__ import annotations

import operator
import os
import pickle
import threading
from pathlib import Path

import pytest

from rlvr.fresh_process import ChildTraceback, call_in_fresh_process, torch_threads
from rlvr.registry import list_families

HANG_PLUGIN = Path(__file__).parent / "rewards" / "hang_family.py"


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
