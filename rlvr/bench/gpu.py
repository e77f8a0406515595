"""``rlvr bench --gpu``: eval completions/s, GRPO seconds per step (generation and update) and accelerator use.

The measuring functions take a device and run anywhere (a CPU test runs them on a tiny model); the
command runs them on CUDA only. Every figure is measured on the reader's machine at run time.

- :func:`measure_eval`: greedy completions/s of :class:`~rlvr.eval.backends.hf.TransformersBackend`
  (merged weights, eval mode, KV cache, length-sorted batches), after one warm-up batch;
- :func:`measure_grpo`: a few real GRPO steps of a recipe; each step's seconds split into generation
  (TRL's timed ``generate`` blocks) and the rest (rewards, log-probabilities, loss, backward, optimizer);
- :class:`UtilisationSampler`: the accelerator's utilisation sampled in a thread while a measurement runs
  (``torch.cuda.utilization``, else pynvml, else ``unavailable``).
"""
from __future__ import annotations

import statistics
import tempfile
import threading
import time
from collections import defaultdict
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from typing import Any, Iterator, Sequence

from rlvr.datasets import Mixture
from rlvr.task import Task

UNAVAILABLE = "unavailable"


def eval_tasks(n: int, *, recipe: str = "quickstart", eval_set: str = "test_in") -> list[Task]:
    """The first ``n`` tasks of a recipe's eval set, exactly as ``rlvr quickstart`` evaluates them (the recipe's
    mixture, prompt options and eval seed); default the CPU quickstart's in-distribution set."""
    from rlvr.device import Device
    from rlvr.train.data import eval_set_specs
    from rlvr.train.entry import find_recipe
    from rlvr.train.recipe import parse_recipe

    task_args = parse_recipe(["--config", find_recipe(recipe)], device=Device("cpu")).task
    specs = eval_set_specs(task_args)
    if eval_set not in specs:
        raise ValueError(f"recipe {recipe!r} has no eval set {eval_set!r} (it has {', '.join(specs)})")
    mixture = Mixture(list(specs[eval_set]["mix"]), specs[eval_set]["split"], task_args.eval_seed)
    return [mixture.task_at(i) for i in range(int(n))]


def _synchronize(device: str) -> None:
    if str(device).startswith("cuda"):
        import torch

        torch.cuda.synchronize()


class UtilisationSampler:
    """Samples the accelerator's utilisation (percent) every ``interval`` seconds inside a ``with`` block.

    ``summary()`` gives the mean and max, or ``unavailable`` when the device is not CUDA or neither
    ``torch.cuda.utilization`` nor pynvml can read it.
    """

    def __init__(self, device: str, interval: float = 0.2) -> None:
        self.device = str(device)
        self.interval = float(interval)
        self.samples: list[float] = []
        self.reason: str | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._read = self._reader()

    def _reader(self) -> Any:
        if not self.device.startswith("cuda"):
            self.reason = "not a CUDA device"
            return None
        import torch

        index = torch.device(self.device).index or 0
        try:
            torch.cuda.utilization(index)
            return lambda: float(torch.cuda.utilization(index))
        except Exception:  # noqa: BLE001 - torch reads it through pynvml / amdsmi, which may be missing
            pass
        try:
            import pynvml

            pynvml.nvmlInit()
            handle = pynvml.nvmlDeviceGetHandleByIndex(index)
            return lambda: float(pynvml.nvmlDeviceGetUtilizationRates(handle).gpu)
        except Exception:  # noqa: BLE001 - pynvml absent or no NVML
            self.reason = "neither torch.cuda.utilization nor pynvml could read it"
            return None

    def __enter__(self) -> "UtilisationSampler":
        if self._read is not None:
            self._thread = threading.Thread(target=self._run, daemon=True)
            self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                self.samples.append(self._read())
            except Exception:  # noqa: BLE001 - a failed read ends the sampling, not the benchmark
                self.reason = "reading the utilisation failed"
                return

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def summary(self) -> dict[str, Any] | str:
        """``{"mean_percent", "max_percent", "samples"}`` or ``unavailable (why)``."""
        if not self.samples:
            return f"{UNAVAILABLE} ({self.reason or 'no sample taken'})"
        return {"mean_percent": round(statistics.fmean(self.samples), 1), "max_percent": max(self.samples),
                "samples": len(self.samples)}


