"""SFT cold start on worked solutions, then GRPO/RLOO from it, in one command (``rlvr sft``).

Small models given a strict verifiable reward often score zero on every completion, so every
group advantage is zero and RL learns nothing. A short supervised cold start on correct, reasoned
demonstrations fixes that; rlvr writes those demonstrations itself
(:func:`rlvr.solutions.worked_solution`, each one verified at reward 1.0).

Flow of :func:`train_with_cold_start`:

1. build ``sft_train_size`` prompt/completion rows (conversational) from the training split of the
   recipe's mixture (a task seed of its own, so the RL stream does not replay them);
2. train a LoRA adapter with TRL's ``SFTTrainer`` for ``sft_steps`` steps (loss on the completion
   only), saved to ``<sft_output_dir>/adapter``;
3. merge the adapter into the base weights (``<sft_output_dir>/merged``): this is the "after SFT"
   model, and GRPO's starting point *and* reference policy;
4. run the recipe's GRPO/RLOO (:func:`rlvr.train.runner.train`) from the merged model with a fresh
   LoRA adapter; ``sft_only: true`` stops after step 3.

Recipes are the usual training recipes plus ``sft_*`` keys (:class:`~rlvr.train.sft_data.SFTArguments`),
parsed with TRL's ``TrlParser`` so every option is also a command-line override. The rows are built
in :mod:`rlvr.train.sft_data`.
"""
from __future__ import annotations

import json
import logging
import os
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Sequence

from rlvr.files import atomic_open
from rlvr.models import load_tokenizer, quiet_checkpointing_aliases, resolve_model
from rlvr.train.checkpointing import NEW as NEW_CHECKPOINTING
from rlvr.train.checkpointing import OLD as OLD_CHECKPOINTING
from rlvr.train.checkpointing import checkpointing_kwargs, recipe_checkpointing
from rlvr.train.compact_head import compact_trainer_heads
from rlvr.train.config import TaskArguments
from rlvr.train.entry import check_families, prepare_argv, run_callbacks
from rlvr.train.lora import AdapterArguments, lora_config
from rlvr.train.recipe import parse_recipe
from rlvr.train.runner import train
from rlvr.train.sft_data import (SFTArguments, SFTDatasetStats, build_sft_dataset, check_solution_writers, sft_mixture,
                                  sft_rows, sft_seed)

log = logging.getLogger(__name__)

USAGE = """usage: rlvr sft --config RECIPE.yaml [--KEY VALUE ...]

SFT cold start (LoRA, TRL SFTTrainer) on verified worked solutions from the training split, merged
into the base model, then GRPO/RLOO from it. A recipe holds the usual training keys (TaskArguments,
GRPOConfig/RLOOConfig, ModelConfig; see `rlvr train`) plus sft_* keys (sft_steps, sft_train_size,
sft_style, sft_learning_rate, sft_batch_size, sft_only, ...). RECIPE may be a name under ./recipes
(e.g. sft/stoich_t1_formula). --plugin MODULE_OR_FILE (repeatable) imports a module that registers
task families first (docs/writing-a-family.md); every SFT family needs a worked-solution writer.
Full option list: rlvr sft --config RECIPE.yaml --help
"""


