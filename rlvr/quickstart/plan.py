"""What a ``rlvr quickstart`` run will do, settled and checked before the first model call.

:func:`make_plan` parses the recipe for the device the command resolved, names the eval sets and the
declared primary test, and checks everything that can fail without a model: the families are registered,
the warm start's and the control arm's families can write worked solutions, the primary test's fields are
valid. Nothing is written until the plan stands, so a failed check leaves no output folder behind. Whether the
arms are known and in an order they can run in is checked against their registry
(:func:`rlvr.quickstart.arms.check_arms`, which imports this module); :func:`rlvr.quickstart.run.checked_plan`
runs both.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from rlvr.device import CPU_BF16_ENV, Device, cpu_bf16_forced
from rlvr.quickstart.claims import PrimaryTest, is_tuning_split
from rlvr.quickstart.pooled import PooledDesign
from rlvr.quickstart.step_scan import checkpoint_steps
from rlvr.train.data import check_eval_pools, default_eval_splits, eval_set_specs, named_eval_set, retention_set_spec
from rlvr.train.entry import check_families, find_recipe
from rlvr.train.recipe import Recipe, parse_recipe
from rlvr.train.sft_data import check_solution_writers, sft_mixture


@dataclass
class QuickstartOptions:
    """The command's choices: the recipe and where to write, the budget overrides, the resolved device.

    ``base_cache``: read the base model's answers from the cache an earlier run on this machine wrote for the
    same tasks, model and settings (and write it when absent). ``eval_every``: also keep and score a
    checkpoint every that many RL steps (:mod:`rlvr.quickstart.step_scan`). ``skip_before``: reuse the base
    scores of a previous run in ``output_dir``. ``fresh_arms``: train, score and measure each arm in a fresh
    process (the command's default; the outputs are the same), which imports ``plugins`` first (a family
    registered by code in this process, not by a plugin, is unknown there).
    """

    recipe: str = "quickstart"
    output_dir: str = "outputs/quickstart"
    minutes: float | None = None
    max_steps: int | None = None
    eval_size: int | None = None
    max_new_tokens: int | None = None
    eval_batch_size: int = 64  # greedy eval on 2 CPU cores: 64 rows took 0.84x the time of 32 (identical text)
    overrides: Sequence[str] = ()
    skip_before: bool = False
    base_cache: bool = True
    eval_every: int | None = None
    device: Device = field(default_factory=Device)
    fresh_arms: bool = False
    plugins: Sequence[str] = ()

    def recipe_argv(self) -> list[str]:
        """The recipe parser's arguments: the recipe file, the training folder, the overrides and budgets."""
        args = ["--config", find_recipe(self.recipe), "--output_dir", str(Path(self.output_dir) / "train"),
                *self.overrides]
        for flag, value in (("--max_train_minutes", self.minutes), ("--max_steps", self.max_steps),
                            ("--eval_size", self.eval_size)):
            if value is not None:
                args += [flag, str(value)]
        return args


@dataclass
class Plan:
    """A checked run: the options, the parsed recipe, the eval sets, the primary test and the step scan."""

    options: QuickstartOptions
    recipe: Recipe
    specs: dict[str, dict[str, Any]]
    primary: PrimaryTest
    scan_steps: list[int]
    pooled: PooledDesign | None = None

    @property
    def arms(self) -> list[str]:
        """The arms the run trains from the warm start, in order."""
        return self.recipe.arms

    @property
    def out(self) -> Path:
        """The run's output folder."""
        return Path(self.options.output_dir)

    @property
    def new_tokens(self) -> int:
        """Tokens each greedy evaluation may generate."""
        return int(self.options.max_new_tokens or self.recipe.training.max_completion_length or 64)

    @property
    def eval_dtype(self) -> str:
        """The dtype every stage is evaluated in: on a CPU run that trains in bf16 (a CPU where bfloat16 is the
        faster dtype: the parser drops ``bf16`` elsewhere) bfloat16, else the device's."""
        device = self.options.device
        cpu_bf16 = not device.is_accelerator and getattr(self.recipe.training, "bf16", False)
        return "bfloat16" if cpu_bf16 else device.dtype

    @property
    def runs_in(self) -> str:
        """Where and in which dtype the run trains and evaluates, and on a CPU why: one phrase for the console."""
        device = self.options.device
        if device.is_accelerator:
            return f"{device.name} in {device.dtype}"
        if self.eval_dtype == "bfloat16":
            why = f"set by {CPU_BF16_ENV}" if cpu_bf16_forced() else "the faster dtype on this CPU"
            return f"cpu in bfloat16 autocast ({why})"
        if device.cpu_bf16:
            return "cpu in float32 (the recipe asks for it)"
        if cpu_bf16_forced():
            return f"cpu in float32 (set by {CPU_BF16_ENV})"
        return f"cpu in float32 (bfloat16 is not the faster dtype on this CPU; {CPU_BF16_ENV}=1 forces it)"

    @property
    def reward_mode(self) -> str:
        """The checker's scoring mode the per-task reward uses."""
        return self.recipe.task.reward_mode or "em"

    @property
    def tests_a_claim(self) -> bool:
        """Whether the primary test's split is among this run's eval sets."""
        return self.primary.split in {spec["split"] for spec in self.specs.values()} | set(self.specs)