@dataclass
class EvalSpeed:
    """Greedy generation speed of one setting; ``load_s`` (loading the model) and ``warmup_s`` (the first batch,
    with any compilation) are counted apart from ``seconds``."""

    device: str
    dtype: str
    batch_size: int
    max_new_tokens: int
    tasks: int
    static_cache: bool
    sort_by_length: bool
    adapter_merged: bool
    seconds: float
    completions_per_s: float
    tokens_per_s: float
    mean_tokens: float
    utilisation: Any = None
    decoding: str = "dynamic"
    attention: str | None = None
    load_s: float = 0.0
    warmup_s: float = 0.0
    #: exact match over the tasks (the verdicts of the greedy texts)
    em: float = 0.0
    #: the completions in task order and whether each is right (not reported; for comparing levers)
    texts: list[str] = field(default_factory=list, repr=False)
    correct: list[bool] = field(default_factory=list, repr=False)

    def to_dict(self) -> dict[str, Any]:
        """The reported fields (without the texts and verdicts)."""
        return {k: v for k, v in asdict(self).items() if k not in ("texts", "correct")}


def differences(row: EvalSpeed, baseline: EvalSpeed) -> dict[str, Any]:
    """How ``row``'s greedy results differ from ``baseline``'s on the same tasks: the share of texts and of verdicts
    that differ, the change in exact match and its paired standard error (of the mean per-task difference)."""
    if len(row.texts) != len(baseline.texts) or not row.texts:
        raise ValueError("the two rows must cover the same tasks")
    n = len(row.texts)
    diffs = [int(a) - int(b) for a, b in zip(row.correct, baseline.correct)]
    mean = sum(diffs) / n
    variance = sum((d - mean) ** 2 for d in diffs) / (n - 1) if n > 1 else 0.0
    return {
        "texts_differ": round(sum(a != b for a, b in zip(row.texts, baseline.texts)) / n, 4),
        "verdicts_differ": round(sum(d != 0 for d in diffs) / n, 4),
        "em_change": round(mean, 4), "paired_se": round((variance / n) ** 0.5, 4),
    }


def measure_eval(
    model: str = "default",
    *,
    device: str = "cuda",
    dtype: str = "auto",
    tasks: Sequence[Task] | None = None,
    n_tasks: int = 512,
    batch_size: int = 256,
    max_new_tokens: int = 80,
    static_cache: bool = False,
    sort_by_length: bool = True,
    adapter: str | None = None,
    merge_adapter: bool = True,
    threads: int | None = None,
    decoding: str = "dynamic",
    attention: str | None = None,
    compile_backend: Any = None,
) -> EvalSpeed:
    """Greedy completions/s over ``tasks`` (default ``n_tasks`` quickstart tasks) in batches of ``batch_size``.

    One batch runs first as a warm-up (kernels, and with a static ``decoding`` the compilation) and is timed
    apart. ``sort_by_length=False`` batches in task order (the padding of unsorted batches);
    ``merge_adapter=False`` keeps a LoRA adapter unmerged (what merging buys); ``decoding``, ``attention`` and
    ``compile_backend`` as :class:`~rlvr.eval.backends.hf.TransformersBackend` takes them (``static_cache``:
    ``decoding="static"``). The texts are verified afterwards, outside the timing.
    """
    from rlvr.api import verify
    from rlvr.eval.backends.hf import TransformersBackend

    tasks = list(tasks) if tasks is not None else eval_tasks(n_tasks)
    t_load = time.perf_counter()
    backend = TransformersBackend(model, adapter=adapter, device=device, dtype=dtype, max_new_tokens=max_new_tokens,
                                  temperature=0.0, threads=threads, merge_adapter=merge_adapter, static_cache=static_cache,
                                  decoding=decoding, attention=attention, compile_backend=compile_backend)
    load_s = time.perf_counter() - t_load
    try:
        order = backend.batching_order(tasks) if sort_by_length else list(range(len(tasks)))
        ordered = [tasks[i] for i in order]
        t_warm = time.perf_counter()
        backend.generate(ordered[:batch_size], 1)  # warm-up
        _synchronize(backend.device)
        warmup_s = time.perf_counter() - t_warm
        tokens = 0
        texts: dict[str, str] = {}
        with UtilisationSampler(backend.device) as util:
            t0 = time.perf_counter()
            for start in range(0, len(ordered), batch_size):
                batch = ordered[start:start + batch_size]
                out = backend.generate(batch, 1)
                tokens += sum(c[0].n_tokens or 0 for c in out)
                texts.update({t.id: c[0].text for t, c in zip(batch, out)})
            _synchronize(backend.device)
            seconds = time.perf_counter() - t0
        in_order = [texts[t.id] for t in tasks]
        correct = [bool(verify(t, text).correct) for t, text in zip(tasks, in_order)]
        return EvalSpeed(
            device=backend.device, dtype=backend.dtype, batch_size=batch_size, max_new_tokens=max_new_tokens,
            tasks=len(tasks), static_cache=backend.static_cache, sort_by_length=sort_by_length,
            adapter_merged=bool(adapter) and merge_adapter,
            seconds=round(seconds, 3), completions_per_s=round(len(tasks) / seconds, 2),
            tokens_per_s=round(tokens / seconds, 1), mean_tokens=round(tokens / max(1, len(tasks)), 1),
            utilisation=util.summary(), decoding=backend.decoding, attention=attention, load_s=round(load_s, 3),
            warmup_s=round(warmup_s, 3), em=round(sum(correct) / max(1, len(correct)), 4), texts=in_order,
            correct=correct,
        )
    finally:
        backend.close()


