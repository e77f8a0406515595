"""Build and run a TRL GRPO/RLOO trainer from parsed recipe arguments.

The same code runs in one process or under ``accelerate launch``/``torchrun``: TRL's samplers give
every rank a disjoint slice of each generation batch, rewards are gathered across ranks before the
group advantages are computed, and only the main process writes checkpoints.
"""
from __future__ import annotations

import copy
import importlib.util
import json
import logging
import os
import time
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Sequence

from rlvr.files import atomic_open
from rlvr.models import load_tokenizer, quiet_checkpointing_aliases, resolve_model
from rlvr.train.compact_head import compact_trainer_heads
from rlvr.train.config import TaskArguments
from rlvr.train.curriculum import Curriculum
from rlvr.train.data import build_eval_sets, build_sampler, build_train_dataset
from rlvr.train.dynamic import DynamicSamplingConfig, SamplingHooks
from rlvr.train.lora import AdapterArguments, lora_config
from rlvr.train.merged_generation import MergedGenerationHooks, can_merge_generation
from rlvr.train.plots import plot_training_curve
from rlvr.train.rewards import resolve_reward_funcs

log = logging.getLogger(__name__)

#: the file in a run's output folder that lists its prompt stream (:func:`write_prompt_stream`)
PROMPT_STREAM = "prompts.jsonl"
#: ``resume_from_checkpoint`` values meaning "the newest checkpoint in output_dir"
RESUME_LAST = {"last", "latest", "auto", "true", "yes", "1"}


@dataclass
class TrainResult:
    """What a finished run reports (also written to ``output_dir/run_info.json``)."""

    output_dir: str
    algorithm: str
    model: str
    global_step: int
    world_size: int
    seconds: float
    seconds_per_step: float
    final_dir: str | None
    resumed_from: str | None
    last_train_log: dict[str, Any] = field(default_factory=dict)
    eval_metrics: dict[str, Any] = field(default_factory=dict)
    #: completion tokens generated over the run (drawn and resampled groups; this process), None where not counted
    generated_tokens: int | None = None
    #: optimizer steps skipped for non-finite gradients (:class:`~rlvr.train.callbacks.NonFiniteGradCallback`)
    skipped_steps: list[int] = field(default_factory=list)
    #: the trainer, kept alive after a multi-process run (see :func:`train`); not reported
    keepalive: Any = field(default=None, repr=False, compare=False)

    def to_dict(self) -> dict[str, Any]:
        return {f.name: copy.deepcopy(getattr(self, f.name)) for f in fields(self) if f.name != "keepalive"}


def greedy_generation_config(config: Any) -> Any:
    """A copy of a sampling ``GenerationConfig`` that decodes greedily (the eval setting; the original is unchanged)."""
    greedy = copy.deepcopy(config)
    greedy.do_sample = False
    for name in ("temperature", "top_p", "top_k", "min_p"):
        if hasattr(greedy, name):
            setattr(greedy, name, None)
    return greedy


