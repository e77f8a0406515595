"""Trainer callbacks: step timing, the reward-driven curriculum, the frontier sampler's state, the time budget and
the guard that skips an optimizer step whose gradients are not finite."""
from __future__ import annotations

import json
import logging
import time
from pathlib import Path
from typing import Any

from transformers import TrainerCallback

from rlvr.files import atomic_open
from rlvr.train.curriculum import Curriculum

log = logging.getLogger(__name__)

CURRICULUM_STATE_FILE = "rlvr_curriculum.json"
FRONTIER_STATE_FILE = "rlvr_frontier.json"


def _annotate(state: Any, logs: dict[str, Any], **values: Any) -> None:
    """Add values to the current log record (the trainer appended it to log_history before callbacks run)."""
    logs.update(values)
    if state.log_history:
        state.log_history[-1].update(values)


class StepTimerCallback(TrainerCallback):
    """Measures wall-clock seconds per optimizer step (for the run summary; TRL logs ``step_time`` itself)."""

    def __init__(self) -> None:
        self._t_step: float | None = None
        self.durations: list[float] = []

    def on_step_begin(self, args, state, control, **kwargs):
        self._t_step = time.perf_counter()

    def on_step_end(self, args, state, control, **kwargs):
        if self._t_step is not None:
            d = time.perf_counter() - self._t_step
            self.durations.append(d)
            self._t_step = None

    @property
    def mean_step_seconds(self) -> float | None:
        """Mean seconds per step over the run (the first step, which warms up, excluded when possible)."""
        d = self.durations[1:] if len(self.durations) > 1 else self.durations
        return sum(d) / len(d) if d else None


class CurriculumCallback(TrainerCallback):
    """Feeds train logs to a :class:`Curriculum`, logs its level and saves it with each checkpoint."""

    def __init__(self, curriculum: Curriculum) -> None:
        self.curriculum = curriculum

    def on_train_begin(self, args, state, control, **kwargs):
        # resuming: the trainer has loaded trainer_state from the checkpoint; the level lives beside it
        resume = getattr(args, "resume_from_checkpoint", None)
        if resume and state.global_step > 0:
            path = Path(str(resume)) / CURRICULUM_STATE_FILE
            if path.is_file():
                self.curriculum.load_state_dict(json.loads(path.read_text()))
                log.info("curriculum resumed at level %d (%s=%r)", self.curriculum.level, self.curriculum.option, self.curriculum.value)

    def on_log(self, args, state, control, logs: dict[str, Any] | None = None, **kwargs):
        if logs is None or any(k.startswith("eval_") for k in logs):
            return
        level = self.curriculum.level  # the level the logged step trained at
        if self.curriculum.observe(logs, state.global_step):
            log.info(
                "curriculum: step %d -> level %d (%s=%r)",
                state.global_step, self.curriculum.level, self.curriculum.option, self.curriculum.value,
            )
        _annotate(state, logs, curriculum_level=level)

    def on_save(self, args, state, control, **kwargs):
        if not state.is_world_process_zero:
            return
        ckpt = Path(args.output_dir) / f"checkpoint-{state.global_step}"
        if ckpt.is_dir():
            (ckpt / CURRICULUM_STATE_FILE).write_text(json.dumps(self.curriculum.state_dict()))


class FrontierCallback(TrainerCallback):
    """Saves the frontier sampler's cell statistics with each checkpoint (and restores them on resume),
    and writes ``frontier.json`` (per-cell outcomes, rates, weights and draws) at the end of training."""

    def __init__(self, sampler: Any) -> None:
        self.sampler = sampler

    def on_train_begin(self, args, state, control, **kwargs):
        resume = getattr(args, "resume_from_checkpoint", None)
        if resume and state.global_step > 0:
            path = Path(str(resume)) / FRONTIER_STATE_FILE
            if path.is_file():
                self.sampler.load_state_dict(json.loads(path.read_text()))

    def on_save(self, args, state, control, **kwargs):
        if not state.is_world_process_zero:
            return
        ckpt = Path(args.output_dir) / f"checkpoint-{state.global_step}"
        if ckpt.is_dir():
            (ckpt / FRONTIER_STATE_FILE).write_text(json.dumps(self.sampler.state_dict()))

    def on_train_end(self, args, state, control, **kwargs):
        if not state.is_world_process_zero:
            return
        out = Path(args.output_dir)
        out.mkdir(parents=True, exist_ok=True)
        summary = {"cells": self.sampler.policy.summary(), "drawn_by_cell": dict(sorted(self.sampler.drawn_by_cell.items())),
                   "config": vars(self.sampler.config)}
        with atomic_open(out / "frontier.json") as fh:
            fh.write(json.dumps(summary, indent=2) + "\n")


