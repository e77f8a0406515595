"""Recipe parsing (TrlParser over TaskArguments + GRPOConfig/RLOOConfig + ModelConfig)."""
from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from rlvr.train.config import TaskArguments
from rlvr.train.recipe import parse_recipe

ROOT = Path(__file__).resolve().parents[2]
# recipes/sft holds SFT cold-start recipes (another entry point); recipes/accelerate holds launcher configs
RECIPES = sorted(p for p in (ROOT / "recipes").rglob("*.yaml") if not {"accelerate", "sft"} & set(p.parts))
ACCELERATE = sorted((ROOT / "recipes" / "accelerate").glob("*.yaml"))


def test_there_are_recipes_and_accelerate_configs():
    names = {p.stem for p in ACCELERATE}
    assert {"single_gpu", "ddp", "cpu_ddp", "zero2", "zero3", "fsdp", "multinode"} <= names
    assert (ROOT / "recipes" / "quickstart.yaml") in RECIPES
    assert len(RECIPES) >= 12


@pytest.mark.parametrize("recipe", RECIPES, ids=lambda p: str(p.relative_to(ROOT / "recipes")))
def test_every_recipe_parses(recipe, tmp_path):
    from trl import GRPOConfig, ModelConfig, RLOOConfig

    raw = yaml.safe_load(recipe.read_text())
    argv = ["--config", str(recipe), "--output_dir", str(tmp_path)]
    parsed = parse_recipe(argv)  # one parser for every recipe: RL, warm start + RL, the quickstart's arms
    task, training, model = parsed.task, parsed.training, parsed.model
    assert isinstance(task, TaskArguments) and isinstance(model, ModelConfig)
    assert isinstance(training, GRPOConfig if task.algorithm == "grpo" else RLOOConfig)
    assert task.algorithm == raw.get("algorithm", "grpo")
    assert model.model_name_or_path
    mix = task.mix()  # families, splits and options are valid for the registry
    assert mix and all(m.weight > 0 for m in mix)
    from rlvr.datasets import Mixture
    from rlvr.train.data import eval_set_specs

    Mixture(mix, task.train_split, task.task_seed)
    for name, spec in eval_set_specs(task).items():
        Mixture(spec["mix"], spec["split"], 0)
    # GRPO/RLOO batch geometry: generation batch divisible by the group size
    assert training.generation_batch_size % training.num_generations == 0
    if task.train_size == 0:
        assert training.max_steps > 0


@pytest.mark.parametrize("config", ACCELERATE, ids=lambda p: p.stem)
def test_accelerate_configs_load(config):
    data = yaml.safe_load(config.read_text())
    assert data["distributed_type"] in {"NO", "MULTI_GPU", "DEEPSPEED", "FSDP"}
    assert int(data["num_processes"]) >= 1
    if config.stem == "cpu_ddp":
        assert data["use_cpu"] is True and data["distributed_type"] == "MULTI_GPU" and data["num_processes"] == 2


def test_command_line_overrides_recipe(tmp_path):
    recipe = ROOT / "recipes" / "cpu_long.yaml"
    parsed = parse_recipe(
        ["--config", str(recipe), "--output_dir", str(tmp_path), "--max_steps", "3", "--families", "stoich.t2:2", "stoich.t1",
         "--lora_r", "4"]
    )
    task, training, model = parsed.task, parsed.training, parsed.model
    assert training.max_steps == 3 and model.lora_r == 4
    assert [(m.family, m.weight) for m in task.mix()] == [("stoich.t2", 2.0), ("stoich.t1", 1.0)]


def test_algorithm_selects_the_trl_config(tmp_path):
    from trl import RLOOConfig

    training = parse_recipe(["--algorithm", "rloo", "--output_dir", str(tmp_path), "--max_steps", "1"]).training
    assert isinstance(training, RLOOConfig)


def test_cpu_mode_forced_without_accelerator(tmp_path):
    from rlvr.device import Device

    parsed = parse_recipe(["--output_dir", str(tmp_path), "--bf16", "true", "--max_steps", "1"], device=Device("cpu"))
    assert parsed.model.model_name_or_path == "default"
    assert parsed.training.use_cpu and not parsed.training.bf16 and parsed.device == Device("cpu", "float32")
    # a CPU where bfloat16 is the faster dtype keeps a recipe's bf16 (autocast over float32 weights), nothing more
    native = Device("cpu", "float32", cpu_bf16=True)
    assert parse_recipe(["--output_dir", str(tmp_path), "--bf16", "true"], device=native).training.bf16
    assert not parse_recipe(["--output_dir", str(tmp_path)], device=native).training.bf16
    assert not parse_recipe(["--output_dir", str(tmp_path), "--bf16", "false"], device=native).training.bf16
    recipe = tmp_path / "bf16.yaml"
    recipe.write_text("bf16: true\n")
    assert parse_recipe(["--config", str(recipe), "--output_dir", str(tmp_path)], device=native).training.bf16
    assert not parse_recipe(["--config", str(recipe), "--output_dir", str(tmp_path), "--bf16=false"],
                            device=native).training.bf16
    assert not parse_recipe(["--output_dir", str(tmp_path), "--fp16", "true"], device=native).training.fp16


def test_ppo_is_refused_with_a_pointer():
    with pytest.raises(ValueError, match="verl"):
        TaskArguments(algorithm="ppo")


def test_structured_options_from_strings():
    t = TaskArguments(
        families=["stoich.t1"],
        task_options='{"encoding": "smiles"}',
        eval_sets="{easy: {split: test_in, size: 4}}",
        curriculum='{"option": "x", "levels": [1, 2]}',
    )
    assert t.task_options == {"encoding": "smiles"}
    assert t.eval_sets == {"easy": {"split": "test_in", "size": 4}}
    assert t.curriculum["levels"] == [1, 2]
    with pytest.raises(ValueError):
        TaskArguments(task_options="[1, 2]")
    with pytest.raises(ValueError, match="eval set 'easy' must be a mapping"):
        TaskArguments(eval_sets="{easy: [test_in, 4]}")
    with pytest.raises(ValueError, match="eval set 'easy': options must be a mapping"):
        TaskArguments(eval_sets='{"easy": {"split": "test_in", "options": [1]}}')
    with pytest.raises(ValueError):
        TaskArguments(algorithm="dpo")


def test_cli_train_usage_and_errors(capsys):
    from rlvr.cli import main

    assert main(["train"]) == 0
    assert "--config RECIPE.yaml" in capsys.readouterr().out
    assert main(["train", "--config", "no/such/recipe.yaml"]) == 2
    assert "not found" in capsys.readouterr().err


def test_recipe_names_resolve_to_files():
    from rlvr.train.entry import find_recipe

    assert find_recipe("quickstart").endswith("recipes/quickstart.yaml")
    assert find_recipe("grpo/stoich_t1_formula").endswith("grpo/stoich_t1_formula.yaml")