@dataclass
class GrpoSpeed:
    """Seconds per GRPO optimizer step, split into generation and the rest (the update)."""

    device: str
    steps: int
    completions_per_step: int
    steps_per_generation: int
    step_seconds: list[float] = field(default_factory=list)
    generation_seconds: list[float] = field(default_factory=list)
    mean_step_s: float = 0.0
    mean_generation_s: float = 0.0
    mean_update_s: float = 0.0
    utilisation: Any = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def measure_grpo(
    recipe: str = "quickstart_gpu",
    *,
    model: str | None = None,
    steps: int = 8,
    overrides: Sequence[str] = (),
    device: str = "cuda",
) -> GrpoSpeed:
    """``steps`` real GRPO steps of ``recipe`` (its warm-start keys ignored; no eval, no checkpoint).

    Generation is the sum of TRL's timed ``*generate*`` blocks; it happens once every
    ``steps_per_generation`` steps, so the means are over all steps after the first (which warms up),
    and a run of a multiple of ``steps_per_generation`` steps plus one reads best.
    """
    from transformers import TrainerCallback

    from rlvr.device import resolve_device
    from rlvr.train.entry import find_recipe
    from rlvr.train.recipe import parse_recipe
    from rlvr.train.runner import build_trainer

    durations: dict[str, list[tuple[int, float]]] = defaultdict(list)

    class StepClock(TrainerCallback):
        def __init__(self) -> None:
            self.steps: list[float] = []
            self._t0 = 0.0

        def on_step_begin(self, args, state, control, **kwargs):  # noqa: ANN001, ANN201
            _synchronize(device)
            self._t0 = time.perf_counter()

        def on_step_end(self, args, state, control, **kwargs):  # noqa: ANN001, ANN201
            _synchronize(device)
            self.steps.append(time.perf_counter() - self._t0)

    with tempfile.TemporaryDirectory(prefix="rlvr-bench-grpo-") as out:
        argv = ["--config", find_recipe(recipe), *overrides, "--max_steps", str(int(steps)), "--output_dir", out,
                "--save_strategy", "no", "--report_to", "none", "--disable_tqdm", "true"]
        if model:
            argv += ["--model_name_or_path", model]
        parsed = parse_recipe(argv, prog="rlvr bench --gpu", device=resolve_device(device))
        task_args, training_args, model_args = parsed.task, parsed.training, parsed.model
        training_args.eval_strategy = "no"
        task_args.save_final_model = False
        clock = StepClock()
        with timed_trl_blocks(durations):
            trainer = build_trainer(task_args, training_args, model_args, callbacks=[clock], adapter=parsed.adapter)
            with UtilisationSampler(device) as util:
                trainer.train()
    gen: dict[int, float] = defaultdict(float)
    for name, rows in durations.items():
        if "generate" in name:
            for step, seconds in rows:
                gen[step] += seconds
    gen_per_step = [gen.get(i, 0.0) for i in range(len(clock.steps))]
    body = slice(1, None) if len(clock.steps) > 1 else slice(None)
    mean_step = statistics.fmean(clock.steps[body]) if clock.steps else 0.0
    mean_gen = statistics.fmean(gen_per_step[body]) if gen_per_step else 0.0
    return GrpoSpeed(
        device=device, steps=len(clock.steps),
        completions_per_step=int(training_args.per_device_train_batch_size),
        steps_per_generation=int(training_args.steps_per_generation or 1),
        step_seconds=[round(s, 4) for s in clock.steps], generation_seconds=[round(s, 4) for s in gen_per_step],
        mean_step_s=round(mean_step, 4), mean_generation_s=round(mean_gen, 4),
        mean_update_s=round(mean_step - mean_gen, 4), utilisation=util.summary(),
    )


