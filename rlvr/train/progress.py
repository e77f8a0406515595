"""Console and log output of a training run: one compact line every few steps, full metrics to a JSONL log.

TRL's default console output prints every step's whole metrics dict (dozens of keys). A run that
passes :class:`CompactProgress` gets instead a progress bar whose total is the real number of steps,
the measured step time and expected total after the first steps, and one line every ``every``
steps (step, reward, exact match, format, seconds per step), plus one line per evaluation.
:class:`JsonlMetricsLog` writes every log record once to ``<output_dir>/metrics.jsonl``; TensorBoard
(``report_to``) gets them as usual. :func:`console_callbacks` picks them for a run's ``console`` mode.
"""
from __future__ import annotations

import json
import math
import time
from pathlib import Path
from typing import Any, Callable, Sequence

from tqdm.auto import tqdm
from transformers import TrainerCallback

from rlvr.files import atomic_open
from rlvr.train.config import CONSOLE_MODES

#: log keys shown on the compact line: label -> candidate keys (first present wins)
COMPACT_KEYS: dict[str, tuple[str, ...]] = {
    "reward": ("reward",),
    "exact": ("rewards/exact_reward/mean", "rewards/exact_reward", "chem_reward/acc"),
    "format": ("rewards/format_reward/mean", "rewards/format_reward"),
}
#: the compact line of a supervised (SFT) run
SFT_KEYS: dict[str, tuple[str, ...]] = {"loss": ("loss",), "token accuracy": ("mean_token_accuracy",)}
#: where :func:`console_callbacks` logs every metric, in the run's output_dir
METRICS_FILE = "metrics.jsonl"


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


def eval_line(step: int, total: int, logs: dict[str, Any]) -> str | None:
    """``eval step 50/200  test_in reward 0.412  test_out reward 0.100`` from an eval record (None: no eval reward)."""
    parts = []
    for key, value in logs.items():
        if key.startswith("eval_") and key.endswith("reward") and "/" not in key and isinstance(value, (int, float)):
            name = key[len("eval_"):-len("reward")].rstrip("_")
            parts.append(f"{name + ' ' if name else ''}reward {float(value):.3f}")
    return "  ".join([f"eval step {step}/{total}", *parts]) if parts else None


def compact_every(max_steps: int, logging_steps: float) -> int:
    """Steps between compact lines: about ten lines a run, on logged steps (multiples of ``logging_steps``,
    which below 1 is a fraction of ``max_steps``, as in transformers)."""
    if 0 < logging_steps < 1 and max_steps > 0:
        logged = math.ceil(max_steps * logging_steps)
    else:
        logged = max(1, int(logging_steps or 1))
    target = max_steps // 10 if max_steps > 0 else 10 * logged
    return logged * max(1, round(target / logged))


def console_callbacks(console: str, output_dir: str | Path, max_steps: int, logging_steps: float, *,
                      keys: dict[str, tuple[str, ...]] = COMPACT_KEYS, desc: str = "training",
                      every: int | None = None) -> list[TrainerCallback]:
    """The callbacks of a run's ``console`` mode; both log every metric to ``<output_dir>/metrics.jsonl``.

    ``compact``: :class:`CompactProgress` (a line every ``every`` steps, by default
    :func:`compact_every`'s about ten a run) replaces transformers' metrics printing; ``full``:
    transformers/TRL print every metrics dict, as they do by default.
    """
    if console not in CONSOLE_MODES:
        raise ValueError(f"console must be one of {CONSOLE_MODES}, got {console!r}")
    callbacks: list[TrainerCallback] = [JsonlMetricsLog(Path(output_dir) / METRICS_FILE)]
    if console == "compact":
        every = compact_every(int(max_steps), float(logging_steps)) if every is None else every
        callbacks.insert(0, CompactProgress(every=every, keys=keys, desc=desc))
    return callbacks


def use_compact_console(trainer: Any, callbacks: Sequence[Any]) -> None:
    """Remove transformers' progress and printer callbacks from ``trainer`` when one of ``callbacks`` replaces
    them (``replaces_console``, as :class:`CompactProgress` does): they print every metrics dict."""
    if any(getattr(cb, "replaces_console", False) for cb in callbacks):
        from transformers.trainer_callback import PrinterCallback, ProgressCallback

        trainer.remove_callback(ProgressCallback)
        trainer.remove_callback(PrinterCallback)


class CompactProgress(TrainerCallback):
    """A step-counting progress bar, a compact metrics line every ``every`` steps and one per evaluation.

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
        remaining = max(0, int(state.max_steps) - int(state.global_step))
        if state.is_world_process_zero and not self._eta_said and done >= self.eta_after and remaining:
            sps = self.seconds_per_step(int(state.global_step))
            if sps is not None:
                self._say(f"measured {sps:.1f} s/step over {done} steps: about {remaining * sps / 60:.1f} min "
                          f"for the remaining {remaining} of {int(state.max_steps)} steps")
                self._eta_said = True

    def on_log(self, args, state, control, logs=None, **kwargs):
        step, total = int(state.global_step), int(state.max_steps)
        if not state.is_world_process_zero or not logs:
            return
        evaluated = eval_line(step, total, logs)
        if evaluated is not None:
            self._say(evaluated)
        elif any(k in logs for ks in self.keys.values() for k in ks) and (step % self.every == 0 or step == total):
            self._say(compact_line(step, total, logs, self.seconds_per_step(step), self.keys))

    def on_train_end(self, args, state, control, **kwargs):
        if self._bar is not None:
            self._bar.close()
            self._bar = None


class JsonlMetricsLog(TrainerCallback):
    """Appends every log record (step + metrics, each key once) to ``path`` as one JSON line.

    At the start of training, records of steps past the starting step (a fresh run: all; a resumed
    run: those after its checkpoint, about to be redone) are dropped, so the file holds one history.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)

    def on_train_begin(self, args, state, control, **kwargs):
        if not state.is_world_process_zero or not self.path.is_file():
            return
        start = int(state.global_step)
        lines = self.path.read_text(encoding="utf-8").splitlines()
        kept = [line for line in lines if start and _record_step(line) <= start]
        if len(kept) != len(lines):
            with atomic_open(self.path) as fh:
                fh.write("".join(line + "\n" for line in kept))

    def on_log(self, args, state, control, logs=None, **kwargs):
        if not state.is_world_process_zero or not logs:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        record = {"step": int(state.global_step), **{k: v for k, v in logs.items() if isinstance(v, (int, float, str))}}
        with self.path.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(record, sort_keys=True) + "\n")


def _record_step(line: str) -> int:
    """The step of one metrics.jsonl line (an unreadable line counts as past every step)."""
    try:
        return int(json.loads(line)["step"])
    except (ValueError, KeyError, TypeError):
        return 1 << 62
