"""The quickstart's training stages: the warm start, the RL stage, and the SFT control arm beside it.

- :func:`warm_start`: supervised training on verified worked solutions (recipes with ``sft_steps > 0``),
  merged into the weights; every arm starts from it. With ``plateau`` it trains until a tuning set's exact
  match stops rising (:mod:`rlvr.quickstart.plateau`).
- :func:`rl_stage`: GRPO/RLOO + LoRA from the warm-started model.
- :func:`control_arm`: from the same warm-started model, more supervised training on fresh verified worked
  solutions from the same training split, as many optimizer steps as the RL stage took, the rows per step
  matched as the recipe declares (``control_match``); the same LoRA adapter shape as RL.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from rlvr.quickstart.evaluation import Evaluator, say
from rlvr.quickstart.plan import Plan
from rlvr.quickstart.scores import StageResult
from rlvr.rng import stable_hash
from rlvr.train.checkpointing import NEW as NEW_CHECKPOINTING
from rlvr.train.checkpointing import recipe_checkpointing
from rlvr.train.entry import run_callbacks
from rlvr.train.runner import TrainResult, train
from rlvr.train.lora import lora_config
from rlvr.train.sft import SFTResult, cold_start, run_sft
from rlvr.train.sft_data import build_sft_dataset, sft_mixture

#: what the summary keeps of the warm start
WARM_KEYS = ("steps", "first_loss", "last_loss", "merged_dir", "num_tokens", "skipped_steps", "seconds")


@dataclass(frozen=True)
class RLShape:
    """What one RL optimizer step trains on: prompts, completions per prompt, and completions."""

    prompts: int
    completions_per_prompt: int

    @property
    def completions(self) -> int:
        """Completions trained per optimizer step."""
        return self.prompts * self.completions_per_prompt

    @classmethod
    def of(cls, training_args: Any) -> "RLShape":
        """The shape of a GRPO/RLOO config's step (one process)."""
        per_step = int(training_args.per_device_train_batch_size) * int(training_args.gradient_accumulation_steps or 1)
        group = int(getattr(training_args, "num_generations", 1) or 1)
        return cls(prompts=max(1, per_step // group), completions_per_prompt=group)


def warm_start(plan: Plan, evaluator: Evaluator) -> tuple[StageResult | None, dict[str, Any]]:
    """The warm start and its evaluation (nothing without ``sft_steps``); afterwards the recipe's model is the
    merged warm-started model, where every arm starts. Returns its scores and the summary's ``warm_start``
    (with ``plateau``: the tuning set's curve and the plateau step)."""
    from rlvr.quickstart.plateau import PlateauWatch
    from rlvr.train.progress import SFT_KEYS, console_callbacks  # imports transformers

    recipe = plan.recipe
    sft = recipe.sft
    if not recipe.warm_starts:
        return None, {}
    sft.sft_output_dir = sft.sft_output_dir or str(plan.out / "warm_start")
    rule = recipe.study.plateau
    until = f"until {rule['set']} exact match gains at most {100 * float(rule['min_gain']):g} points in {rule['every']} steps (at most {sft.sft_steps})" \
        if rule else f"{sft.sft_steps}"
    say(f"warm start: {until} SFT steps on {sft.sft_train_size} verified worked solutions "
        f"({sft.sft_style}) from the {sft.sft_split} split")
    t0 = time.time()
    callbacks = console_callbacks(recipe.task.console, sft.sft_output_dir, sft.sft_steps, sft.sft_logging_steps,
                                  keys=SFT_KEYS, desc="warm start", every=max(1, sft.sft_steps // 4))
    watch = None
    if rule:
        watch = PlateauWatch.for_plan(plan, rule, str(recipe.model.model_name_or_path), Path(sft.sft_output_dir) / "plateau")
        callbacks.append(watch.callback())
    result = cold_start(recipe.task, sft, recipe.training, recipe.model, callbacks=callbacks)
    evaluator.seconds["warm_start"] = round(time.time() - t0, 1)
    recipe.model.model_name_or_path = result.merged_dir
    warm = evaluator.stage("eval_warm", "the warm-started model", str(result.merged_dir))
    info = {k: result.to_dict()[k] for k in WARM_KEYS}
    if watch is not None:
        info["plateau"] = {**watch.summary(), "eval_seconds": round(sum(watch.evaluator.seconds.values()), 1)}
    return warm, info


def rl_stage(plan: Plan, evaluator: Evaluator) -> TrainResult:
    """The recipe's GRPO/RLOO + LoRA from the recipe's current model (the warm-started one when there is one)."""
    task, training = plan.recipe.task, plan.recipe.training
    start = "the warm-started model" if plan.recipe.warm_starts else "the base model"
    tensorboard = ", TensorBoard" if "tensorboard" in (training.report_to or []) else ""
    say(f"training {int(training.max_steps)} {task.algorithm.upper()} steps from {start} (metrics: "
        f"{training.output_dir}/metrics.jsonl{tensorboard})")
    t0 = time.time()
    result = train(task, training, plan.recipe.model, callbacks=run_callbacks(task, training), adapter=plan.recipe.adapter)
    evaluator.seconds["rl"] = round(time.time() - t0, 1)
    return result


def control_seed(plan: Plan) -> int:
    """Task seed of the control rows: the recipe's, else derived from the RL task seed (disjoint from the warm
    start's rows and from the RL stream)."""
    if plan.recipe.control.control_task_seed is not None:
        return int(plan.recipe.control.control_task_seed)
    return int(stable_hash("rlvr-control", plan.recipe.task.task_seed) & 0x7FFFFFFF)


def control_rows_per_step(plan: Plan) -> int:
    """Worked solutions per control step, as ``control_match`` declares: RL's completions or prompts per step."""
    shape = RLShape.of(plan.recipe.training)
    return shape.completions if plan.recipe.control.control_match == "completions" else shape.prompts


def train_control(plan: Plan, steps: int) -> tuple[SFTResult, float]:
    """``steps`` SFT steps from the warm-started model (the recipe's current model) on fresh worked solutions;
    returns the result and seconds."""
    from rlvr.train.progress import SFT_KEYS, console_callbacks  # imports transformers

    recipe, ctrl = plan.recipe, plan.recipe.control
    per_step = control_rows_per_step(plan)
    sft = replace(recipe.sft, sft_steps=steps, sft_train_size=steps * per_step, sft_batch_size=per_step,
                  sft_gradient_accumulation_steps=1, sft_learning_rate=ctrl.control_learning_rate,
                  sft_lr_scheduler_type=ctrl.control_lr_scheduler_type, sft_warmup_steps=ctrl.control_warmup_steps,
                  sft_output_dir=str(plan.out / "control"))
    say(f"control arm: {steps} SFT steps x {per_step} fresh verified worked solutions (match: {ctrl.control_match}) "
        "from the warm-started model")
    t0 = time.time()
    dataset, stats = build_sft_dataset(sft_mixture(recipe.task, sft), sft.sft_train_size, split=sft.sft_split,
                                       seed=control_seed(plan), style=sft.sft_style, max_chars=sft.sft_max_chars,
                                       max_answer_share=sft.sft_max_answer_share)
    callbacks = console_callbacks(recipe.task.console, sft.sft_output_dir, steps, sft.sft_logging_steps, keys=SFT_KEYS,
                                  desc="control", every=max(1, steps // 4))
    result = run_sft(str(recipe.model.model_name_or_path), dataset, sft, output_dir=str(sft.sft_output_dir),
                     peft_config=lora_config(recipe.model, recipe.adapter.lora_layers), use_cpu=bool(getattr(recipe.training, "use_cpu", False)),
                     cpu_bf16=bool(getattr(recipe.training, "bf16", False)),
                     seed=int(getattr(recipe.training, "seed", 0)), merge=False, dataset_stats=stats,
                     config_overrides={NEW_CHECKPOINTING: recipe_checkpointing(recipe.training)}, callbacks=callbacks)
    return result, round(time.time() - t0, 1)


def trained_adapter(plan: Plan) -> str:
    """The RL stage's final adapter folder."""
    return str(Path(plan.recipe.training.output_dir))


__all__ = ["RLShape", "control_rows_per_step", "control_seed", "rl_stage", "train_control", "trained_adapter",
           "warm_start"]