@contextmanager
def timed_trl_blocks(durations: dict[str, list[tuple[int, float]]]) -> Iterator[None]:
    """Inside the block, each of TRL's profiled GRPO blocks appends ``(step, seconds)`` to ``durations`` under
    its name; TRL's own ``profiling_context`` is put back on the way out, however the block ends."""
    import trl.trainer.grpo_trainer as grpo_module
    from trl.extras.profiling import ProfilingContext

    class Recording(ProfilingContext):
        def _log_metrics(self, duration: float) -> None:
            durations[self.name].append((int(self.step or 0), duration))

    original = grpo_module.profiling_context
    grpo_module.profiling_context = lambda trainer, name: Recording(name=name, report_to=[],
                                                                      step=trainer.state.global_step)
    try:
        yield
    finally:
        grpo_module.profiling_context = original


def device_name(device: str) -> str:
    """The accelerator's name (``torch.cuda.get_device_name``), or ``cpu``."""
    if str(device).startswith("cuda"):
        import torch

        return torch.cuda.get_device_name(torch.device(device))
    return "cpu"


def text(result: dict[str, Any]) -> str:
    """The console table of a ``rlvr bench --gpu`` result."""
    lines = [f"device: {result['device']}"]
    for row in result.get("eval", []):
        lever = f" [{row['lever']}]" if row.get("lever") else ""
        change = row.get("vs_default")
        versus = (f"  vs default: {100 * change['texts_differ']:.1f} % texts / {100 * change['verdicts_differ']:.1f} % "
                  f"verdicts differ, EM {100 * change['em_change']:+.1f} ± {100 * change['paired_se']:.1f} pp"
                  if change else "")
        lines.append(f"eval{lever}  batch {row['batch_size']:>4}  {row.get('decoding', 'dynamic')} cache  "
                     f"{row['completions_per_s']:>8.1f} completions/s  {row['tokens_per_s']:>9.1f} tokens/s  "
                     f"({row['tasks']} greedy completions, <= {row['max_new_tokens']} tokens; EM "
                     f"{100 * row.get('em', 0.0):.1f} %; load {row.get('load_s', 0.0):.1f} s, first batch "
                     f"{row.get('warmup_s', 0.0):.1f} s apart)  utilisation: {_util(row['utilisation'])}{versus}")
    for grpo in [result.get("grpo"), *result.get("grpo_levers", [])]:
        if grpo:
            lever = f" [{grpo['lever']}]" if grpo.get("lever") else ""
            lines.append(f"grpo{lever}  {grpo['completions_per_step']} completions/step: {grpo['mean_step_s']:.3f} s/step = "
                         f"generation {grpo['mean_generation_s']:.3f} s + update {grpo['mean_update_s']:.3f} s "
                         f"(mean of steps 2-{grpo['steps']})  utilisation: {_util(grpo['utilisation'])}")
    return "\n".join(lines)


def _util(value: Any) -> str:
    if isinstance(value, dict):
        return f"mean {value['mean_percent']:.0f} %, max {value['max_percent']:.0f} %"
    return str(value)
