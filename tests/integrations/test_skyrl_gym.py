"""SkyRL-gym 0.4 builds rlvr's environment from its registry and runs single- and multi-turn episodes.

Rows are ``rlvr export --format verl`` rows read back as SkyRL-train reads a dataset row: the ``prompt``
goes to ``init`` and the other columns are the ``extras`` of ``skyrl_gym.make``.
"""
from __future__ import annotations

import pytest

skyrl_gym = pytest.importorskip("skyrl_gym", reason="skyrl_gym is not installed (bash scripts/install.sh --dev installs it)")

import pyarrow.parquet as pq
from omegaconf import OmegaConf
from skyrl_gym.envs.base_text_env import BaseTextEnv

import rlvr
from rlvr.envs.feedback import feedback_text
from rlvr.export import export_tasks
from rlvr.integrations.skyrl_gym import ENV_ID, ChemTextEnv, register_env
from rlvr.task import Task, TaskFormatError


@pytest.fixture(scope="module")
def rows(tmp_path_factory, mix) -> list[dict]:
    path = tmp_path_factory.mktemp("skyrl") / "train.parquet"
    export_tasks(mix, "train", 6, "verl", path, seed=2)
    return pq.read_table(str(path)).to_pylist()


def _make(row: dict, env_config=None) -> ChemTextEnv:
    extras = {k: v for k, v in row.items() if k != "prompt"}
    return skyrl_gym.make(ENV_ID, env_config=env_config, extras=extras)


def test_registered_in_skyrl_gyms_registry(rows):
    assert skyrl_gym.spec(ENV_ID).entry_point == "rlvr.integrations.skyrl_gym:ChemTextEnv"
    assert register_env() == ENV_ID  # idempotent
    env = _make(rows[0])
    assert isinstance(env, ChemTextEnv) and isinstance(env, BaseTextEnv)
    prompt, info = env.init(rows[0]["prompt"])
    assert prompt == rows[0]["prompt"] and info["task_id"] == rows[0]["extra_info"]["id"]
    with pytest.raises(TaskFormatError, match="no rlvr task"):
        skyrl_gym.make(ENV_ID, extras={"reward_spec": {"ground_truth": "1"}})


def test_single_turn_rewards_are_rlvr_verify(rows, answers):
    by_id = {r["extra_info"]["id"]: r for r in rows}
    responses = answers([Task.from_json(r["extra_info"]["task_json"]) for r in rows])
    for answer in responses:
        env = _make(by_id[answer.task.id])
        env.init(by_id[answer.task.id]["prompt"])
        out = env.step(answer.text)
        assert out["done"] is True and out["observations"] == []
        assert out["reward"] == answer.reward and out["metadata"]["score"] == answer.reward
        assert env.get_metrics()["solved"] == float(answer.reward == 1.0)
    metrics = [{"solved": 1.0, "turns": 1}, {"solved": 0.0, "turns": 1}]
    assert ChemTextEnv.aggregate_metrics(metrics) == {"solved": 0.5, "turns": 1.0}


def test_multi_turn_feedback_then_a_discounted_success(rows):
    row = rows[1]
    task = Task.from_json(row["extra_info"]["task_json"])
    env = _make(row, OmegaConf.create({"max_turns": 3, "turn_penalty": 0.2}))
    assert env.max_turns == 3
    wrong = "<answer>{1}H2O</answer>"
    out = env.step(wrong)
    expected = feedback_text(task, rlvr.verify(task, wrong), turn=1, max_turns=3)
    assert out["done"] is False and out["reward"] == 0.0
    assert out["observations"] == [{"role": "user", "content": expected}]
    assert "Not correct (attempt 1 of 3)" in expected and str(task.ground_truth) not in expected
    out = env.step(rlvr.oracle_completion(task))
    assert out["done"] is True and out["reward"] == pytest.approx(0.8) and out["observations"] == []
    assert env.get_metrics() == {"solved": 1.0, "turns": 2, "best_score": 1.0}


def test_the_rows_max_turns_and_a_reward_mode(rows):
    row = {**rows[0], "extra_info": {**rows[0]["extra_info"], "max_turns": 2}}
    env = _make(row)
    assert env.max_turns == 2
    for _ in range(2):
        out = env.step("no answer here")
    assert out["done"] is True and "No attempts left." not in str(out["observations"])
    with pytest.raises(ValueError, match="unknown reward mode"):
        _make(rows[0], {"reward_mode": "generous"}).step("<answer>1</answer>")
