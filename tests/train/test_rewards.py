"""Reward-function resolution for recipes (the functions themselves live in rlvr.rewards)."""
from __future__ import annotations

import json

import pytest

from rlvr.api import sample
from rlvr.train.rewards import resolve_reward_funcs


def test_names_and_dotted_paths_resolve():
    chem, fmt, dotted = resolve_reward_funcs(["chem_reward", "format_reward", "rlvr.rewards.trl.partial_reward"])
    assert chem.__name__ == "chem_reward" and fmt.__name__ == "format_reward" and dotted.__name__ == "partial_reward"
    with pytest.raises(ValueError, match="chem_reward"):
        resolve_reward_funcs(["no_such_reward"])
    with pytest.raises(ValueError):
        resolve_reward_funcs(["no.such.module.reward"])
    with pytest.raises(ValueError):
        resolve_reward_funcs([])


def test_reward_mode_reaches_the_checker():
    task = next(sample("stoich.t1", n=1, split="test_in", seed=5, encoding="formula"))
    products = task.ground_truth["products"]
    first = next(iter(products))
    half = "<answer>{%d}%s</answer>" % (products[first], first)  # one species of several: partial credit only
    columns = {"task_json": [task.to_json()]}
    completion = [[{"role": "assistant", "content": half}]]
    (strict,) = resolve_reward_funcs(["chem_reward"])
    (f1,) = resolve_reward_funcs(["chem_reward"], reward_mode="f1")
    assert strict([task.prompt], completion, **columns) == [0.0]
    score = f1([task.prompt], completion, **columns)[0]
    assert 0.0 < score < 1.0
    assert f1.__name__ == "chem_reward"
    assert json.loads(columns["task_json"][0])["id"] == task.id