class TimeBudgetCallback(TrainerCallback):
    """Stops training (and saves) once ``minutes`` of wall-clock training time have passed."""

    def __init__(self, minutes: float) -> None:
        if minutes <= 0:
            raise ValueError("time budget must be > 0 minutes")
        self.seconds = float(minutes) * 60.0
        self._t0: float | None = None
        self.stopped_at: int | None = None

    def on_train_begin(self, args, state, control, **kwargs):
        self._t0 = time.perf_counter()

    def on_step_end(self, args, state, control, **kwargs):
        if self._t0 is not None and time.perf_counter() - self._t0 >= self.seconds and not control.should_training_stop:
            control.should_training_stop = True
            control.should_save = args.save_strategy != "no"
            self.stopped_at = state.global_step
            log.info("time budget of %.1f min reached at step %d: stopping", self.seconds / 60, state.global_step)


class NonFiniteGradCallback(TrainerCallback):
    """Skips an optimizer step whose gradients hold a NaN or an infinity, instead of writing them into the weights.

    A single non-finite gradient (a bfloat16 overflow in one backward pass, say) otherwise turns every weight into
    NaN at the optimizer step, and the next sampled generation fails (on CUDA with a device-side assert). This
    callback runs after the gradients are clipped and before the step: where any gradient is not finite (on any
    process), it drops every gradient, so that the optimizer leaves the weights and its own state as they were,
    logs a warning, and records the step in the logs (``skipped_steps``, the count so far). ``max_in_a_row``
    skipped steps in a row stop the run with one line, since the weights are then not the problem. fp16 runs are
    left to their gradient scaler, which skips such steps itself.
    """

    def __init__(self, max_in_a_row: int = 3) -> None:
        if max_in_a_row < 1:
            raise ValueError("max_in_a_row must be >= 1")
        self.max_in_a_row = max_in_a_row
        self.skipped: list[int] = []
        self._in_a_row = 0

    def on_pre_optimizer_step(self, args, state, control, model=None, **kwargs):
        if model is None or getattr(args, "fp16", False):
            return
        grads = [p.grad for p in model.parameters() if p.grad is not None]
        if not all_finite(grads):
            bad = nonfinite_names(model)
            for p in model.parameters():
                p.grad = None
            step = state.global_step + 1
            self.skipped.append(step)
            self._in_a_row += 1
            where = f" in {len(bad)} of {len(grads)} tensors (first: {bad[0]})" if bad else " on another process"
            log.warning("step %d: non-finite gradients%s; the optimizer step is skipped (%d skipped so far)",
                        step, where, len(self.skipped))
            if self._in_a_row >= self.max_in_a_row:
                raise RuntimeError(f"training stopped: {self._in_a_row} optimizer steps in a row had non-finite "
                                   f"gradients (steps {', '.join(map(str, self.skipped[-self._in_a_row:]))})")
        else:
            self._in_a_row = 0

    def on_log(self, args, state, control, logs: dict[str, Any] | None = None, **kwargs):
        if logs is not None and self.skipped and not any(k.startswith("eval_") for k in logs):
            _annotate(state, logs, skipped_steps=len(self.skipped))


def nonfinite_names(model: Any) -> list[str]:
    """The names of ``model``'s parameters whose gradient (this process's shard) holds a NaN or an infinity."""
    import torch

    out = []
    for name, p in model.named_parameters():
        if p.grad is not None:
            g = p.grad.to_local() if hasattr(p.grad, "to_local") else p.grad
            if not bool(torch.isfinite(g).all()):
                out.append(name)
    return out


def all_finite(grads: list[Any]) -> bool:
    """Whether every tensor of ``grads`` has a finite norm, on every process: false for a NaN or an infinity, and
    for a norm that overflows its dtype (which clipping could not use either). One device sync; a sharded gradient
    is read by its local shard, and the answer is reduced over the process group."""
    import torch
    import torch.distributed as dist

    local = [g.to_local() if hasattr(g, "to_local") else g for g in grads]
    device = local[0].device if local else torch.device("cpu")
    bad = torch.zeros((), dtype=torch.int32, device=device)
    by_device: dict[Any, list[Any]] = {}
    for g in local:
        by_device.setdefault((g.device, g.dtype), []).append(g)
    for group in by_device.values():  # one fused kernel per device and dtype: a norm is finite iff its tensor is
        norms = torch._foreach_norm(group)
        bad |= (~torch.isfinite(torch.stack([n.float() for n in norms]))).any().to(device=device, dtype=torch.int32)
    if dist.is_available() and dist.is_initialized() and dist.get_world_size() > 1:
        if dist.get_backend() == "nccl" and bad.device.type != "cuda":
            bad = bad.cuda()
        dist.all_reduce(bad, op=dist.ReduceOp.MAX)
    return not bool(bad.item())