def _eval_specs(recipe: Recipe, eval_size: int | None) -> dict[str, dict[str, Any]]:
    task = recipe.task
    if not task.eval_splits and not task.eval_sets:  # the family's own held-out splits
        task.eval_splits = default_eval_splits(task)
    specs = eval_set_specs(task)
    if eval_size is not None:  # --eval-size: every set, including eval_sets with a size of their own
        specs = {name: {**spec, "size": int(eval_size)} for name, spec in specs.items()}
    return specs


def _primary(recipe: Recipe, specs: dict[str, dict[str, Any]]) -> PrimaryTest:
    held_out = [spec["split"] for spec in specs.values() if not is_tuning_split(spec["split"])]
    default_split = "test_in" if "test_in" in held_out or not held_out else held_out[0]
    return PrimaryTest.from_recipe(recipe.task.primary_test, arms=recipe.arms, has_warm_start=recipe.warm_starts,
                                   default_split=default_split)


#: learning-rate schedules whose rate at step s does not depend on the run's length
LENGTH_FREE_SCHEDULES = ("constant", "constant_with_warmup")


def check_plateau(recipe: Recipe) -> None:
    """ValueError in one line when the warm start's plateau mode cannot work: no warm start, a schedule that
    depends on ``sft_steps`` (a shorter run would not be a prefix of a longer one), or a set that is not for tuning."""
    rule, sft = recipe.study.plateau, recipe.sft
    if not recipe.warm_starts:
        raise ValueError("plateau: the plateau mode trains the warm start, so the recipe needs sft_steps > 0 (the most steps)")
    if sft.sft_lr_scheduler_type not in LENGTH_FREE_SCHEDULES:
        raise ValueError(f"plateau: the warm start's schedule {sft.sft_lr_scheduler_type!r} depends on sft_steps; use "
                         f"one of {list(LENGTH_FREE_SCHEDULES)} so that a shorter run is a prefix of a longer one")
    split = str((eval_set_specs(recipe.task).get(str(rule["set"])) or {"split": rule["set"]})["split"])
    if not is_tuning_split(split):
        raise ValueError(f"plateau.set {rule['set']!r} is not a tuning set (valid* or train*): the plateau is found "
                         "where recipes are tuned, never on a test split")


def measure_specs(recipe: Recipe) -> dict[str, dict[str, Any]]:
    """The sets the run's measurements score besides its eval sets (the plateau's tuning set, pass@k, KL,
    retention), as eval-set specs, so that each is checked before anything runs."""
    study, task = recipe.study, recipe.task
    out: dict[str, dict[str, Any]] = {}
    for what, rule, key in (("plateau", study.plateau, "set"), ("pass_at_k", study.pass_at_k, "set"),
                            ("kl_set", study.kl_set, "split")):
        if rule:
            out.update({f"{what} ({name})": spec for name, spec in
                        named_eval_set(task, str(rule[key]), int(rule["size"])).items()})
    if study.retention_set:
        out["retention_set"] = retention_set_spec(study.retention_set)
    return out


def make_plan(options: QuickstartOptions) -> Plan:
    """Parse and check the run (see the module docstring); ValueError or KeyError with one sentence on a
    mistake, before any model is converted or loaded."""
    recipe = parse_recipe(options.recipe_argv(), prog="rlvr quickstart", device=options.device)
    recipe.training.eval_strategy = "no"  # rlvr quickstart scores every stage itself, on fixed tasks
    if "control" in recipe.arms and not recipe.warm_starts:
        raise ValueError("arms: the control arm continues the warm start, so the recipe needs sft_steps > 0")
    if recipe.study.plateau:
        check_plateau(recipe)
    check_families(recipe.task)
    if recipe.warm_starts or "control" in recipe.arms:
        check_solution_writers(c.family for c in sft_mixture(recipe.task, recipe.sft))
    scan = checkpoint_steps(options.eval_every, int(recipe.training.max_steps)) if options.eval_every else []
    if scan:  # every scored budget needs its checkpoint; keep them all
        recipe.training.save_strategy, recipe.training.save_steps = "steps", options.eval_every
        recipe.training.save_total_limit = None
    specs = _eval_specs(recipe, options.eval_size)
    check_eval_pools({**specs, **measure_specs(recipe)})
    pooled = PooledDesign.from_recipe(recipe.task.pooled_test, eval_sets=list(specs), arms=recipe.arms,
                                      pass_at_k=str(recipe.study.pass_at_k["set"]) if recipe.study.pass_at_k else None)
    return Plan(options=options, recipe=recipe, specs=specs, primary=_primary(recipe, specs), scan_steps=scan,
                pooled=pooled)
