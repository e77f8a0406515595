"""Fixtures for the training tests: a tiny local causal LM with the SmolLM2 tokenizer."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import pytest
import yaml


@pytest.fixture(scope="session")
def tiny_model(tmp_path_factory) -> str:
    """Path of a tiny randomly initialised Llama (built once per session, seconds on CPU)."""
    from rlvr.train.tiny import build_tiny_model

    return build_tiny_model(tmp_path_factory.mktemp("models") / "tiny-llama")


def write_recipe(path: Path, tiny_model: str, out: Path, **overrides: Any) -> Path:
    """A small GRPO recipe for the tiny model (2 steps, 8-token completions, LoRA r4), overrides applied."""
    recipe = {
        "algorithm": "grpo",
        "model_name_or_path": tiny_model,
        "families": ["stoich.t1"],
        "task_options": {"encoding": "formula"},
        "reward_funcs": ["chem_reward", "format_reward"],
        "reward_mode": "f1",
        "use_peft": True,
        "lora_r": 4,
        "lora_alpha": 8,
        "lora_target_modules": ["q_proj", "v_proj"],
        "output_dir": str(out),
        "max_steps": 2,
        "per_device_train_batch_size": 4,
        "num_generations": 2,
        "max_completion_length": 8,
        "learning_rate": 1.0e-3,
        "logging_steps": 1,
        "save_strategy": "steps",
        "save_steps": 2,
        "report_to": "none",
        "disable_tqdm": True,
        "seed": 0,
    }
    recipe.update(overrides)
    path.write_text(yaml.safe_dump(recipe))
    return path



@pytest.fixture
def make_recipe() -> Callable[..., Path]:
    """``make_recipe(path, model, output_dir, **overrides)``: a 2-step tiny GRPO recipe YAML."""
    return write_recipe
