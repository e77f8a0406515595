"""Console and log output of a training run: one compact line every few steps, full metrics to a JSONL log.

TRL's default console output prints every step's whole metrics dict (dozens of keys). A run that
passes :class:`CompactProgress` gets instead a progress bar whose total is the real number of steps,
the measured step time and expected total after the first steps, and one line every ``every``
steps (step, reward, exact match, format, seconds per step). :class:`JsonlMetricsLog` writes every
log record once to ``<output_dir>/metrics.jsonl``; TensorBoard (``report_to``) gets them as usual.
"""
from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any, Callable

from tqdm.auto import tqdm
from transformers import TrainerCallback

#: log keys shown on the compact line: label -> candidate keys (first present wins)
COMPACT_KEYS: dict[str, tuple[str, ...]] = {
    "reward": ("reward",),
    "exact": ("rewards/exact_reward/mean", "rewards/exact_reward"),
    "format": ("rewards/format_reward/mean", "rewards/format_reward"),
}
#: the compact line of a supervised (SFT) run
SFT_KEYS: dict[str, tuple[str, ...]] = {"loss": ("loss",), "token accuracy": ("mean_token_accuracy",)}


def compact_line(step: int, total: int, logs: dict[str, Any], seconds_per_step: float | None,
                 keys: dict[str, tuple[str, ...]] = COMPACT_KEYS) -> str:
    """``step 10/40  reward 0.412  exact 0.125  format 0.950  14.2 s/step`` from one log record."""
    parts = [f"step {step}/{total}"]
    for label, keys in keys.items():
        for key in keys:
            if isinstance(logs.get(key), (int, float)):
                parts.append(f"{label} {float(logs[key]):.3f}")
                break
    if seconds_per_step is not None:
        parts.append(f"{seconds_per_step:.1f} s/step")
    return "  ".join(parts)


class CompactProgress(TrainerCallback):
    """A step-counting progress bar and a compact metrics line every ``every`` steps.

    ``replaces_console`` tells :func:`rlvr.train.runner.build_trainer` to remove transformers'
    default progress and printer callbacks, which print every metrics dict.
    """

    replaces_console = True

    def __init__(self, every: int = 5, *, write: Callable[[str], None] | None = None, eta_after: int = 2,
                 keys: dict[str, tuple[str, ...]] = COMPACT_KEYS, desc: str = "training") -> None:
        self.every = max(1, int(every))
        self.keys = keys
        self.desc = desc
        self.eta_after = max(1, int(eta_after))
        self._write = write
        self._bar: Any = None
        self._t0: float | None = None
        self._start_step = 0
        self._eta_said = False

    def _say(self, text: str) -> None:
        if self._write is not None:
            self._write(text)
        elif self._bar is not None:
            self._bar.write(text)
        else:
            print(text, flush=True)

    def seconds_per_step(self, step: int) -> float | None:
        """Mean wall-clock seconds per step since training (or resumption) began."""
        done = step - self._start_step
        if self._t0 is None or done <= 0:
            return None
        return (time.perf_counter() - self._t0) / done

    def on_train_begin(self, args, state, control, **kwargs):
        self._t0 = time.perf_counter()
        self._start_step = int(state.global_step)
        if state.is_world_process_zero and not args.disable_tqdm:
            self._bar = tqdm(total=int(state.max_steps), initial=self._start_step, desc=self.desc, unit="step",
                             dynamic_ncols=True)

    def on_step_end(self, args, state, control, **kwargs):
        if self._bar is not None:
            self._bar.update(int(state.global_step) - self._bar.n)
        done = int(state.global_step) - self._start_step
        if state.is_world_process_zero and not self._eta_said and done >= self.eta_after:
            sps = self.seconds_per_step(int(state.global_step))
            if sps is not None:
                remaining = max(0, int(state.max_steps) - int(state.global_step))
                self._say(f"measured {sps:.1f} s/step over {done} steps: about {remaining * sps / 60:.1f} min "
                          f"for the remaining {remaining} of {int(state.max_steps)} steps")
                self._eta_said = True

    def on_log(self, args, state, control, logs=None, **kwargs):
        step = int(state.global_step)
        if not state.is_world_process_zero or not logs or not any(k in logs for ks in self.keys.values() for k in ks):
            return
        if step % self.every == 0 or step == int(state.max_steps):
            self._say(compact_line(step, int(state.max_steps), logs, self.seconds_per_step(step), self.keys))

    def on_train_end(self, args, state, control, **kwargs):
        if self._bar is not None:
            self._bar.close()
            self._bar = None


class JsonlMetricsLog(TrainerCallback):
    """Appends every log record (step + metrics, each key once) to ``path`` as one JSON line."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)

    def on_log(self, args, state, control, logs=None, **kwargs):
        if not state.is_world_process_zero or not logs:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        record = {"step": int(state.global_step), **{k: v for k, v in logs.items() if isinstance(v, (int, float, str))}}
        with self.path.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(record, sort_keys=True) + "\n")
