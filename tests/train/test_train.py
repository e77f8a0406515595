"""End-to-end training runs with the tiny model on CPU (seconds each)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from rlvr.models import quiet_checkpointing_aliases
from rlvr.train.recipe import parse_recipe
from rlvr.train.runner import train


def run(recipe: Path, *extra: str):
    parsed = parse_recipe(["--config", str(recipe), *extra])
    task, training, model = parsed.task, parsed.training, parsed.model
    return train(task, training, model)


def assert_adapter_reloads(folder: Path, tiny_model: str) -> None:
    from peft import PeftModel
    from transformers import AutoModelForCausalLM

    assert (folder / "adapter_config.json").is_file()
    assert (folder / "adapter_model.safetensors").is_file()
    base = AutoModelForCausalLM.from_pretrained(tiny_model)
    with quiet_checkpointing_aliases():
        model = PeftModel.from_pretrained(base, str(folder))
    names = [n for n, _ in model.named_parameters() if "lora_" in n]
    assert names, "the reloaded model has no LoRA weights"


@pytest.mark.parametrize("algorithm", ["grpo", "rloo"])
def test_two_step_run_writes_a_reloadable_adapter(tmp_path, tiny_model, make_recipe, algorithm):
    out = tmp_path / "out"
    recipe = make_recipe(tmp_path / "r.yaml", tiny_model, out, algorithm=algorithm)
    result = run(recipe)
    assert result.global_step == 2 and result.world_size == 1
    ckpt = out / "checkpoint-2"
    assert_adapter_reloads(ckpt, tiny_model)
    assert_adapter_reloads(out, tiny_model)
    state = json.loads((ckpt / "trainer_state.json").read_text())
    train_logs = [h for h in state["log_history"] if "reward" in h]
    assert len(train_logs) == 2
    assert all("rewards/chem_reward/mean" in h and "rewards/format_reward/mean" in h for h in train_logs)
    assert all(h["step_time"] > 0 for h in train_logs)
    info = json.loads((out / "run_info.json").read_text())
    assert info["global_step"] == 2 and info["algorithm"] == algorithm and info["seconds_per_step"] > 0
    assert (out / "reward_curve.png").stat().st_size > 1000
    # the whole log history is kept next to the final adapter, not only in the last checkpoint
    final_state = json.loads((out / "trainer_state.json").read_text())
    assert [h["step"] for h in final_state["log_history"] if "reward" in h] == [1, 2]


def test_resume_continues_the_step_count(tmp_path, tiny_model, make_recipe):
    out = tmp_path / "out"
    recipe = make_recipe(tmp_path / "r.yaml", tiny_model, out, save_steps=1, max_steps=2)
    first = run(recipe)
    assert first.global_step == 2
    result = run(recipe, "--max_steps", "3", "--resume_from_checkpoint", "last")
    assert result.resumed_from and result.resumed_from.endswith("checkpoint-2")
    assert result.global_step == 3
    state = json.loads((out / "checkpoint-3" / "trainer_state.json").read_text())
    steps = [h["step"] for h in state["log_history"] if "reward" in h]
    assert steps == [1, 2, 3]


def test_named_eval_sets_fixed_dataset_and_full_finetune(tmp_path, tiny_model, make_recipe):
    out = tmp_path / "out"
    recipe = make_recipe(
        tmp_path / "r.yaml", tiny_model, out,
        use_peft=False, train_size=8, max_steps=1, save_strategy="no",
        eval_splits=["test_in", "test_out"], eval_size=2, eval_strategy="steps", eval_steps=1,
        per_device_eval_batch_size=2,
    )
    result = run(recipe)
    assert result.global_step == 1
    for name in ("test_in", "test_out"):
        assert f"eval_{name}_reward" in result.eval_metrics
        assert f"eval_{name}_rewards/chem_reward/mean" in result.eval_metrics
    assert (out / "model.safetensors").is_file()  # full fine-tuning saves the whole model


def test_curriculum_stream_changes_task_options(tmp_path, tiny_model, make_recipe, monkeypatch):
    probe = tmp_path / "probe"
    probe.mkdir()
    monkeypatch.syspath_prepend(str(Path(__file__).parent))
    monkeypatch.setenv("RLVR_PROBE_DIR", str(probe))
    out = tmp_path / "out"
    recipe = make_recipe(
        tmp_path / "r.yaml", tiny_model, out, max_steps=3, save_steps=3,
        reward_funcs=["probe_rewards.probe_reward"],
        curriculum={"option": "encoding", "levels": ["formula", "smiles"], "metric": "reward", "threshold": -1.0,
                    "window": 1, "min_steps": 1},
    )
    result = run(recipe)
    assert result.global_step == 3
    state = json.loads((out / "checkpoint-3" / "rlvr_curriculum.json").read_text())
    assert state["level"] == 1 and state["history"][0] == {"step": 1, "level": 1, "value": "smiles", "metric_mean": state["history"][0]["metric_mean"]}
    logs = json.loads((out / "checkpoint-3" / "trainer_state.json").read_text())["log_history"]
    assert [h.get("curriculum_level") for h in logs if "reward" in h] == [0, 1, 1]
    # the task ids carry a fingerprint of the generator options: it changes once the level advances
    calls = [json.loads(line) for line in (probe / "rank0.jsonl").read_text().splitlines()]
    fingerprints = [{i.rsplit(":", 1)[1] for i in c["ids"]} for c in calls]
    assert len(fingerprints[0]) == 1 and fingerprints[0] != fingerprints[-1]