def _named_eval_trainer(base: type) -> type:
    """A subclass of a TRL trainer whose eval metrics carry the eval-set name.

    TRL logs generation metrics (reward, per-function rewards, lengths) of every eval set as
    ``eval_reward``; with a dict of eval sets they would be indistinguishable. Here they become
    ``eval_<name>_reward`` etc., next to transformers' own ``eval_<name>_loss``. With transformers
    generation, evaluation decodes greedily (:func:`greedy_generation_config`); with
    :func:`one_completion_per_eval_prompt`, each eval prompt gets one completion.
    """

    class NamedEvalTrainer(MergedGenerationHooks, SamplingHooks, base):  # type: ignore[misc, valid-type]
        _rlvr_eval_prefix: str | None = None

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            # CPU: the loss scores completion tokens only (rlvr.train.compact_head)
            compact_trainer_heads(self, temperature=float(getattr(self, "temperature", 1.0)),
                                  outputs=("log_probs", "entropy"))

        def evaluate(self, eval_dataset=None, ignore_keys=None, metric_key_prefix: str = "eval"):
            previous = self._rlvr_eval_prefix
            self._rlvr_eval_prefix = metric_key_prefix
            sampling = getattr(self, "generation_config", None)
            if sampling is not None:  # transformers generation: eval decodes greedily
                self.generation_config = greedy_generation_config(sampling)
            try:
                return super().evaluate(eval_dataset=eval_dataset, ignore_keys=ignore_keys, metric_key_prefix=metric_key_prefix)
            finally:
                self._rlvr_eval_prefix = previous
                if sampling is not None:
                    self.generation_config = sampling

        def log(self, logs: dict[str, float], start_time: float | None = None) -> None:
            prefix = self._rlvr_eval_prefix
            if not self.model.training and prefix and prefix.startswith("eval_"):
                name = prefix[len("eval_"):]
                metrics = self._metrics["eval"]
                renamed = {f"{name}_{key}": values for key, values in metrics.items()}
                metrics.clear()
                metrics.update(renamed)
            super().log(logs, start_time)

    NamedEvalTrainer.__name__ = f"Rlvr{base.__name__}"
    NamedEvalTrainer.__qualname__ = NamedEvalTrainer.__name__
    return NamedEvalTrainer


def trainer_class(algorithm: str) -> type:
    """The TRL trainer class (with named eval metrics) for ``algorithm``."""
    from trl import GRPOTrainer, RLOOTrainer

    return _named_eval_trainer(GRPOTrainer if algorithm == "grpo" else RLOOTrainer)


def check_gpu_only_options(training_args: Any) -> None:
    """Fail early, in one sentence (a user's mistake: ``ValueError``), on options that need hardware or packages this
    run lacks (the device was decided when the recipe was parsed: ``use_cpu`` is set off an accelerator).

    An FSDP launch (``accelerate launch --config_file recipes/accelerate/fsdp.yaml``, or the ``fsdp`` training
    argument) on CPU is refused too: accelerate 1.x has no CPU FSDP and runs such a launch as plain DDP, so the run
    would not be the one asked for."""
    on_cpu = bool(getattr(training_args, "use_cpu", False))
    if getattr(training_args, "use_vllm", False):
        if importlib.util.find_spec("vllm") is None:
            raise ValueError("use_vllm needs the vllm package (pip install 'rlvr-chem[vllm]') and a CUDA GPU")
        if on_cpu:
            raise ValueError("use_vllm needs a CUDA GPU; on CPU, leave use_vllm off (generation uses transformers)")
    if getattr(training_args, "deepspeed", None):
        if importlib.util.find_spec("deepspeed") is None:
            raise ValueError("a DeepSpeed config was given but deepspeed is not installed (pip install 'rlvr-chem[deepspeed]')")
        if on_cpu:
            raise ValueError("DeepSpeed ZeRO needs a GPU; on CPU use DDP (accelerate launch --config_file "
                             "recipes/accelerate/cpu_ddp.yaml)")
    if on_cpu and (fsdp_launch() or getattr(training_args, "fsdp", None)):
        raise ValueError("FSDP needs a CUDA GPU: on CPU accelerate runs an FSDP launch as plain DDP; use "
                         "recipes/accelerate/cpu_ddp.yaml for several CPU processes")


def fsdp_launch() -> bool:
    """Whether ``accelerate launch`` started this process with an FSDP config (it sets ``ACCELERATE_USE_FSDP``)."""
    return os.environ.get("ACCELERATE_USE_FSDP", "").strip().lower() in ("1", "true", "yes")


