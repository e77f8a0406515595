"""``rlvr quickstart``, stage by stage: base eval, warm start, then every arm of the recipe, the report.

:func:`run_quickstart` plans and checks the run first (:mod:`rlvr.quickstart.plan`), then runs each stage;
every stage scores the same greedy tasks, so ``summary.json`` pairs them task by task. The arms are data
(:mod:`rlvr.quickstart.arms`): the run trains and scores the ones the recipe lists, in order, each from the
warm-started model, and measures each as the recipe asks (:mod:`rlvr.quickstart.measures`). With ``fresh_arms``
(the command's default) each arm is trained, scored and measured in a fresh process
(:func:`~rlvr.fresh_process.call_in_fresh_process`), which is faster than a process that has already trained
and does not change an output: every stage seeds itself.
"""
from __future__ import annotations

import os
import time
from dataclasses import asdict, dataclass, field
from typing import Any

from rlvr.fresh_process import call_in_fresh_process
from rlvr.models import resolve_model
from rlvr.quickstart.arm_run import ArmContext, ArmRun
from rlvr.quickstart.arms import ARMS, check_arms
from rlvr.quickstart.claims import declared_tests, label
from rlvr.quickstart.evaluation import Evaluator, say, write_json
from rlvr.quickstart.figure import plot_quickstart
from rlvr.quickstart.kinds import accuracy_by_kind, constant_tests, versus_common_answers
from rlvr.quickstart.measures import Measures
from rlvr.quickstart.plan import Plan, QuickstartOptions, make_plan
from rlvr.quickstart.report import QuickstartResult, render_table, report_markdown
from rlvr.quickstart.scores import StageResult, build_summary, comparisons
from rlvr.quickstart.step_scan import budget_row, checkpoint_dir, smallest_significant
from rlvr.quickstart.training import warm_start
from rlvr.quickstart.trend import log_history, reward_trend
from rlvr.files import atomic_open
from rlvr.task import load_tasks
from rlvr.train.lora import check_layers_fit


def run_quickstart(options: QuickstartOptions | None = None, **fields: Any) -> QuickstartResult:
    """Evaluate the base model; warm start and evaluate; train and evaluate every arm of the recipe from there;
    write the report, ``summary.json`` and the figure into the output folder. ``fields``:
    :class:`QuickstartOptions` fields, when no ``options`` are given."""
    plan = checked_plan(options or QuickstartOptions(**fields))
    t_all = time.time()
    plan.out.mkdir(parents=True, exist_ok=True)
    if not plan.tests_a_claim:  # e.g. a tuning run on valid
        say(f"the primary test's split {plan.primary.split} is not among this run's eval sets "
            f"({', '.join(plan.specs)}): this run tests no claim")
    say(f"loading the model {plan.recipe.model.model_name_or_path or 'default'}; it runs on {plan.runs_in}")
    model = resolve_model(plan.recipe.model.model_name_or_path)
    check_layers_fit({"lora_layers": plan.recipe.adapter.lora_layers,
                      "sft_lora_layers": plan.recipe.sft.sft_lora_layers if plan.recipe.warm_starts else None}, model)
    plan.recipe.model.model_name_or_path = model
    evaluator = Evaluator.for_plan(plan)
    stages: dict[str, StageResult] = {}
    stages["base"], cached_from = evaluator.base(model)
    warm, warm_info = warm_start(plan, evaluator)
    reference = "warm" if warm is not None else "base"
    if warm is not None:
        stages["warm"] = warm
    start = str(plan.recipe.model.model_name_or_path)
    measures = Measures.for_plan(plan, evaluator)
    measures.measure(reference, start, None)
    state = ArmState(plan, evaluator, measures, start, stages=stages)
    fresh = plan.options.fresh_arms and int(os.environ.get("WORLD_SIZE", "1")) == 1
    for name in plan.arms:
        state = call_in_fresh_process(run_arm, state, name, plugins=plan.options.plugins, name=f"{name} arm") \
            if fresh else run_arm(state, name)
    plan, evaluator, measures, stages, runs = state.plan, state.evaluator, state.measures, state.stages, state.runs
    history = log_history(plan.out / "train")
    scan = scan_checkpoints(plan, evaluator, stages, runs.get("rl"), history)
    evaluator.seconds["total"] = round(time.time() - t_all, 1)
    result = assemble(plan, evaluator, stages, runs, history, warm_info=warm_info, measures=measures, scan=scan,
                      cached_from=cached_from)
    write_outputs(plan, result, history)
    return result


