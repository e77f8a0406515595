"""``rlvr quickstart`` picks its recipe per device: the CPU recipe unchanged on CPU, the GPU recipe on CUDA."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

from rlvr.cli import main
from rlvr.device import Device, accelerator
from rlvr.quickstart.plan import QuickstartOptions
from rlvr.quickstart.recipe_choice import RecipeChoice, choose_recipe
from rlvr.train.entry import find_recipe
from rlvr.train.recipe import parse_recipe

CPU, CUDA = Device("cpu", "float32"), Device("cuda", "bfloat16")


def test_the_recipe_follows_the_device():
    assert choose_recipe(None, CPU) == RecipeChoice(recipe="quickstart", name="cpu", device=CPU)
    assert choose_recipe(None, CUDA) == RecipeChoice(recipe="quickstart_gpu", name="gpu", device=CUDA)
    assert find_recipe(choose_recipe(None, CPU).recipe).endswith("recipes/quickstart.yaml")
    assert find_recipe(choose_recipe(None, CUDA).recipe).endswith("recipes/quickstart_gpu.yaml")
    assert choose_recipe(None, CPU).eval_batch_size == QuickstartOptions().eval_batch_size == 64
    assert choose_recipe(None, CUDA).eval_batch_size > 64


def test_a_named_recipe_is_kept_on_every_device(tmp_path):
    mine = str(tmp_path / "mine.yaml")
    for device in (CPU, CUDA):
        choice = choose_recipe(mine, device)
        assert choice.recipe == mine and choice.name == "custom" and choice.device == device
    assert choose_recipe("quickstart", CUDA).recipe == "quickstart"
    assert choose_recipe("quickstart", CUDA).name == "cpu"


def test_the_gpu_recipe_is_the_confirmatory_design_at_a_larger_budget():
    cpu = yaml.safe_load(open(find_recipe("quickstart_confirm")))
    gpu = yaml.safe_load(open(find_recipe("quickstart_gpu")))
    for key in ("families", "task_options", "prompt_style", "system_prompt", "reward_funcs", "reward_mode",
                "reward_weights", "sft_steps", "sft_train_size", "sft_style", "sft_learning_rate", "sft_lr_scheduler_type",
                "frontier", "dynamic_sampling", "primary_test", "arms", "control_match", "pass_at_k", "retention_set",
                "kl_set", "num_generations", "temperature", "eval_sets"):
        assert gpu.get(key) == cpu.get(key), key
    seeds = re.search(r"^SEEDS = \((.*)\)$", (Path(__file__).parents[2] / "scripts" / "gpu_jobs.py").read_text(), re.M)
    assert seeds and gpu["pooled_test"]["seeds"] == [int(x) for x in seeds.group(1).split(",") if x.strip()]
    assert {k: v for k, v in gpu["pooled_test"].items() if k != "seeds"} == {
        k: v for k, v in cpu["pooled_test"].items() if k != "seeds"}
    assert gpu["max_steps"] > cpu["max_steps"] and gpu["gradient_checkpointing"] is False and gpu["bf16"] is True
    assert gpu["per_device_train_batch_size"] > cpu["per_device_train_batch_size"]
    assert not any(s["split"].startswith(("valid", "train")) for s in gpu["eval_sets"].values())  # tuning: tune_arms.py
    recipe = parse_recipe(["--config", find_recipe("quickstart_gpu")])
    task, training = recipe.task, recipe.training
    assert training.per_device_train_batch_size % training.num_generations == 0
    assert set(task.eval_sets) == {"fresh_out", "fresh_in", "fresh_far"} and recipe.arms == ["rl", "control", "rft"]


@pytest.mark.skipif(accelerator() == "cuda", reason="checks the message of a machine without CUDA")
def test_cuda_requested_without_one_is_one_line(capsys):
    assert main(["quickstart", "--device", "cuda", "--output-dir", "unused"]) == 2
    err = capsys.readouterr().err
    assert err.strip().count("\n") == 0 and "no such device is visible" in err and "Traceback" not in err


def test_quickstart_evaluation_stays_on_cpu_in_float32(tiny_model, tmp_path):
    from rlvr.datasets import FamilyMix, Mixture
    from rlvr.quickstart.evaluation import evaluate

    if accelerator() is not None:
        pytest.skip("checks the CPU defaults")
    tasks = tmp_path / "tasks.jsonl"
    mixture = Mixture([FamilyMix("stoich.t1", 1.0, {"encoding": "formula"})], "test_in", 0)
    tasks.write_text("".join(mixture.task_at(i).to_json() + "\n" for i in range(2)))
    result = evaluate(tiny_model, None, tasks, tmp_path / "eval", max_new_tokens=3, batch_size=2)
    info = json.loads((tmp_path / "eval" / "results.json").read_text())["model_info"]
    assert info["device"] == "cpu" and info["dtype"] == "float32" and len(result.records) == 2