def model_init_kwargs(training_args: Any, model_args: Any) -> dict[str, Any]:
    """Keyword arguments TRL uses to load the policy (and reference) model."""
    kwargs: dict[str, Any] = {
        "revision": model_args.model_revision,
        "trust_remote_code": getattr(training_args, "trust_remote_code", False),
        "attn_implementation": model_args.attn_implementation,
        "dtype": model_args.dtype or ("float32" if getattr(training_args, "use_cpu", False) else "auto"),
    }
    if isinstance(training_args.model_init_kwargs, dict):
        kwargs.update(training_args.model_init_kwargs)
    return {k: v for k, v in kwargs.items() if v is not None}


def resolve_resume(output_dir: str, resume: Any) -> str | None:
    """A checkpoint path for ``resume_from_checkpoint`` (``last``/``true`` -> newest in ``output_dir``)."""
    if resume in (None, False, "", "none", "false", "no", "0"):
        return None
    if isinstance(resume, bool) or str(resume).lower() in RESUME_LAST:
        from transformers.trainer_utils import get_last_checkpoint

        last = get_last_checkpoint(output_dir) if os.path.isdir(output_dir) else None
        if last is None:
            log.warning("resume requested but %s has no checkpoint; starting from scratch", output_dir)
        return last
    if not os.path.isdir(str(resume)):
        raise FileNotFoundError(f"resume_from_checkpoint: {resume} is not a checkpoint folder")
    return str(resume)


def skip_short_run_eval(training_args: Any) -> bool:
    """Turn evaluation off for a run shorter than ``eval_steps`` (and say so); True when it did.

    No scheduled evaluation falls inside such a run, and the one transformers adds after the last
    step would cost more than the run itself (a short ``--max_steps`` trial of a full recipe).
    """
    strategy = str(getattr(training_args, "eval_strategy", "no")).lower().split(".")[-1]
    max_steps = int(getattr(training_args, "max_steps", -1) or -1)
    eval_steps = getattr(training_args, "eval_steps", None) or getattr(training_args, "logging_steps", 0)
    if strategy != "steps" or max_steps <= 0 or not eval_steps or eval_steps < 1 or max_steps >= eval_steps:
        return False
    log.warning("evaluation skipped: max_steps %d is below eval_steps %d, so no scheduled evaluation falls in the "
                "run (set --eval_steps %d or less to evaluate)", max_steps, int(eval_steps), max_steps)
    current = training_args.eval_strategy
    training_args.eval_strategy = "no" if isinstance(current, str) else type(current)("no")
    return True


def one_completion_per_eval_prompt(training_args: Any) -> None:
    """Score one completion per eval prompt (``num_generations_eval = 1``) unless the recipe sets another count.

    The trainer would otherwise sample a whole group of ``num_generations`` completions for every eval
    prompt; an eval score needs one, so the evaluation generates ``num_generations`` times less.
    """
    if hasattr(training_args, "num_generations_eval") and getattr(training_args, "num_generations_eval", None) is None:
        training_args.num_generations_eval = 1


