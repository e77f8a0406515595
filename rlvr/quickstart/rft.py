"""The RFT control arm: rejection-sampling fine-tuning on the warm-started model's own verified samples.

Whether RL adds anything over supervised training on the model's own correct answers. From the model every
arm starts from, :func:`train_rft` samples as many completions per prompt as RL did (its group size), at RL's
temperature, on the prompts RL generated for (the RL stage's ``prompts.jsonl``: drawn and resampled groups,
in order; a prompt drawn twice is sampled once), keeps the completions the checker verifies as correct (at
most ``max_per_prompt`` per prompt), and trains a LoRA adapter of RL's shape on them with SFT: RL's optimizer
steps, as many rows per step as RL trained completions per step (the kept rows repeat, in epochs, when there
are fewer). The recipe's ``rft`` mapping sets its learning rate, schedule, temperature and ``top_p``.
"""
from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path
from typing import Any, Sequence

from rlvr.datasets import task_row
from rlvr.files import atomic_open
from rlvr.quickstart.arm_run import ArmContext, ArmRun
from rlvr.quickstart.evaluation import say
from rlvr.task import Task, load_tasks
from rlvr.train.checkpointing import NEW as NEW_CHECKPOINTING
from rlvr.train.checkpointing import recipe_checkpointing
from rlvr.train.lora import lora_config
from rlvr.train.runner import PROMPT_STREAM
from rlvr.train.sft import run_sft


def unique_prompts(tasks: Sequence[Task]) -> list[Task]:
    """The stream's tasks in order, each once."""
    seen: set[str] = set()
    out = []
    for task in tasks:
        if task.id not in seen:
            seen.add(task.id)
            out.append(task)
    return out


def verified_rows(tasks: Sequence[Task], records: Sequence[dict[str, Any]], max_per_prompt: int | None = None) -> list[dict[str, Any]]:
    """SFT rows (the task's prompt, one verified-correct completion) from sampled eval records, in task order."""
    by_id = {r["id"]: r for r in records}
    rows = []
    for task in tasks:
        kept = [r["completion"] for r in (by_id.get(task.id) or {}).get("rollouts", []) if r.get("correct")]
        for text in kept[:max_per_prompt] if max_per_prompt else kept:
            rows.append({**task_row(task), "completion": [{"role": "assistant", "content": text}]})
    return rows


def train_rft(ctx: ArmContext) -> ArmRun:
    """Sample on RL's prompt stream from the warm-started model, keep what verifies, train on it (module doc)."""
    from datasets import Dataset  # heavy

    from rlvr.train.progress import SFT_KEYS, console_callbacks  # imports transformers

    plan, rl = ctx.plan, ctx.runs["rl"]
    recipe, options = plan.recipe, plan.recipe.study.rft
    stream = Path(rl.budget.get("prompt_stream") or Path(recipe.training.output_dir) / PROMPT_STREAM)
    if not stream.is_file():
        raise RuntimeError(f"the RFT arm samples RL's prompt stream, and {stream} is missing")
    out = plan.out / "rft"
    out.mkdir(parents=True, exist_ok=True)
    tasks = unique_prompts(load_tasks(stream))
    prompts_file = (ctx.shared or out) / "prompts.jsonl"
    prompts_file.parent.mkdir(parents=True, exist_ok=True)
    with atomic_open(prompts_file) as fh:
        fh.writelines(task.to_json() + "\n" for task in tasks)
    group = int(rl.budget["completions_per_prompt"])
    temperature = float(options["temperature"] if options["temperature"] is not None else recipe.training.temperature)
    t0 = time.time()
    sampled = ctx.evaluator.sample("rft/samples", f"the warm-started model on RL's {len(tasks)} prompts", ctx.start_model,
                                   None, samples=group, temperature=temperature, top_p=float(options["top_p"]),
                                   tasks_file=prompts_file, max_new_tokens=int(recipe.training.max_completion_length),
                                   folder=ctx.shared / "samples" if ctx.shared else None)
    records = sampled.records
    rows = verified_rows(tasks, records, options["max_per_prompt"])
    sampling_seconds = time.time() - t0
    steps = int(rl.budget["steps"])
    per_step = max(1, int(rl.budget["trained_completions"]) // max(steps, 1))
    generated = sum(int(r.get("n_tokens") or 0) for rec in records for r in rec["rollouts"])
    budget: dict[str, Any] = {"steps": 0, "rows_per_step": min(per_step, len(rows)), "sampled_prompts": len(tasks),
                              "sampled_completions": len(tasks) * group, "kept_rows": len(rows),
                              "keep_rate": round(len(rows) / max(1, len(tasks) * group), 4), "temperature": temperature,
                              "learning_rate": float(options["learning_rate"]), "generated_tokens": generated,
                              "trained_completions": 0, "trained_tokens": 0, "skipped_steps": [], "sampling_seconds": round(sampling_seconds, 1)}
    say(f"RFT arm: kept {len(rows)} of {len(tasks) * group} sampled completions ({100 * budget['keep_rate']:.0f} %); "
        f"{steps} SFT steps x {budget['rows_per_step']} rows")
    if not rows or steps == 0:
        budget["seconds"] = round(time.time() - t0, 1)
        ctx.evaluator.seconds["rft"] = budget["seconds"]
        return ArmRun("rft", None, budget)
    sft = replace(recipe.sft, sft_steps=steps, sft_train_size=len(rows), sft_batch_size=budget["rows_per_step"],
                  sft_gradient_accumulation_steps=1, sft_learning_rate=float(options["learning_rate"]),
                  sft_lr_scheduler_type=str(options["lr_scheduler_type"]), sft_warmup_steps=int(options["warmup_steps"]),
                  sft_output_dir=str(out))
    callbacks = console_callbacks(recipe.task.console, str(out), steps, sft.sft_logging_steps, keys=SFT_KEYS, desc="rft",
                                  every=max(1, steps // 4))
    result = run_sft(ctx.start_model, Dataset.from_list(rows), sft, output_dir=str(out),
                     peft_config=lora_config(recipe.model, recipe.adapter.lora_layers),
                     use_cpu=bool(getattr(recipe.training, "use_cpu", False)),
                     cpu_bf16=bool(getattr(recipe.training, "bf16", False)), seed=int(getattr(recipe.training, "seed", 0)),
                     merge=False, config_overrides={NEW_CHECKPOINTING: recipe_checkpointing(recipe.training)},
                     callbacks=callbacks)
    budget.update(steps=result.steps, trained_completions=result.steps * budget["rows_per_step"],
                  trained_tokens=result.num_tokens, skipped_steps=result.skipped_steps, seconds=round(time.time() - t0, 1))
    ctx.evaluator.seconds["rft"] = budget["seconds"]
    return ArmRun("rft", result.adapter_dir, budget, result)
