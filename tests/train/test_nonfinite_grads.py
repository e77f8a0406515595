"""The non-finite gradient guard: a step whose gradients hold a NaN leaves the weights as they were, the run goes on
and logs it; three such steps in a row stop the run in one line; GRPO and SFT trainers both carry the guard, last."""
from __future__ import annotations

import logging
import re

import pytest
import torch
from transformers import TrainerCallback

from rlvr.train.callbacks import NonFiniteGradCallback, all_finite
from rlvr.train.sft import SFTArguments, build_sft_dataset, run_sft

SHORT_SYSTEM = "Answer inside <answer></answer> as JSON."


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> str:
    from rlvr.train.tiny import build_tiny_model

    return build_tiny_model(tmp_path_factory.mktemp("nonfinite-models") / "tiny")


class PoisonGrads(TrainerCallback):
    """Writes a NaN into one trainable gradient before the optimizer steps named (1-based), as a bfloat16 overflow
    in a backward pass would; keeps a copy of the trainable weights at each step's start and end."""

    def __init__(self, steps: set[int], value: float = float("nan")) -> None:
        self.steps, self.value = steps, value
        self.before: dict[int, list[torch.Tensor]] = {}
        self.after: dict[int, list[torch.Tensor]] = {}

    @staticmethod
    def _weights(model) -> list[torch.Tensor]:
        return [p.detach().clone() for p in model.parameters() if p.requires_grad]

    def on_step_begin(self, args, state, control, model=None, **kwargs):
        self.before[state.global_step + 1] = self._weights(model)

    def on_pre_optimizer_step(self, args, state, control, model=None, **kwargs):
        if state.global_step + 1 in self.steps:
            grad = next(p.grad for p in model.parameters() if p.grad is not None)
            grad.view(-1)[0] = self.value

    def on_step_end(self, args, state, control, model=None, **kwargs):
        self.after[state.global_step] = self._weights(model)

    def on_train_end(self, args, state, control, **kwargs):
        self.history = list(state.log_history)


def _sft(tiny: str, tmp_path, steps: int, poison: PoisonGrads):
    from peft import LoraConfig

    ds, stats = build_sft_dataset("mol.count:1", steps, split="train", seed=0, system_prompt=SHORT_SYSTEM)
    args = SFTArguments(sft_steps=steps, sft_train_size=steps, sft_batch_size=1, sft_max_length=512,
                        sft_learning_rate=1e-2)
    lora = LoraConfig(r=4, lora_alpha=8, target_modules=["q_proj", "v_proj"], task_type="CAUSAL_LM")
    return run_sft(tiny, ds, args, output_dir=str(tmp_path / "sft"), peft_config=lora, use_cpu=True,
                   dataset_stats=stats, merge=False, callbacks=[poison])


def _same(a: list[torch.Tensor], b: list[torch.Tensor]) -> bool:
    return all(torch.equal(x, y) for x, y in zip(a, b, strict=True))


def test_all_finite_reads_nan_inf_and_every_dtype():
    ok = [torch.ones(3), torch.ones(2, 2, dtype=torch.bfloat16)]
    assert all_finite(ok) and all_finite([])
    for bad in (float("nan"), float("inf"), float("-inf")):
        grads = [torch.ones(3), torch.ones(2, 2, dtype=torch.bfloat16)]
        grads[1][1, 0] = bad
        assert not all_finite(grads)


