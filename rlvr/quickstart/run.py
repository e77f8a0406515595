"""``rlvr quickstart``, stage by stage: base eval, warm start, RL, final eval, control arm, report.

:func:`run_quickstart` plans and checks the run first (:mod:`rlvr.quickstart.plan`), then runs each stage;
every stage scores the same greedy tasks, so ``summary.json`` pairs them task by task.
"""
from __future__ import annotations

import time
from dataclasses import asdict
from typing import Any

from rlvr.models import resolve_model
from rlvr.quickstart.claims import declared_tests
from rlvr.quickstart.evaluation import Evaluator, say, write_json
from rlvr.quickstart.figure import plot_quickstart
from rlvr.quickstart.kinds import accuracy_by_kind, versus_common_answers
from rlvr.quickstart.plan import Plan, QuickstartOptions, make_plan
from rlvr.quickstart.report import QuickstartResult, render_table, report_markdown
from rlvr.quickstart.scores import StageResult, build_summary
from rlvr.quickstart.step_scan import budget_row, checkpoint_dir, smallest_significant
from rlvr.quickstart.training import control_arm, rl_stage, trained_adapter, warm_start
from rlvr.quickstart.trend import log_history, reward_trend
from rlvr.files import atomic_open
from rlvr.task import load_tasks
from rlvr.train.runner import TrainResult

#: the stages' labels in the report's per-kind tables and the figure
STAGE_LABELS = {"base": "base", "warm": "warm start", "control": "control", "final": "final"}


def run_quickstart(options: QuickstartOptions | None = None, **fields: Any) -> QuickstartResult:
    """Evaluate the base model; warm start and evaluate; RL + LoRA from there and evaluate; the control arm
    (when the recipe has one) and evaluate; write the report, ``summary.json`` and the figure into the output
    folder. ``fields``: :class:`QuickstartOptions` fields, when no ``options`` are given."""
    plan = make_plan(options or QuickstartOptions(**fields))
    t_all = time.time()
    plan.out.mkdir(parents=True, exist_ok=True)
    if not plan.tests_a_claim:  # e.g. a tuning run on valid
        say(f"the primary test's split {plan.primary.split} is not among this run's eval sets "
            f"({', '.join(plan.specs)}): this run tests no claim")
    say(f"loading the model {plan.recipe.model.model_name_or_path or 'default'}")
    model = resolve_model(plan.recipe.model.model_name_or_path)
    plan.recipe.model.model_name_or_path = model
    evaluator = Evaluator.for_plan(plan)
    stages: dict[str, StageResult] = {}
    stages["base"], cached_from = evaluator.base(model)
    warm, warm_info = warm_start(plan, evaluator)
    if warm is not None:
        stages["warm"] = warm
    rl = rl_stage(plan, evaluator)
    stages["final"] = evaluator.stage("eval_after", "the trained model", str(plan.recipe.model.model_name_or_path),
                                      trained_adapter(plan))
    arms: dict[str, dict[str, Any]] = {}
    if plan.recipe.control.control_arm:
        stages["control"], arms = control_arm(plan, evaluator, rl)
    history = log_history(plan.out / "train")
    scan = scan_checkpoints(plan, evaluator, stages, rl, history)
    evaluator.seconds["total"] = round(time.time() - t_all, 1)
    result = assemble(plan, evaluator, stages, rl, history, warm_info=warm_info, arms=arms, scan=scan,
                      cached_from=cached_from)
    write_outputs(plan, result, history)
    return result