def build_trainer(
    task_args: TaskArguments,
    training_args: Any,
    model_args: Any,
    *,
    callbacks: Sequence[Any] = (),
    adapter: AdapterArguments | None = None,
) -> Any:
    """A ready-to-train TRL trainer for the recipe (model, tokenizer, datasets, rewards, LoRA on ``adapter``'s
    layers, callbacks; sampling from a merged copy with ``adapter.generate_merged``). An optimizer step whose
    gradients are not finite is skipped (:class:`~rlvr.train.callbacks.NonFiniteGradCallback`)."""
    from rlvr.train.callbacks import NonFiniteGradCallback  # imports transformers
    from rlvr.train.progress import use_compact_console

    check_gpu_only_options(training_args)
    model_path = resolve_model(model_args.model_name_or_path or "default")
    model_args.model_name_or_path = model_path
    tokenizer = load_tokenizer(model_path, revision=model_args.model_revision)
    training_args.model_init_kwargs = model_init_kwargs(training_args, model_args)
    curriculum = Curriculum.from_config(task_args.curriculum) if task_args.curriculum else None
    dynamic = DynamicSamplingConfig.from_mapping(task_args.dynamic_sampling)
    sampler = build_sampler(task_args, dynamic=dynamic is not None)
    # the guard last, so that it reads the gradients every other callback leaves
    guard = NonFiniteGradCallback()
    all_callbacks = [*task_callbacks(task_args, curriculum, sampler), *callbacks, guard]
    trainer = trainer_class(task_args.algorithm)(
        model=model_path,
        reward_funcs=resolve_reward_funcs(task_args.reward_funcs, reward_mode=task_args.reward_mode),
        args=training_args,
        train_dataset=build_train_dataset(task_args, training_args, curriculum=curriculum, sampler=sampler),
        eval_dataset=eval_dataset(task_args, training_args),
        processing_class=tokenizer,
        peft_config=lora_config(model_args, adapter.lora_layers if adapter else None, model_path),
        callbacks=all_callbacks,
    )
    trainer.rlvr_sampler = sampler
    trainer.rlvr_dynamic = dynamic
    trainer.rlvr_prompt_log = []
    trainer.rlvr_sampling_draw = task_args.sampling_draw
    trainer.rlvr_compact_decoding = bool(task_args.compact_decoding)
    trainer.rlvr_skipped_steps = guard.skipped  # the guard's own list: the steps it skips, as it skips them
    if adapter is not None and adapter.generate_merged:
        if not can_merge_generation(trainer):
            raise ValueError("generate_merged needs a LoRA adapter (use_peft), one process and no vLLM")
        trainer.rlvr_merged_generation = True
        trainer.rlvr_fixed_shape_generation = bool(adapter.compile_generation)
    use_compact_console(trainer, all_callbacks)
    return trainer


def eval_dataset(task_args: TaskArguments, training_args: Any) -> Any:
    """The trainer's eval sets when the recipe evaluates during training (None otherwise)."""
    skip_short_run_eval(training_args)
    strategy = str(getattr(training_args, "eval_strategy", "no")).lower().split(".")[-1]
    if strategy == "no":
        return None
    sets = build_eval_sets(task_args) or None
    if sets is None:
        raise ValueError("eval_strategy is set but no eval sets are configured (eval_splits / eval_sets)")
    one_completion_per_eval_prompt(training_args)
    return sets


def task_callbacks(task_args: TaskArguments, curriculum: Curriculum | None, sampler: Any) -> list[Any]:
    """rlvr's own callbacks of a run: the step timer, and the curriculum, frontier and time budget it asks for."""
    from rlvr.train.callbacks import (  # imports transformers
        CurriculumCallback,
        FrontierCallback,
        StepTimerCallback,
        TimeBudgetCallback,
    )

    out: list[Any] = [StepTimerCallback()]
    if curriculum is not None:
        out.append(CurriculumCallback(curriculum))
    if sampler is not None:
        out.append(FrontierCallback(sampler))
    if task_args.max_train_minutes > 0:
        out.append(TimeBudgetCallback(task_args.max_train_minutes))
    return out


def resumed_step(resume: str | None) -> int:
    """The global step of the checkpoint a run resumes from (0 for a fresh run)."""
    state_file = Path(resume) / "trainer_state.json" if resume else None
    if state_file is None or not state_file.is_file():
        return 0
    return int(json.loads(state_file.read_text()).get("global_step", 0))


def step_seconds(trainer: Any, output: Any, seconds: float, steps_run: int) -> float:
    """Mean seconds per optimizer step: the step timer's, else the run's time over its steps."""
    timer = next((c for c in trainer.callback_handler.callbacks if c.__class__.__name__ == "StepTimerCallback"), None)
    if timer is not None and timer.mean_step_seconds:
        return float(timer.mean_step_seconds)
    return float(output.metrics.get("train_runtime", seconds)) / steps_run


