"""SFT cold start: worked-solution datasets for SFTTrainer, a 2-step LoRA SFT on CPU, SFT -> GRPO in one command."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

import rlvr
from rlvr.datasets import task_from_row
from rlvr.train.recipe import parse_recipe
from rlvr.train.sft import SFTArguments, build_sft_dataset, main, run_sft

RECIPES = sorted((Path(__file__).resolve().parents[2] / "recipes" / "sft").glob("*.yaml"))
MIX = "mol.count:1,mol.gen:1"
#: a short system message keeps the tiny runs' sequences (and the 49k-vocabulary logits) small
SHORT_SYSTEM = "Answer inside <answer></answer> as JSON."


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> str:
    from rlvr.train.tiny import build_tiny_model

    return build_tiny_model(tmp_path_factory.mktemp("sft-models") / "tiny")


def test_sft_rows_are_conversational_and_verified():
    ds, stats = build_sft_dataset(MIX, 6, split="train", seed=3)
    assert stats.rows == 6 and sum(stats.by_family.values()) == 6
    assert {"prompt", "completion", "task_json"} <= set(ds.column_names)
    for row in ds:
        assert row["prompt"][-1]["role"] == "user"
        assert [m["role"] for m in row["completion"]] == ["assistant"]
        task = task_from_row(row)
        assert rlvr.verify(task, row["completion"][0]["content"]).reward == 1.0
    again, _ = build_sft_dataset(MIX, 6, split="train", seed=3)
    assert again.to_list() == ds.to_list()


def test_sft_rows_follow_the_recipe_prompt_options():
    from rlvr.train.config import TaskArguments
    from rlvr.train.sft_data import SFTArguments as DataArguments, sft_mixture, sft_rows

    plain = TaskArguments(families=["stoich.t1"], task_options={"encoding": "formula", "prompt_mode": "open"})
    assert plain.prompt_options() == {}
    compact = TaskArguments(families=["stoich.t1"], task_options={"encoding": "formula", "prompt_mode": "open"},
                            prompt_style="compact", system_prompt=SHORT_SYSTEM)
    rows, _ = sft_rows(sft_mixture(compact, DataArguments()), 3, seed=1)
    default_rows, _ = sft_rows(plain.mix(), 3, seed=1)
    for row, default in zip(rows, default_rows):
        task = task_from_row(row)
        assert row["prompt"] == task.prompt == rlvr.regenerate(task).prompt  # the RL prompt, regenerable
        assert row["prompt"][0] == {"role": "system", "content": SHORT_SYSTEM}
        assert len(row["prompt"][-1]["content"]) < len(default["prompt"][-1]["content"])
        assert row["completion"] == default["completion"]  # the same worked solution
    # an explicit SFT mixture gets the recipe's prompt options too
    explicit = sft_mixture(compact, DataArguments(sft_mixture=[{"family": "stoich.t1", "options": {"prompt_mode": "open"}}]))
    assert explicit[0].options["prompt_style"] == "compact"


def test_max_answer_share_caps_every_answer_and_keeps_the_rows_deterministic():
    from collections import Counter

    from rlvr.train.sft_data import sft_rows

    mix = [{"family": "mol.count", "options": {"load": 1, "keys": ["halogen_atom_count"]}}]
    plain, plain_stats = sft_rows(mix, 40, seed=5, style="brief")
    answers = lambda rows: Counter(json.dumps(task_from_row(r).ground_truth) for r in rows)  # noqa: E731
    assert max(answers(plain).values()) > 10 and plain_stats.capped == 0  # halogen-free molecules dominate
    capped, stats = sft_rows(mix, 40, seed=5, style="brief", max_answer_share=0.25)
    assert len(capped) == 40 and max(answers(capped).values()) <= 10 and stats.capped > 0
    assert sft_rows(mix, 40, seed=5, style="brief", max_answer_share=0.25)[0] == capped
    # rows the cap lets through keep mixture order: the first uncapped rows are the plain run's first rows
    assert capped[:5] == plain[:5]
    with pytest.raises(RuntimeError, match="sft_max_answer_share"):
        sft_rows(mix, 40, seed=5, style="brief", max_answer_share=0.01)  # 1 row per answer: too few answers


def test_sft_arguments_validation():
    with pytest.raises(ValueError, match="sft_max_answer_share"):
        SFTArguments(sft_max_answer_share=0.0)
    with pytest.raises(ValueError, match="sft_style"):
        SFTArguments(sft_style="long")
    with pytest.raises(ValueError, match=">= 0"):
        SFTArguments(sft_steps=-1)
    with pytest.raises(ValueError, match="sft_train_size"):
        SFTArguments(sft_steps=3, sft_train_size=0)
    with pytest.raises(ValueError, match=r"^sft_lora_layers must be 'top:N'"):
        SFTArguments(sft_lora_layers="top:x")


@pytest.mark.slow
def test_two_step_sft_on_a_tiny_model(tiny, tmp_path):
    from peft import LoraConfig
    from transformers import AutoModelForCausalLM

    ds, stats = build_sft_dataset(MIX, 2, split="train", seed=0, system_prompt=SHORT_SYSTEM)
    assert all(row["prompt"][0] == {"role": "system", "content": SHORT_SYSTEM} for row in ds)
    args = SFTArguments(sft_steps=2, sft_train_size=2, sft_batch_size=1, sft_max_length=1024)
    lora = LoraConfig(r=4, lora_alpha=8, target_modules=["q_proj", "v_proj"], task_type="CAUSAL_LM")
    result = run_sft(tiny, ds, args, output_dir=str(tmp_path / "sft"), peft_config=lora, use_cpu=True,
                     dataset_stats=stats)
    assert result.steps == 2
    assert result.first_loss is not None and result.first_loss > 0
    assert (Path(result.adapter_dir) / "adapter_config.json").is_file()
    merged = AutoModelForCausalLM.from_pretrained(result.merged_dir)
    assert not hasattr(merged, "peft_config") or not merged.peft_config
    info = json.loads((tmp_path / "sft" / "sft_info.json").read_text())
    assert info["steps"] == 2 and info["dataset"]["rows"] == 2


def test_group_by_length_picks_the_transformers_keyword(tmp_path):
    from dataclasses import dataclass

    from trl import SFTConfig

    from rlvr.train.sft import group_by_length_kwargs, make_sft_config

    off = make_sft_config(SFTArguments(), str(tmp_path), use_cpu=True)
    on = make_sft_config(SFTArguments(sft_group_by_length=True), str(tmp_path), use_cpu=True)
    key, value = next(iter(group_by_length_kwargs(SFTConfig).items()))
    assert getattr(on, key) == value and getattr(off, key) != value

    @dataclass
    class Older:
        group_by_length: bool = False

    @dataclass
    class Neither:
        seed: int = 0

    assert group_by_length_kwargs(Older) == {"group_by_length": True}
    with pytest.raises(ValueError, match="no length-grouped sampling"):
        group_by_length_kwargs(Neither)


def test_length_grouped_sft_on_a_tiny_model(tiny, tmp_path):
    from peft import LoraConfig

    mix = [rlvr.datasets.FamilyMix("mol.count", 1.0, {"load": 1}), rlvr.datasets.FamilyMix("mol.count", 1.0, {"load": 3})]
    ds, _ = build_sft_dataset(mix, 8, split="train", seed=0, system_prompt=SHORT_SYSTEM)
    args = SFTArguments(sft_steps=2, sft_train_size=8, sft_batch_size=2, sft_max_length=1024, sft_group_by_length=True)
    lora = LoraConfig(r=4, lora_alpha=8, target_modules=["q_proj", "v_proj"], task_type="CAUSAL_LM")
    result = run_sft(tiny, ds, args, output_dir=str(tmp_path / "sft"), peft_config=lora, use_cpu=True)
    assert result.steps == 2 and result.first_loss is not None and result.first_loss > 0


def _recipe(tmp_path: Path, tiny: str, **overrides) -> Path:
    recipe = {
        "algorithm": "grpo",
        "model_name_or_path": tiny,
        "families": ["mol.count"],
        "task_options": {"load": 1},
        "reward_funcs": ["chem_reward", "format_reward"],
        "use_peft": True,
        "lora_r": 4,
        "lora_alpha": 8,
        "lora_target_modules": ["q_proj", "v_proj"],
        "output_dir": str(tmp_path / "run"),
        "max_steps": 1,
        "per_device_train_batch_size": 2,
        "num_generations": 2,
        "max_completion_length": 8,
        "logging_steps": 1,
        "save_strategy": "no",
        "report_to": [],
        "system_prompt": SHORT_SYSTEM,
        "sft_steps": 2,
        "sft_train_size": 2,
        "sft_batch_size": 1,
        "sft_max_length": 1024,
    }
    recipe.update(overrides)
    path = tmp_path / "recipe.yaml"
    path.write_text(yaml.safe_dump(recipe))
    return path


@pytest.mark.slow
def test_cold_start_then_grpo_in_one_command(tiny, tmp_path, capsys):
    assert main(["--config", str(_recipe(tmp_path, tiny))]) == 0
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert summary["sft"]["steps"] == 2 and summary["rl"]["global_step"] == 1
    merged = tmp_path / "run" / "sft" / "merged"
    assert (merged / "config.json").is_file()
    info = json.loads((tmp_path / "run" / "run_info.json").read_text())
    assert info["model"] == str(merged)  # GRPO started from the merged SFT model
    assert (tmp_path / "run" / "adapter_config.json").is_file()


@pytest.mark.slow
def test_sft_only_stops_before_rl(tiny, tmp_path, capsys):
    assert main(["--config", str(_recipe(tmp_path, tiny)), "--sft_only", "true", "--sft_steps", "1"]) == 0
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert "rl" not in summary and summary["sft"]["steps"] == 1
    assert not (tmp_path / "run" / "run_info.json").exists()


@pytest.mark.parametrize("recipe", RECIPES, ids=[p.stem for p in RECIPES])
def test_shipped_recipes_parse(recipe):
    parsed = parse_recipe(["--config", str(recipe)])
    task_args, sft_args, training_args = parsed.task, parsed.sft, parsed.training
    assert sft_args.sft_steps > 0 and sft_args.sft_train_size > 0
    assert task_args.mix()
    assert training_args.max_completion_length >= 256  # room for the reasoning the cold start teaches


def test_recipes_exist():
    assert len(RECIPES) >= 3
