"""verl 0.9 scores an ``rlvr export --format verl`` parquet through rlvr's compute_score, as its trainer does.

The batch is built the way verl builds it: its RLHFDataset reads the parquet, its collate_fn and
DataProto hold the rows, every prompt is repeated for a GRPO group (``DataProto.repeat``), and the
responses are tokenized and padded like verl's agent loop output (prompts left-padded, responses
right-padded). The reward function is loaded from its file by verl's ``get_custom_reward_fn``.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

verl = pytest.importorskip("verl", reason="verl is not installed (bash scripts/install.sh --dev installs it)")

import numpy as np
import torch
from omegaconf import OmegaConf

import rlvr
import rlvr.rewards.verl as rlvr_verl
from rlvr.cli import main as rlvr_main
from rlvr.export import verl_row
from rlvr.task import Task

GROUP = 3  # responses per prompt: right, wrong, unreadable (see mixed_answers)
PROMPT_LEN, RESPONSE_LEN = 1024, 96


def _trainer_config(tokenizer_dir: str, name: str = "compute_score", **reward_kwargs):
    """verl's own generated PPO trainer config with the custom reward function pointed at rlvr."""
    config = OmegaConf.load(Path(verl.__file__).parent / "trainer/config/_generated_ppo_trainer.yaml")
    config.actor_rollout_ref.model.path = tokenizer_dir
    config.reward.custom_reward_function.path = rlvr_verl.__file__
    config.reward.custom_reward_function.name = name
    if reward_kwargs:
        OmegaConf.set_struct(config, False)
        config.reward.custom_reward_function.reward_kwargs = reward_kwargs
    return config


def _pad(tokenizer, ids: list[int], length: int, side: str) -> dict[str, torch.Tensor]:
    tokenizer.padding_side = side
    out = tokenizer.pad({"input_ids": ids}, padding="max_length", max_length=length, return_tensors="pt",
                        return_attention_mask=True)
    return {k: v.reshape(1, -1) for k, v in out.items()}


@pytest.fixture(scope="module")
def rollout(tmp_path_factory, tokenizer, mix, answers):
    """(DataProto of prompts + responses, expected reward per row)."""
    from verl import DataProto
    from verl.utils.dataset.rl_dataset import RLHFDataset, collate_fn

    out = tmp_path_factory.mktemp("verl") / "train.parquet"
    assert rlvr_main(["export", "--family", mix, "--split", "train", "-n", "6", "--format", "verl",
                      "--out", str(out)]) == 0
    data_config = OmegaConf.create({"prompt_key": "prompt", "max_prompt_length": PROMPT_LEN,
                                    "filter_overlong_prompts": False, "cache_dir": str(out.parent / "cache")})
    dataset = RLHFDataset(data_files=[str(out)], tokenizer=tokenizer, config=data_config)
    batch = DataProto.from_single_dict(collate_fn([dataset[i] for i in range(len(dataset))]))
    tasks = [Task.from_json(info["task_json"]) for info in batch.non_tensor_batch["extra_info"]]
    assert sorted({t.family for t in tasks}) == sorted(mix.split(","))
    responses = answers(tasks)  # GROUP consecutive answers per task, like DataProto.repeat(interleave=True)
    batch = batch.repeat(repeat_times=GROUP, interleave=True)
    rows: dict[str, list[torch.Tensor]] = {"prompts": [], "responses": [], "prompt_mask": [], "response_mask": []}
    for raw_prompt, answer in zip(batch.non_tensor_batch["raw_prompt"], responses):
        assert raw_prompt[-1]["content"] == answer.task.user_text
        prompt_ids = tokenizer.apply_chat_template(list(raw_prompt), add_generation_prompt=True, tokenize=False)
        prompt = _pad(tokenizer, tokenizer(prompt_ids, add_special_tokens=False)["input_ids"], PROMPT_LEN, "left")
        response_ids = tokenizer(answer.text + tokenizer.eos_token, add_special_tokens=False)["input_ids"]
        response = _pad(tokenizer, response_ids, RESPONSE_LEN, "right")
        rows["prompts"].append(prompt["input_ids"])
        rows["prompt_mask"].append(prompt["attention_mask"])
        rows["responses"].append(response["input_ids"])
        rows["response_mask"].append(response["attention_mask"])
    prompts, response_ids = torch.cat(rows["prompts"]), torch.cat(rows["responses"])
    attention_mask = torch.cat([torch.cat(rows["prompt_mask"]), torch.cat(rows["response_mask"])], dim=1)
    generated = DataProto.from_dict(tensors={
        "prompts": prompts, "responses": response_ids, "response_mask": torch.cat(rows["response_mask"]),
        "input_ids": torch.cat([prompts, response_ids], dim=1), "attention_mask": attention_mask,
    })
    return batch.union(generated), [a.reward for a in responses]


def _scores_at_last_token(reward_tensor: torch.Tensor, data) -> list[float]:
    """The reward at each row's last response token (where verl's managers put it); zero elsewhere."""
    lengths = data.batch["attention_mask"][:, PROMPT_LEN:].sum(dim=-1)
    scores = [float(reward_tensor[i, int(n) - 1]) for i, n in enumerate(lengths)]
    assert float(reward_tensor.sum()) == pytest.approx(sum(scores))
    return scores