def scan_checkpoints(plan: Plan, evaluator: Evaluator, stages: dict[str, StageResult], rl: TrainResult,
                     history: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``--eval-every``: each kept checkpoint scored like the final model, as a row of the RL stage against its
    step budget (a ``--minutes`` cap may stop the run before some budgets: those are left out)."""
    if not plan.scan_steps:
        return []
    rows = []
    ref = "warm" if "warm" in stages else "base"
    for step in [s for s in plan.scan_steps if s < rl.global_step] + [rl.global_step]:
        ckpt = checkpoint_dir(plan.out / "train", step)
        if step == rl.global_step:
            at_step = stages["final"]
        elif ckpt.is_dir():
            at_step = evaluator.stage(f"eval_step{step}", f"the step-{step} checkpoint",
                                      str(plan.recipe.model.model_name_or_path), str(ckpt))
        else:
            continue
        pair = {"base": stages["base"], "final": at_step, **({"warm": stages[ref]} if ref == "warm" else {})}
        rows.append(budget_row(step, rl.global_step, evaluator.seconds["train"], build_summary(pair),
                               reward_trend(history, up_to=step), primary=plan.primary))
    return rows


def _train_summary(plan: Plan, rl: TrainResult, history: list[dict[str, Any]], warm_info: dict[str, Any]) -> dict[str, Any]:
    task = plan.recipe.task
    summary = {"algorithm": task.algorithm, "steps": rl.global_step, "seconds_per_step": rl.seconds_per_step,
               "last_train_reward": rl.last_train_log.get("reward"), "family": [m.family for m in task.mix()],
               "options": [m.options for m in task.mix()], "reward_funcs": task.reward_funcs,
               "reward_mode": task.reward_mode, "warm_start": warm_info}
    summary.update(reward_trend(history))
    return summary


def assemble(plan: Plan, evaluator: Evaluator, stages: dict[str, StageResult], rl: TrainResult,
             history: list[dict[str, Any]], *, warm_info: dict[str, Any], arms: dict[str, dict[str, Any]],
             scan: list[dict[str, Any]], cached_from: str | None) -> QuickstartResult:
    """Every stage's scores, the paired tests and the declared claims, as one :class:`QuickstartResult`."""
    splits = build_summary(stages)
    eval_tasks = load_tasks(evaluator.tasks_file)
    by_stage = {STAGE_LABELS[name]: stages[name].records for name in ("base", "warm", "control", "final") if name in stages}
    versus_common = versus_common_answers(eval_tasks, by_stage)
    scores = {name: stage.scores for name, stage in stages.items()}
    return QuickstartResult(
        output_dir=str(plan.out), before=scores["base"], after=scores["final"],
        train=_train_summary(plan, rl, history, warm_info), seconds=evaluator.seconds,
        table=render_table(scores["base"], scores["final"], scores.get("warm"), scores.get("control")),
        splits=splits, warm=scores.get("warm"), control=scores.get("control"), base_cache=cached_from, budget=scan,
        claims=declared_tests(splits, plan.primary, versus_common), by_kind=accuracy_by_kind(eval_tasks, by_stage),
        versus_common=versus_common, arms=arms)


def summary_json(plan: Plan, qs: QuickstartResult) -> dict[str, Any]:
    """``summary.json``: the declared primary test, the secondaries, every split's stages and tests, the arms."""
    claims = qs.claims.to_dict() if qs.claims else {"primary": None, "secondary": [], "tuning": []}
    train = qs.train
    out: dict[str, Any] = {
        "primary": claims["primary"], "secondary": claims["secondary"],
        "tuning": {g: qs.splits[g] for g in claims["tuning"]}, "splits": qs.splits, "steps": train["steps"],
        "warm_start_steps": (train.get("warm_start") or {}).get("steps", 0), "seed": plan.recipe.training.seed,
        "seconds": qs.seconds, "recipe": plan.options.recipe, "family": train["family"],
        "train_reward": {k: v for k, v in train.items() if k.startswith(("train_reward", "trend_", "quarter_", "dynamic_"))},
        "base_from_cache": qs.base_cache}
    if qs.arms:
        out["arms"] = qs.arms
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
    labels = {"base": qs.before, "warm": qs.warm, "control": qs.control, "final": qs.after}
    drawn = {STAGE_LABELS[k]: {s: asdict(v) for s, v in scores.items()} for k, scores in labels.items() if scores}
    train = qs.train
    family = ", ".join(train.get("family") or [])
    title = (f"{'warm start + ' if qs.warm else ''}{str(train.get('algorithm', 'grpo')).upper()} + LoRA on {family}"
             f"{' (+ SFT control)' if qs.control else ''}: {train.get('steps')} steps, "
             f"{qs.seconds.get('train', 0) / 60:.1f} min")
    plot_quickstart(history, drawn, plan.out / "quickstart.png", title)
    with atomic_open(plan.out / "quickstart.md") as fh:
        fh.write(report_markdown(qs))