def write_run_info(out: Path, result: "TrainResult", history: Sequence[dict[str, Any]]) -> None:
    """``run_info.json`` and ``reward_curve.png`` in the run's folder (a plot that fails is logged, not raised)."""
    out.mkdir(parents=True, exist_ok=True)
    with atomic_open(out / "run_info.json") as fh:
        fh.write(json.dumps(result.to_dict(), indent=2, default=str))
    try:
        plot_training_curve(history, out / "reward_curve.png", title=f"{result.algorithm} {out.name}")
    except Exception:  # noqa: BLE001 - a plot must never fail a finished run
        log.warning("could not plot the reward curve", exc_info=True)


def write_prompt_stream(out: Path, records: Sequence[str]) -> Path | None:
    """``prompts.jsonl``: the task record of every group the run generated completions for, in order (this
    process's share; nothing is written for an empty stream)."""
    if not records:
        return None
    out.mkdir(parents=True, exist_ok=True)
    with atomic_open(out / PROMPT_STREAM) as fh:
        fh.writelines(record.strip() + "\n" for record in records if record.strip())
    return out / PROMPT_STREAM


def train(
    task_args: TaskArguments,
    training_args: Any,
    model_args: Any,
    *,
    callbacks: Sequence[Any] = (),
    adapter: AdapterArguments | None = None,
) -> TrainResult:
    """Run a recipe end to end: train (resuming if asked), save the final adapter/model, report
    (``adapter``: the recipe's :class:`~rlvr.train.lora.AdapterArguments`)."""
    requested_model = model_args.model_name_or_path or "default"
    resume = resolve_resume(training_args.output_dir, training_args.resume_from_checkpoint)
    training_args.resume_from_checkpoint = resume
    t0 = time.time()
    start_step = resumed_step(resume)
    with quiet_checkpointing_aliases():
        trainer = build_trainer(task_args, training_args, model_args, callbacks=callbacks, adapter=adapter)
        output = trainer.train(resume_from_checkpoint=resume)
    seconds = time.time() - t0
    final_dir = None
    if task_args.save_final_model:
        trainer.save_model(training_args.output_dir)
        final_dir = training_args.output_dir
    trainer.save_state()  # output_dir/trainer_state.json: the whole log history, past the last checkpoint
    history = trainer.state.log_history
    train_logs = [h for h in history if "reward" in h]
    eval_metrics: dict[str, Any] = {}
    for h in history:
        eval_metrics.update({k: v for k, v in h.items() if k.startswith("eval_")})
    per_step = step_seconds(trainer, output, seconds, max(trainer.state.global_step - start_step, 1))
    result = TrainResult(
        output_dir=str(training_args.output_dir),
        algorithm=task_args.algorithm,
        model=str(requested_model),
        global_step=int(trainer.state.global_step),
        world_size=int(trainer.accelerator.num_processes),
        seconds=round(seconds, 2),
        seconds_per_step=round(float(per_step), 3),
        final_dir=final_dir,
        resumed_from=resume,
        last_train_log=train_logs[-1] if train_logs else {},
        eval_metrics=eval_metrics,
        generated_tokens=int(getattr(trainer, "rlvr_generated_tokens", 0)) or None,
        skipped_steps=list(trainer.rlvr_skipped_steps),
    )
    if trainer.accelerator.is_main_process:
        write_run_info(Path(training_args.output_dir), result, history)
        write_prompt_stream(Path(training_args.output_dir), getattr(trainer, "rlvr_prompt_log", None) or [])
    _finish(trainer)
    if result.world_size > 1:
        # Keep the trainer (and its DDP-wrapped model) referenced: freeing a gloo process group from
        # Python can deadlock (the main thread holds the GIL in the destructor while a gloo worker
        # thread waits for it), so multi-process entry points end with os._exit (rlvr.train.entry).
        result.keepalive = trainer
    return result


def _finish(trainer: Any) -> None:
    """Close trackers (TRL's own scripts do the same at the end)."""
    end = getattr(trainer, "end", None)
    if callable(end):
        try:
            end()
        except Exception:  # noqa: BLE001 - best effort at shutdown
            log.debug("trainer.end() failed", exc_info=True)