def test_reward_loop_worker_the_0_9_trainer_path(rollout, tokenizer_dir):
    """main_ppo (trainer.use_v1) scores through RewardLoopWorker -> the registered `naive` manager."""
    from verl.experimental.reward_loop import RewardLoopWorker
    from verl.trainer.ppo.reward import resolve_reward_manager_cls

    data, expected = rollout
    config = _trainer_config(tokenizer_dir)
    worker = RewardLoopWorker(config)  # what RewardLoopManager starts as a Ray actor
    outputs = worker.loop.run_until_complete(worker.compute_score_batch(data))  # on the actor's own loop
    rm_scores = resolve_reward_manager_cls(config).assemble_rm_scores(data, [o["reward_score"] for o in outputs])
    scores = _scores_at_last_token(rm_scores, data)
    assert scores == expected and len(set(scores)) > 1
    assert [o["reward_extra_info"]["acc"] for o in outputs] == [float(r == 1.0) for r in expected]
    assert {tuple(sorted(o["reward_extra_info"])) for o in outputs} == {("acc", "answered", "score")}


def test_legacy_naive_reward_manager(rollout, tokenizer, tokenizer_dir):
    from verl.trainer.ppo.reward import get_custom_reward_fn
    from verl.workers.reward_manager import get_reward_manager_cls

    data, expected = rollout
    manager = get_reward_manager_cls("naive")(tokenizer=tokenizer, num_examine=1,
                                              compute_score=get_custom_reward_fn(_trainer_config(tokenizer_dir)))
    result = manager(data, return_dict=True)
    scores = _scores_at_last_token(result["reward_tensor"], data)
    assert scores == expected and len(set(scores)) > 1
    assert result["reward_extra_info"]["score"] == expected
    assert result["reward_extra_info"]["answered"].count(0.0) == len(expected) // GROUP  # the prose answers


def test_legacy_batch_reward_manager_with_reward_kwargs(rollout, tokenizer, tokenizer_dir):
    """`batch` calls compute_score_batch once; reward_kwargs (reward_mode=shaped) reach the checkers."""
    from verl.trainer.ppo.reward import get_custom_reward_fn
    from verl.workers.reward_manager import get_reward_manager_cls

    data, expected = rollout
    strict = get_reward_manager_cls("batch")(
        tokenizer=tokenizer, num_examine=1,
        compute_score=get_custom_reward_fn(_trainer_config(tokenizer_dir, "compute_score_batch")))
    scores = _scores_at_last_token(strict(data), data)
    assert scores == expected and len(set(scores)) > 1
    assert data.batch["acc"].tolist() == expected
    shaped = get_reward_manager_cls("batch")(
        tokenizer=tokenizer, num_examine=0,
        compute_score=get_custom_reward_fn(_trainer_config(tokenizer_dir, "compute_score_batch", reward_mode="shaped")))
    shaped_scores = _scores_at_last_token(shaped(data), data)
    assert [s for s, e in zip(shaped_scores, expected) if e == 1.0] == [1.0] * expected.count(1.0)
    assert shaped_scores != scores  # partial credit for the well-formed wrong answers
    assert all(0.0 <= s <= 1.0 for s in shaped_scores)


def test_compute_score_batch_rejects_ragged_batches():
    with pytest.raises(ValueError, match="2 responses"):
        rlvr_verl.compute_score_batch(np.array(["stoich.t2"]), ["a", "b"], ["{}", "{}"])


def _recipe_overrides() -> dict[str, str]:
    """The hydra overrides `recipes/verl/grpo.sh` passes to verl.trainer.main_ppo."""
    script = (Path(__file__).resolve().parents[2] / "recipes" / "verl" / "grpo.sh").read_text()
    command = script[script.index("verl.trainer.main_ppo"):]
    pairs = re.findall(r"^\s+([\w.+]+)=(\S+?)\s*(?:\\|\"\$@\")?$", command, flags=re.MULTILINE)
    return {key: value.strip("'\"") for key, value in pairs}


def test_grpo_recipe_overrides_exist_and_load_rlvr_reward(tokenizer_dir):
    overrides = _recipe_overrides()
    assert overrides["reward.custom_reward_function.name"] == "compute_score"
    config = _trainer_config(tokenizer_dir)
    for key in overrides:  # a misspelled key would make hydra refuse to start
        *parents, leaf = key.split(".")
        node = config
        for part in parents:
            node = node[part]
        # keys(), not `in node`: OmegaConf answers False for a key whose value is still missing ("???")
        assert leaf in node.keys(), f"recipes/verl/grpo.sh: {key} is not a verl 0.9 config key"  # noqa: SIM118
    from verl.trainer.ppo.reward import get_custom_reward_fn

    config.reward.custom_reward_function.name = overrides["reward.custom_reward_function.name"]
    fn = get_custom_reward_fn(config)
    task = rlvr.generate("stoich.t2", "train", 0, 0)
    row = verl_row(task, 0)
    assert fn(data_source=row["data_source"], solution_str=rlvr.oracle_completion(task),
              ground_truth=row["reward_model"]["ground_truth"], extra_info=row["extra_info"])["score"] == 1.0