@dataclass
class ArmState:
    """What the arms read and change, handed from arm to arm (into a fresh process and back, with ``fresh_arms``):
    the plan, the evaluator and its stage times, the measurements, the model every arm starts from, the arms
    run so far and every stage's scores."""

    plan: Plan
    evaluator: Evaluator
    measures: Measures
    start: str
    runs: dict[str, ArmRun] = field(default_factory=dict)
    stages: dict[str, StageResult] = field(default_factory=dict)


def run_arm(state: ArmState, name: str) -> ArmState:
    """Train the arm ``name`` from the warm start, score it greedily on the eval set and measure it; returns
    ``state`` with its run, its scores, its measurements and its stage times."""
    arm = ARMS[name]
    run = arm.train(ArmContext(state.plan, state.evaluator, state.start, state.runs))
    state.runs[name] = run
    state.stages[name] = state.evaluator.stage(f"eval_{name}", arm.describes, state.start, run.adapter)
    state.measures.measure(name, state.start, run.adapter, reference=state.start)
    return state


def checked_plan(options: QuickstartOptions) -> Plan:
    """:func:`~rlvr.quickstart.plan.make_plan`, and the recipe's arms checked against the registry; ValueError in
    one line on a mistake, before anything is written or loaded."""
    plan = make_plan(options)
    check_arms(plan.arms)
    return plan