def test_a_step_with_a_nan_gradient_leaves_the_weights_and_the_run_goes_on(tiny, tmp_path, caplog):
    poison = PoisonGrads({2})
    with caplog.at_level(logging.WARNING, logger="rlvr.train.callbacks"):
        result = _sft(tiny, tmp_path, 3, poison)
    assert result.steps == 3 and result.skipped_steps == [2]
    import json

    assert json.loads((tmp_path / "sft" / "sft_info.json").read_text())["skipped_steps"] == [2]
    assert not _same(poison.before[1], poison.after[1])  # the lr is high enough that a step moves the adapter
    assert _same(poison.before[2], poison.after[2])  # the poisoned step wrote nothing
    assert not _same(poison.before[3], poison.after[3])
    assert all(torch.isfinite(w).all() for w in poison.after[3])
    assert re.search(r"step 2: non-finite gradients in 1 of \d+ tensors \(first: \S+lora_A\S*\); the optimizer step "
                     r"is skipped \(1 skipped so far\)", caplog.text), caplog.text
    logged = [h for h in poison.history if "loss" in h]  # a log record per step; the count rides on it from step 2
    assert [(h["step"], h.get("skipped_steps")) for h in logged] == [(1, None), (2, 1), (3, 1)]


def test_three_poisoned_steps_in_a_row_stop_the_run_in_one_line(tiny, tmp_path):
    with pytest.raises(RuntimeError, match=r"^training stopped: 3 optimizer steps in a row had non-finite "
                                           r"gradients \(steps 1, 2, 3\)$"):
        _sft(tiny, tmp_path, 4, PoisonGrads({1, 2, 3}))


def test_a_finite_step_between_resets_the_count(tiny, tmp_path):
    result = _sft(tiny, tmp_path, 5, PoisonGrads({1, 2, 4, 5}))
    assert result.steps == 5


def test_fp16_runs_are_left_to_their_scaler_and_the_count_must_be_positive():
    class Args:
        fp16 = True

    guard = NonFiniteGradCallback()
    model = torch.nn.Linear(2, 1)
    model.weight.grad = torch.full_like(model.weight, float("nan"))
    guard.on_pre_optimizer_step(Args(), None, None, model=model)
    assert model.weight.grad is not None and guard.skipped == []
    with pytest.raises(ValueError):
        NonFiniteGradCallback(max_in_a_row=0)


def _grpo_recipe(tiny: str, tmp_path, steps: int):
    from rlvr.train.recipe import parse_recipe

    return parse_recipe(["--model_name_or_path", tiny, "--families", "stoich.t1", "--train_size", "8",
                         "--max_steps", str(steps), "--per_device_train_batch_size", "2", "--num_generations", "2",
                         "--max_completion_length", "8", "--output_dir", str(tmp_path / "grpo"), "--learning_rate", "1e-2",
                         "--report_to", "none", "--save_strategy", "no", "--eval_strategy", "no"])


def test_a_grpo_run_skips_the_poisoned_step_and_reports_it(tiny, tmp_path):
    import json

    from rlvr.train.runner import train

    recipe = _grpo_recipe(tiny, tmp_path, 2)
    poison = PoisonGrads({1})
    result = train(recipe.task, recipe.training, recipe.model, callbacks=[poison], adapter=recipe.adapter)
    assert result.global_step == 2 and result.skipped_steps == [1]
    # without the guard the NaN would be in the adapter after step 1 (the tiny model's rewards are all 0, so
    # step 2's advantages are too and it moves nothing either way)
    assert _same(poison.before[1], poison.after[1]) and all(torch.isfinite(w).all() for w in poison.after[2])
    assert json.loads((tmp_path / "grpo" / "run_info.json").read_text())["skipped_steps"] == [1]


def test_the_grpo_trainer_carries_the_guard_last(tiny, tmp_path):
    from rlvr.train.runner import build_trainer

    class Mine(TrainerCallback):
        pass

    recipe = _grpo_recipe(tiny, tmp_path, 1)
    trainer = build_trainer(recipe.task, recipe.training, recipe.model, callbacks=[Mine()], adapter=recipe.adapter)
    callbacks = trainer.callback_handler.callbacks
    names = [type(c).__name__ for c in callbacks]
    guard = names.index("NonFiniteGradCallback")
    assert names.index("Mine") < guard and names.index("StepTimerCallback") < guard
    # after it only transformers' own console callbacks, which leave the gradients alone
    assert all(type(c).__module__.startswith("transformers.") for c in callbacks[guard + 1:])
