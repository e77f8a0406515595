"""``rlvr quickstart`` picks its budget per device: the CPU recipe unchanged on CPU, the GPU recipe on CUDA."""
from __future__ import annotations

import json

import pytest
import yaml

from rlvr.cli import main
from rlvr.train.device_budget import Budget, cuda_available, pick_budget, resolve_device
from rlvr.train.entry import find_recipe
from rlvr.train.sft import parse_sft_recipe


def test_the_budget_follows_the_device():
    assert pick_budget(None, "cpu") == Budget(recipe="quickstart", name="cpu", device="cpu")
    assert pick_budget(None, "cuda") == Budget(recipe="quickstart_gpu", name="gpu", device="cuda")
    assert find_recipe(pick_budget(None, "cpu").recipe).endswith("recipes/quickstart.yaml")
    assert find_recipe(pick_budget(None, "cuda").recipe).endswith("recipes/quickstart_gpu.yaml")
    assert pick_budget(None, "cpu").eval_batch_size == 64  # run_quickstart's CPU default, unchanged
    assert pick_budget(None, "cuda").eval_batch_size > 64


def test_a_named_recipe_is_kept_on_every_device(tmp_path):
    mine = str(tmp_path / "mine.yaml")
    for device in ("cpu", "cuda"):
        budget = pick_budget(mine, device)
        assert budget.recipe == mine and budget.name == "custom" and budget.device == device
    assert pick_budget("quickstart", "cuda").recipe == "quickstart"
    assert pick_budget("quickstart", "cuda").name == "cpu"


def test_device_resolution():
    assert resolve_device("auto", False) == "cpu"
    assert resolve_device("auto", True) == "cuda"
    assert resolve_device("cpu", True) == "cpu"
    with pytest.raises(ValueError, match="no CUDA device"):
        resolve_device("cuda", False)
    with pytest.raises(ValueError, match="--device must be one of"):
        resolve_device("tpu", True)


def test_the_gpu_recipe_parses_and_differs_from_the_cpu_one():
    cpu = yaml.safe_load(open(find_recipe("quickstart")))
    gpu = yaml.safe_load(open(find_recipe("quickstart_gpu")))
    for key in ("families", "task_options", "prompt_style", "system_prompt", "reward_funcs", "reward_mode",
                "reward_weights", "sft_steps", "sft_style", "frontier", "dynamic_sampling"):
        assert gpu[key] == cpu[key], key
    assert gpu["max_steps"] > cpu["max_steps"] and gpu["gradient_checkpointing"] is False and gpu["bf16"] is True
    assert gpu["eval_sets"]["test_in"]["size"] >= 300 and gpu["eval_sets"]["test_in"]["split"] == "test_in"
    assert gpu["eval_sets"]["valid"] == {"split": "valid", "size": 100}
    task, sft, training, model = parse_sft_recipe(["--config", find_recipe("quickstart_gpu")])
    assert training.steps_per_generation * training.per_device_train_batch_size >= 4 * training.num_generations
    assert training.per_device_train_batch_size % training.num_generations == 0
    assert set(task.eval_sets) == {"test_in", "test_cross", "test_out", "valid"}


@pytest.mark.skipif(cuda_available(), reason="checks the message of a machine without CUDA")
def test_cuda_requested_without_one_is_one_line(capsys):
    assert main(["quickstart", "--device", "cuda", "--output-dir", "unused"]) == 2
    err = capsys.readouterr().err
    assert err.strip().count("\n") == 0 and "no CUDA device" in err and "Traceback" not in err


def test_quickstart_evaluation_stays_on_cpu_in_float32(tiny_model, tmp_path):
    from rlvr.datasets import FamilyMix, Mixture
    from rlvr.train.quickstart import evaluate

    if cuda_available():
        pytest.skip("checks the CPU defaults")
    tasks = tmp_path / "tasks.jsonl"
    mixture = Mixture([FamilyMix("stoich.t1", 1.0, {"encoding": "formula"})], "test_in", 0)
    tasks.write_text("".join(mixture.task_at(i).to_json() + "\n" for i in range(2)))
    result = evaluate(tiny_model, None, tasks, tmp_path / "eval", max_new_tokens=3, batch_size=2)
    info = json.loads((tmp_path / "eval" / "results.json").read_text())["model_info"]
    assert info["device"] == "cpu" and info["dtype"] == "float32" and len(result.records) == 2