@dataclass
class SFTResult:
    """What a cold start reports (also written to ``<sft_output_dir>/sft_info.json``)."""

    output_dir: str
    adapter_dir: str | None
    merged_dir: str | None
    base_model: str
    steps: int
    seconds: float
    train_loss: float | None
    first_loss: float | None
    last_loss: float | None
    dataset: dict[str, Any]
    #: tokens the trainer counted over the run (prompt and completion; TRL's ``num_tokens``), None where not logged
    num_tokens: int | None = None
    #: optimizer steps skipped for non-finite gradients (:class:`~rlvr.train.callbacks.NonFiniteGradCallback`)
    skipped_steps: list[int] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def make_sft_config(sft_args: SFTArguments, output_dir: str, *, use_cpu: bool, seed: int = 0, cpu_bf16: bool = False,
                    **overrides: Any) -> Any:
    """TRL ``SFTConfig`` for the cold start (completion-only loss, no checkpoints, CPU-aware: float32 weights,
    in bfloat16 autocast with ``cpu_bf16``)."""
    from trl import SFTConfig

    kwargs: dict[str, Any] = dict(
        output_dir=output_dir,
        max_steps=int(sft_args.sft_steps),
        per_device_train_batch_size=int(sft_args.sft_batch_size),
        gradient_accumulation_steps=int(sft_args.sft_gradient_accumulation_steps),
        learning_rate=float(sft_args.sft_learning_rate),
        lr_scheduler_type=sft_args.sft_lr_scheduler_type,
        warmup_steps=int(sft_args.sft_warmup_steps),
        logging_steps=int(sft_args.sft_logging_steps),
        max_length=int(sft_args.sft_max_length),
        completion_only_loss=True,
        save_strategy="no",
        report_to=list(sft_args.sft_report_to or []),
        seed=int(seed),
        use_cpu=bool(use_cpu),
        bf16=bool(cpu_bf16) if use_cpu else None,
        dataset_num_proc=None,
        model_init_kwargs={"dtype": "float32"} if use_cpu else None,
    )
    kwargs = {k: v for k, v in kwargs.items() if v is not None}
    if sft_args.sft_group_by_length:
        kwargs.update(group_by_length_kwargs(SFTConfig))
    enabled = overrides.pop(OLD_CHECKPOINTING, None)
    kwargs.update(checkpointing_kwargs(SFTConfig, overrides.pop(NEW_CHECKPOINTING, enabled)))
    kwargs.update(overrides)
    return SFTConfig(**kwargs)


def group_by_length_kwargs(config_cls: type) -> dict[str, Any]:
    """The config keyword that batches rows by length: ``train_sampling_strategy="group_by_length"`` (newer
    transformers) or ``group_by_length=True`` (older ones); ValueError where the config has neither."""
    fields = getattr(config_cls, "__dataclass_fields__", {})
    if "train_sampling_strategy" in fields:
        return {"train_sampling_strategy": "group_by_length"}
    if "group_by_length" in fields:
        return {"group_by_length": True}
    raise ValueError(f"sft_group_by_length: {config_cls.__name__} has no length-grouped sampling in this transformers")


def merge_adapter(model: Any, tokenizer: Any, out_dir: str) -> str:
    """Merge a trained PEFT model into its base weights and save model + tokenizer to ``out_dir``."""
    merged = model.merge_and_unload() if hasattr(model, "merge_and_unload") else model
    target = Path(out_dir)
    target.mkdir(parents=True, exist_ok=True)
    merged.save_pretrained(str(target))
    tokenizer.save_pretrained(str(target))
    return str(target)


