"""Where a GRPO step's time goes: generation, reward (the gym), data (the gym), and the rest.

    python scripts/profile_grpo_step.py --config recipes/quickstart.yaml --steps 6 \
        [--model_name_or_path outputs/quickstart/warm_start/merged] [--KEY VALUE ...]
    python scripts/profile_grpo_step.py --device cuda --config recipes/quickstart_gpu.yaml --steps 9 \
        --levers steps_per_generation=1 steps_per_generation=4 gradient_checkpointing=true

``--device cpu`` (the default) runs on the CPU (``use_cpu``; the recipe's bf16 kept only where bfloat16 is the
faster dtype on this CPU, as in the quickstart); ``--device cuda`` runs the recipe as
written. ``--levers KEY=VALUE[,KEY=VALUE] ...``: one run per lever, each the recipe plus that override (e.g. the
generation batch through ``steps_per_generation`` or ``generation_batch_size``, gradient checkpointing),
after a run of the recipe as it is; one line per run.

Runs a few real GRPO steps of the recipe (warm start keys are ignored: give a warm-started model with
``--model_name_or_path`` to profile the completions the quickstart's RL stage sees) and reports per
step, as medians over the steps after the first (with
``steps_per_generation`` > 1: means over whole generation cycles after the first), and trained completions
per minute:

- ``generate``: TRL's ``transformers.generate`` block (sampling the group's completions);
- ``reward``: every reward function call (rlvr's verdicts; TRL times each function);
- ``data``: building the step's prompts from rlvr's task stream (timed by iterating the same dataset);
- ``rest``: the step minus the above (log-probabilities, loss, backward, optimizer, logging).

The gym's share is ``(reward + data) / step``. TRL times its blocks with ``profiling_context`` and sends
them only to experiment trackers; this script records them instead (a benchmark, not part of rlvr).
"""
from __future__ import annotations

import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from transformers import TrainerCallback  # noqa: E402

from rlvr.train.data import build_train_dataset  # noqa: E402
from rlvr.train.runner import build_trainer  # noqa: E402
from rlvr.bench.gpu import timed_trl_blocks  # noqa: E402
from rlvr.commands.bench import lever_argv  # noqa: E402
from rlvr.device import resolve_device  # noqa: E402
from rlvr.train.recipe import parse_recipe  # noqa: E402

DURATIONS: dict[str, list[tuple[int, float]]] = defaultdict(list)


class StepClock(TrainerCallback):
    """Wall time of every optimizer step."""

    def __init__(self) -> None:
        self.steps: list[float] = []
        self._t0 = 0.0

    def on_step_begin(self, args, state, control, **kwargs):  # noqa: ANN001, ANN201
        self._t0 = time.perf_counter()

    def on_step_end(self, args, state, control, **kwargs):  # noqa: ANN001, ANN201
        self.steps.append(time.perf_counter() - self._t0)


def data_seconds_per_step(task_args: Any, training_args: Any, steps: int) -> float:
    """Seconds to draw one step's prompts from the same task stream (median over ``steps`` steps)."""
    dataset = build_train_dataset(task_args, training_args)
    per_step = max(1, int(training_args.per_device_train_batch_size) // int(training_args.num_generations))
    per_step *= int(getattr(training_args, "gradient_accumulation_steps", 1) or 1)
    it = iter(dataset)
    times = []
    for _ in range(steps):
        t0 = time.perf_counter()
        for _ in range(per_step):
            next(it)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def _pop(argv: list[str], flag: str, default: str, many: bool = False) -> Any:
    if flag not in argv:
        return [] if many else default
    i = argv.index(flag)
    j = i + 1
    while many and j < len(argv) and not argv[j].startswith("--"):
        j += 1
    values = argv[i + 1:j] if many else argv[i + 1]
    del argv[i:(j if many else i + 2)]
    return values


def main(argv: list[str]) -> int:
    steps = int(_pop(argv, "--steps", "6"))
    device = _pop(argv, "--device", "cpu")
    levers = _pop(argv, "--levers", "", many=True)
    base = list(argv)
    for lever in ["", *levers]:
        DURATIONS.clear()
        print(f"== {lever or 'the recipe as written'} on {device}", flush=True)
        profile([*base, *lever_argv(lever)], steps, device)
    return 0


def profile(argv: list[str], steps: int, device: str = "cpu") -> None:
    """Run ``steps`` GRPO steps of the recipe in ``argv`` and print the medians and shares."""
    out = "/tmp/rlvr-profile-grpo"
    recipe = parse_recipe(
        [*argv, "--max_steps", str(steps), "--output_dir", out, "--save_strategy", "no", "--report_to", "none"],
        prog="profile_grpo_step", device=resolve_device(device))
    task_args, training_args, model_args = recipe.task, recipe.training, recipe.model
    training_args.eval_strategy = "no"
    clock = StepClock()
    with timed_trl_blocks(DURATIONS):
        trainer = build_trainer(task_args, training_args, model_args, callbacks=[clock], adapter=recipe.adapter)
        trainer.train()

    def per_step(match: str) -> dict[int, float]:
        sums: dict[int, float] = defaultdict(float)
        for name, rows in DURATIONS.items():
            if match(name):
                for step, d in rows:
                    sums[step] += d
        return sums

    gen = per_step(lambda n: "generate" in n)
    reward = per_step(lambda n: "generate" not in n and "sync" not in n)
    data = data_seconds_per_step(task_args, training_args, steps)
    rows = []
    for i, total in enumerate(clock.steps):
        g, r = gen.get(i, 0.0), reward.get(i, 0.0)
        rows.append((total, g, r, data, total - g - r))
    cycle = max(1, int(training_args.steps_per_generation or 1))
    body = rows[cycle:] or rows  # the first generation cycle warms up
    med = [statistics.median(col) for col in zip(*body)]
    if cycle > 1:  # one step in `cycle` generates: medians would hide it, so read means over whole cycles
        body = body[:len(body) - len(body) % cycle] or body
        med = [statistics.fmean(col) for col in zip(*body)]
    names = ("step", "generate", "reward", "data", "rest")
    kind = "medians" if cycle == 1 else f"means over whole generation cycles of {cycle} steps"
    print(f"{len(body)} steps (the first cycle is left out), {kind} in seconds; reward functions: {task_args.reward_funcs}")
    print("  ".join(f"{n} {v:.4f}" for n, v in zip(names, med)))
    step = med[0]
    trained = int(training_args.per_device_train_batch_size) * int(training_args.gradient_accumulation_steps or 1)
    print(f"trained completions per minute: {60 * trained / step:.1f} ({trained} per step)")
    print(f"shares: generate {100 * med[1] / step:.1f} %, reward {100 * med[2] / step:.3f} %, data {100 * med[3] / step:.3f} %, "
          f"rest {100 * med[4] / step:.1f} %; the gym (reward + data): {100 * (med[2] + med[3]) / step:.3f} %")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
