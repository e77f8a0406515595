"""Few-shot prompts: k verified worked examples from the training split before the task."""
from __future__ import annotations

import pytest

import rlvr
from rlvr.solutions import few_shot_messages, few_shot_task, worked_solution
from rlvr.solutions.fewshot import example_tasks


def _task(family="mol.count", split="hard", index=0):
    return rlvr.generate(family, split, seed=4, index=index, load=2)


@pytest.mark.parametrize("k", [0, 1, 3])
def test_structure(k):
    task = _task()
    messages = few_shot_messages(task, k)
    system = [m for m in task.prompt if m["role"] == "system"]
    assert messages[: len(system)] == system
    shots = messages[len(system):-1]
    assert len(shots) == 2 * k
    assert [m["role"] for m in shots] == ["user", "assistant"] * k
    assert messages[-1] == task.prompt[-1]
    for user, assistant in zip(shots[::2], shots[1::2]):
        assert user["content"] != task.user_text
        assert assistant["content"].rstrip().endswith("</answer>")


def test_examples_come_from_train_with_the_same_config_and_verify():
    task = _task("mol.index", "easy", 3)
    examples = example_tasks(task, 3)
    assert len({e.id for e in examples}) == 3
    for e in examples:
        assert e.family == task.family and e.meta["split"] == "train"
        assert e.meta["config"] == task.meta["config"]
        assert rlvr.verify(e, worked_solution(e)).reward == 1.0


def test_deterministic_and_per_task():
    a, b = _task(index=0), _task(index=1)
    assert few_shot_messages(a, 2) == few_shot_messages(a, 2)
    assert few_shot_messages(a, 2) != few_shot_messages(b, 2)
    fixed_a = few_shot_messages(a, 2, per_task=False)
    fixed_b = few_shot_messages(b, 2, per_task=False)
    assert fixed_a[1:-1] == fixed_b[1:-1]  # the same shots for every task of the family
    assert few_shot_messages(a, 2, seed=1) != few_shot_messages(a, 2, seed=0)


def test_few_shot_task_keeps_the_ground_truth():
    task = _task("mol.gen", "train", 2)
    shot = few_shot_task(task, 2)
    assert shot.ground_truth == task.ground_truth and shot.id == task.id
    assert shot.meta["few_shot"]["k"] == 2 and len(shot.prompt) == len(task.prompt) + 4
    assert rlvr.verify(shot, rlvr.oracle_completion(task)).reward == 1.0


def test_bad_arguments():
    task = _task()
    with pytest.raises(ValueError, match="k must be"):
        few_shot_messages(task, -1)
    with pytest.raises(ValueError, match="valid split"):
        few_shot_messages(task, 1, split="test_out")