def run_sft(
    model_path: str,
    dataset: Any,
    sft_args: SFTArguments,
    *,
    output_dir: str,
    peft_config: Any = None,
    use_cpu: bool = True,
    cpu_bf16: bool = False,
    seed: int = 0,
    merge: bool = True,
    dataset_stats: SFTDatasetStats | None = None,
    config_overrides: dict[str, Any] | None = None,
    callbacks: Sequence[Any] = (),
) -> SFTResult:
    """Train ``model_path`` on ``dataset`` with ``SFTTrainer``; save the adapter and (``merge``) the merged model.

    ``callbacks`` are added to the trainer's; one with ``replaces_console`` (e.g.
    :class:`~rlvr.train.progress.CompactProgress`) replaces transformers' per-step metrics printing.
    An optimizer step whose gradients are not finite is skipped (:class:`~rlvr.train.callbacks.NonFiniteGradCallback`).
    """
    from trl import SFTTrainer

    from rlvr.train.callbacks import NonFiniteGradCallback  # imports transformers
    from rlvr.train.progress import use_compact_console

    t0 = time.time()
    tokenizer = load_tokenizer(model_path)
    config = make_sft_config(sft_args, output_dir, use_cpu=use_cpu, seed=seed, cpu_bf16=cpu_bf16,
                             **(config_overrides or {}))
    guard = NonFiniteGradCallback()
    with quiet_checkpointing_aliases():
        trainer = SFTTrainer(model=model_path, args=config, train_dataset=dataset, processing_class=tokenizer,
                             peft_config=peft_config, callbacks=[*callbacks, guard])
        compact_trainer_heads(trainer, outputs=("log_probs", "entropy", "is_top1"))  # CPU: completion tokens only
        use_compact_console(trainer, callbacks)
        output = trainer.train()
    adapter_dir, merged_dir = save_sft_outputs(trainer, tokenizer, Path(output_dir), adapter=peft_config is not None,
                                               merge=merge)
    losses = [h["loss"] for h in trainer.state.log_history if "loss" in h]
    result = SFTResult(
        output_dir=str(output_dir),
        adapter_dir=adapter_dir,
        merged_dir=merged_dir,
        base_model=str(model_path),
        steps=int(trainer.state.global_step),
        seconds=round(time.time() - t0, 2),
        train_loss=float(output.training_loss) if output.training_loss is not None else None,
        first_loss=float(losses[0]) if losses else None,
        last_loss=float(losses[-1]) if losses else None,
        dataset=asdict(dataset_stats) if dataset_stats is not None else {},
        num_tokens=last_logged(trainer.state.log_history, "num_tokens"),
        skipped_steps=list(guard.skipped),
    )
    if trainer.accelerator.is_main_process:
        with atomic_open(Path(output_dir) / "sft_info.json") as fh:
            fh.write(json.dumps(result.to_dict(), indent=2))
    return result


def save_sft_outputs(trainer: Any, tokenizer: Any, output_dir: Path, *, adapter: bool,
                     merge: bool) -> tuple[str | None, str | None]:
    """Save the trained adapter (``<output_dir>/adapter``) and, with ``merge``, the merged model
    (``<output_dir>/merged``); returns both folders (None where not written)."""
    accelerator = trainer.accelerator
    adapter_dir = str(output_dir / "adapter") if adapter else None
    merged_dir = str(output_dir / "merged") if merge else None
    if adapter_dir is not None:
        trainer.save_model(adapter_dir)  # every rank calls it (sharded backends need that); rank 0 writes
    if merged_dir is not None and accelerator.is_main_process:
        merge_adapter(accelerator.unwrap_model(trainer.model), tokenizer, merged_dir)
    accelerator.wait_for_everyone()
    return adapter_dir, merged_dir


def last_logged(history: Sequence[dict[str, Any]], key: str) -> int | None:
    """The last value of ``key`` in a trainer's log history, as an int (None where it was never logged)."""
    values = [h[key] for h in history if h.get(key) is not None]
    return int(values[-1]) if values else None


def sft_output_dir(sft_args: SFTArguments, training_args: Any) -> str:
    """Where the cold start writes its adapter, merged model and logs (``sft_output_dir``, else ``<output_dir>/sft``)."""
    return sft_args.sft_output_dir or str(Path(training_args.output_dir) / "sft")


def cold_start(task_args: TaskArguments, sft_args: SFTArguments, training_args: Any, model_args: Any,
               *, callbacks: Sequence[Any] = ()) -> SFTResult:
    """Steps 1-3: SFT rows from the recipe's training split, LoRA SFT, merge (see the module docstring)."""
    base = resolve_model(model_args.model_name_or_path or "default")
    out = sft_output_dir(sft_args, training_args)
    dataset, stats = build_sft_dataset(
        sft_mixture(task_args, sft_args),
        sft_args.sft_train_size,
        split=sft_args.sft_split,
        seed=sft_seed(task_args, sft_args),
        style=sft_args.sft_style,
        max_chars=sft_args.sft_max_chars,
        max_answer_share=sft_args.sft_max_answer_share,
    )
    log.info("SFT cold start: %d rows (%s), %d skipped, %d passed over for sft_max_answer_share, mean %.0f chars",
             stats.rows, stats.by_family, stats.skipped, stats.capped, stats.mean_completion_chars)
    return run_sft(
        base,
        dataset,
        sft_args,
        output_dir=out,
        peft_config=lora_config(model_args, sft_args.sft_lora_layers, base, "sft_lora_layers"),
        use_cpu=bool(getattr(training_args, "use_cpu", False)),
        cpu_bf16=bool(getattr(training_args, "bf16", False)),
        seed=int(getattr(training_args, "seed", 0)),
        merge=True,
        dataset_stats=stats,
        config_overrides={NEW_CHECKPOINTING: recipe_checkpointing(training_args)},
        callbacks=callbacks,
    )