def scan_checkpoints(plan: Plan, evaluator: Evaluator, stages: dict[str, StageResult], rl: ArmRun | None,
                     history: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``--eval-every``: each kept RL checkpoint scored like the RL arm's final model, as a row of the RL stage
    against its step budget (a ``--minutes`` cap may stop the run before some budgets: those are left out)."""
    if not plan.scan_steps or rl is None:
        return []
    rows = []
    ref = "warm" if "warm" in stages else "base"
    steps = int(rl.budget["steps"])
    for step in [s for s in plan.scan_steps if s < steps] + [steps]:
        ckpt = checkpoint_dir(plan.out / "train", step)
        if step == steps:
            at_step = stages["rl"]
        elif ckpt.is_dir():
            at_step = evaluator.stage(f"eval_step{step}", f"the step-{step} checkpoint",
                                      str(plan.recipe.model.model_name_or_path), str(ckpt))
        else:
            continue
        pair = {"base": stages["base"], **({"warm": stages[ref]} if ref == "warm" else {}), "rl": at_step}
        rows.append(budget_row(step, steps, float(rl.budget["seconds"]), build_summary(pair, [(ref, "rl")], evaluator.units),
                               reward_trend(history, up_to=step), primary=plan.primary, reference=ref))
    return rows


def _train_summary(plan: Plan, rl: ArmRun | None, history: list[dict[str, Any]], warm_info: dict[str, Any]) -> dict[str, Any]:
    task = plan.recipe.task
    summary: dict[str, Any] = {"algorithm": task.algorithm, "family": [m.family for m in task.mix()],
                               "options": [m.options for m in task.mix()], "reward_funcs": task.reward_funcs,
                               "reward_mode": task.reward_mode, "warm_start": warm_info}
    if rl is not None:
        result = rl.result
        summary.update(steps=result.global_step, seconds_per_step=result.seconds_per_step,
                       last_train_reward=result.last_train_log.get("reward"))
        summary.update(reward_trend(history))
    return summary


def assemble(plan: Plan, evaluator: Evaluator, stages: dict[str, StageResult], runs: dict[str, ArmRun],
             history: list[dict[str, Any]], *, warm_info: dict[str, Any], measures: Measures,
             scan: list[dict[str, Any]], cached_from: str | None) -> QuickstartResult:
    """Every stage's scores, the paired tests and the declared claims, as one :class:`QuickstartResult`."""
    treated = plan.primary.treated
    pairs = comparisons(list(stages), treated)
    if (plan.primary.reference, treated) not in pairs:
        pairs.append((plan.primary.reference, treated))
    splits = build_summary(stages, pairs, evaluator.units)
    eval_tasks = load_tasks(evaluator.tasks_file)
    by_stage = {label(name): stage.records for name, stage in stages.items()}
    versus_common = versus_common_answers(eval_tasks, by_stage)
    measured = measures.tests(treated) + constant_tests(versus_common, [label(a) for a in runs])
    scores = {name: stage.scores for name, stage in stages.items()}
    return QuickstartResult(
        output_dir=str(plan.out), stages=list(stages), treated=treated, scores=scores,
        train=_train_summary(plan, runs.get("rl"), history, warm_info), seconds=evaluator.seconds,
        table=render_table(scores), splits=splits, base_cache=cached_from, budget=scan,
        claims=declared_tests(splits, plan.primary, measured), by_kind=accuracy_by_kind(eval_tasks, by_stage),
        versus_common=versus_common, arms={name: run.budget for name, run in runs.items()}, measures=measures.to_dict(),
        eval_sets={name: asdict(info) for name, info in evaluator.sets.items()})


def summary_json(plan: Plan, qs: QuickstartResult) -> dict[str, Any]:
    """``summary.json``: the declared primary test, the secondaries, every split's stages and tests, the arms
    and their budgets, the measurements."""
    claims = qs.claims.to_dict() if qs.claims else {"primary": None, "secondary": [], "exploratory": [], "tuning": []}
    train = qs.train
    out: dict[str, Any] = {
        "primary": claims["primary"], "secondary": claims["secondary"], "exploratory": claims["exploratory"],
        "tuning": {g: qs.splits[g] for g in claims["tuning"]}, "stages": qs.stages, "treated": qs.treated,
        "splits": qs.splits, "steps": train.get("steps"), "warm_start": train.get("warm_start") or {},
        "warm_start_steps": (train.get("warm_start") or {}).get("steps", 0), "seed": plan.recipe.training.seed,
        "seconds": qs.seconds, "recipe": plan.options.recipe, "family": train["family"], "arms": qs.arms,
        "train_reward": {k: v for k, v in train.items() if k.startswith(("train_reward", "trend_", "quarter_", "dynamic_"))},
        "base_from_cache": qs.base_cache, "device": plan.options.device.describe(), "eval_dtype": plan.eval_dtype,
        "eval_sets": qs.eval_sets, "pooled_test": asdict(plan.pooled) if plan.pooled else None}
    out.update(qs.measures)
    if qs.by_kind:
        out["by_kind"] = qs.by_kind
    if qs.versus_common:
        out["versus_most_common_answer"] = qs.versus_common
    if qs.budget:
        out.update({"budget": qs.budget, "budget_smallest_significant": smallest_significant(qs.budget, plan.primary)})
    return out


def write_outputs(plan: Plan, qs: QuickstartResult, history: list[dict[str, Any]]) -> None:
    """``quickstart.json``, ``summary.json``, ``quickstart.png`` and ``quickstart.md`` in the output folder."""
    write_json(plan.out / "quickstart.json", qs.to_dict())
    write_json(plan.out / "summary.json", summary_json(plan, qs))
    drawn = {label(name): {s: asdict(v) for s, v in qs.scores[name].items()} for name in qs.stages}
    train = qs.train
    arms = [label(a) for a in qs.arms]
    title = (f"{'warm start + ' if 'warm' in qs.stages else ''}{' / '.join(arms)} on {', '.join(train.get('family') or [])}: "
             f"{train.get('steps')} steps, RL {float(qs.arms.get('rl', {}).get('seconds', 0)) / 60:.1f} min")
    plot_quickstart(history, drawn, plan.out / "quickstart.png", title)
    with atomic_open(plan.out / "quickstart.md") as fh:
        fh.write(report_markdown(qs))
