"""The TRL ``environment_factory`` adapter, checked against the protocol GRPOTrainer applies to it."""
from __future__ import annotations

import inspect
import json

import pytest

import rlvr
from rlvr.datasets import build_dataset
from rlvr.envs.trl import ChemToolEnv


def _tools_as_trl_sees_them(env: object) -> dict:
    """What GRPOTrainer does: public functions of the class other than reset/get_reward become tools."""
    names = [n for n, _ in inspect.getmembers(type(env), predicate=inspect.isfunction)]
    assert "reset" in names and "get_reward" in names
    return {n: getattr(env, n) for n in names if n not in ("reset", "get_reward") and not n.startswith("_")}


def test_only_submit_answer_is_a_tool_and_its_schema_parses():
    from transformers.utils import get_json_schema

    env = ChemToolEnv.factory(mix="mol.count", max_turns=2)()
    tools = _tools_as_trl_sees_them(env)
    assert list(tools) == ["submit_answer"]
    schema = get_json_schema(tools["submit_answer"])["function"]
    assert schema["name"] == "submit_answer"
    assert schema["parameters"]["required"] == ["answer"]
    assert schema["parameters"]["properties"]["answer"]["type"] == "string"
    assert "<answer>" in schema["parameters"]["properties"]["answer"]["description"]


def test_reset_with_dataset_rows_and_multi_turn_reward(helpers):
    ds = build_dataset("stoich.t2,mol.index", n=4, split="train", seed=2)
    for row in ds:
        env = ChemToolEnv(max_turns=3, turn_penalty=0.5)
        appended = env.reset(**row)
        assert env.task.id == row["id"]
        assert "submit_answer" in appended and env.task.user_text not in appended  # the prompt is in the row
        assert env.get_reward() == 0.0
        wrong = helpers.wrong_completions(env.task)[0]
        reply = env.submit_answer(wrong.removeprefix("<answer>").removesuffix("</answer>"))
        assert reply.startswith("Not correct (attempt 1 of 3)") and "submit_answer" in reply
        oracle = rlvr.oracle_completion(env.task).removeprefix("<answer>").removesuffix("</answer>")
        assert oracle not in reply
        assert env.submit_answer(oracle) == "Correct."
        assert env.get_reward() == pytest.approx(0.5)
        assert "over" in env.submit_answer(oracle) and env.get_reward() == pytest.approx(0.5)


def test_reward_matches_verify_and_tags_are_not_doubled():
    task = rlvr.generate("mol.count", "train", 0, 5)
    env = ChemToolEnv()
    env.reset(task_json=task.to_json(), prompt=task.prompt)
    tagged = rlvr.oracle_completion(task)
    assert env.submit_answer(tagged) == "Correct." and env.get_reward() == rlvr.verify(task, tagged).reward == 1.0


def test_without_dataset_the_environment_owns_the_prompt():
    a, b = ChemToolEnv("mol.count", seed=3), ChemToolEnv("mol.count", seed=3)
    placeholder = [{"role": "user", "content": ""}]
    text_a = a.reset(prompt=placeholder)
    text_b = b.reset(prompt=placeholder)
    assert a.task.id == b.task.id and a.task.user_text in text_a and text_a == text_b  # deterministic
    a.reset(prompt=placeholder)
    assert a.task.id != b.task.id  # the next draw is another task
    a.reset(prompt=placeholder, index=7)
    assert a.task.id == rlvr.generate("mol.count", "train", 3, 7).id


def test_get_reward_as_grpo_trainer_calls_it():
    """GRPOTrainer wraps get_reward as `f(environments, **kwargs) -> [e.get_reward() ...]`."""
    envs = [ChemToolEnv("mol.count") for _ in range(3)]
    for i, env in enumerate(envs):
        env.reset(index=i, prompt=[{"role": "user", "content": ""}])
    envs[0].submit_answer(json.dumps(envs[0].task.ground_truth))
    envs[1].submit_answer("{}")
    rewards = [e.get_reward() for e in envs]
    assert rewards == [1.0, 0.0, 0.0]