def train_with_cold_start(task_args: TaskArguments, sft_args: SFTArguments, training_args: Any, model_args: Any, *,
                          sft_callbacks: Sequence[Any] = (), callbacks: Sequence[Any] = (),
                          adapter: AdapterArguments | None = None) -> tuple[SFTResult | None, Any]:
    """SFT cold start (unless ``sft_steps == 0``), then the recipe's RL from the merged model (unless ``sft_only``).

    ``sft_callbacks`` go to the SFT trainer, ``callbacks`` to the RL trainer; ``adapter`` places the RL adapter.
    """
    sft_result = None
    if sft_args.sft_steps > 0:
        sft_result = cold_start(task_args, sft_args, training_args, model_args, callbacks=sft_callbacks)
        model_args.model_name_or_path = sft_result.merged_dir
    if sft_args.sft_only:
        return sft_result, None
    return sft_result, train(task_args, training_args, model_args, callbacks=callbacks, adapter=adapter)


def sft_console_callbacks(task_args: TaskArguments, sft_args: SFTArguments, training_args: Any) -> list[Any]:
    """The cold start's console and metrics-log callbacks (the recipe's ``console`` mode; loss and token accuracy)."""
    from rlvr.train.progress import SFT_KEYS, console_callbacks  # imports transformers

    return console_callbacks(task_args.console, sft_output_dir(sft_args, training_args), int(sft_args.sft_steps),
                             float(sft_args.sft_logging_steps), keys=SFT_KEYS, desc="sft")


# ---------------------------------------------------------------------------------------------
# entry point
# ---------------------------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None, prog: str = "rlvr sft") -> int:
    """Parse a recipe, run the cold start and the RL, print a one-line JSON summary (main process)."""
    args = prepare_argv(argv, USAGE)
    if args is None:
        return 0
    recipe = parse_recipe(args, prog=prog)
    task_args, sft_args, training_args, model_args = recipe.task, recipe.sft, recipe.training, recipe.model
    check_families(task_args)  # before any model is converted or loaded
    if sft_args.sft_steps > 0:
        check_solution_writers(c.family for c in sft_mixture(task_args, sft_args))
    sft_result, rl_result = train_with_cold_start(
        task_args, sft_args, training_args, model_args,
        sft_callbacks=sft_console_callbacks(task_args, sft_args, training_args) if sft_args.sft_steps > 0 else (),
        callbacks=run_callbacks(task_args, training_args), adapter=recipe.adapter,
    )
    if int(os.environ.get("RANK", "0") or 0) == 0:
        summary: dict[str, Any] = {"output_dir": training_args.output_dir}
        if sft_result is not None:
            summary["sft"] = {k: sft_result.to_dict()[k] for k in ("merged_dir", "steps", "seconds", "first_loss", "last_loss")}
        if rl_result is not None:
            rl = rl_result.to_dict()
            summary["rl"] = {k: rl[k] for k in ("algorithm", "global_step", "seconds", "seconds_per_step")}
            summary["rl"]["train_reward"] = rl_result.last_train_log.get("reward")
        print(json.dumps(summary))
    return 0


if __name__ == "__main__":  # pragma: no cover - python -m rlvr.train.sft
    sys.exit(main())


__all__ = [
    "SFTArguments", "SFTDatasetStats", "SFTResult", "build_sft_dataset", "cold_start", "lora_config", "main",
    "make_sft_config", "merge_adapter", "run_sft", "sft_console_callbacks",
    "sft_output_dir", "sft_rows", "train_with_cold_start",
]
