"""The CPU proof: evaluate the embedded model, warm-start it, train it with GRPO + LoRA, evaluate again.

``rlvr quickstart`` runs :func:`run_quickstart`: a fixed eval set (in / cross / out splits of the
recipe's family) is scored on the base model, after a short supervised warm start on rlvr's own
verified worked solutions (recipes with ``sft_steps > 0``), and after a short GRPO run from there;
a table reports, per split,
format compliance (an ``<answer>`` block that parses) separately from correctness (exact match,
F1 on (molecule, coefficient) counts, and the training reward).
"""
from __future__ import annotations

import json
import logging
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any, Sequence

from rlvr.datasets import Mixture
from rlvr.eval.config import EvalConfig
from rlvr.eval.runner import EvalResult, run_eval
from rlvr.files import atomic_open
from rlvr.models import resolve_model
from rlvr.task import load_tasks
from rlvr.train import eval_cache
from rlvr.train.budget import budget_row, checkpoint_dir, checkpoint_steps, smallest_significant
from rlvr.train.claims import PrimaryTest, declared_tests, is_tuning_split
from rlvr.train.data import default_eval_splits, eval_set_specs
from rlvr.train.device_budget import cuda_available
from rlvr.train.entry import find_recipe, run_callbacks
from rlvr.train.plots import load_log_history, plot_before_after
from rlvr.train.progress import SFT_KEYS, console_callbacks
from rlvr.train.quickstart_report import (  # noqa: F401 - re-exported: the report's helpers were defined here
    QuickstartResult,
    accuracy_by_kind,
    SplitScore,
    build_summary,
    per_task_correct,
    render_table,
    report_markdown,
    reward_metric,
    reward_trend,
    score_records,
    versus_common_answers,
)
from rlvr.train.runner import train
from rlvr.train.sft import cold_start, parse_sft_recipe

log = logging.getLogger(__name__)


def write_eval_tasks(path: Path, specs: dict[str, dict[str, Any]], seed: int) -> tuple[Path, dict[str, int]]:
    """Write the fixed eval set as a task JSONL: ``size`` tasks of each spec's mixture on its split
    (``specs`` as :func:`rlvr.train.data.eval_set_specs` gives them). Returns the path and the sizes by set.

    The mixture's prompt options give the tasks the prompts the model is trained with.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_open(path) as fh:
        for spec in specs.values():
            mixture = Mixture(list(spec["mix"]), spec["split"], seed)
            for i in range(int(spec["size"])):
                fh.write(mixture.task_at(i).to_json() + "\n")
    return path, {name: int(spec["size"]) for name, spec in specs.items()}


def evaluate(model: str, adapter: str | None, tasks_file: Path, out: Path, *, max_new_tokens: int,
             batch_size: int, device: str = "auto", dtype: str = "auto") -> EvalResult:
    """Greedy evaluation of ``model`` (+ ``adapter``, merged into the weights) on ``tasks_file`` with :mod:`rlvr.eval`.

    ``device="auto"``: a CUDA GPU when torch sees one (bfloat16 there), else the CPU in float32.
    """
    config = EvalConfig(
        model=model, adapter=adapter, tasks_file=str(tasks_file), out=str(out), backend="transformers",
        max_new_tokens=max_new_tokens, batch_size=batch_size, samples=1, device=device, dtype=dtype,
        plots=False, overwrite=True,
    )
    return run_eval(config)


def _say(text: str) -> None:
    """A phase line on the console (stdout, flushed, so it interleaves with the progress bars)."""
    print(f"[rlvr quickstart] {text}", flush=True)


def run_quickstart(
    *,
    recipe: str = "quickstart",
    output_dir: str = "outputs/quickstart",
    minutes: float | None = None,
    max_steps: int | None = None,
    eval_size: int | None = None,
    max_new_tokens: int | None = None,
    eval_batch_size: int = 64,  # greedy eval on 2 CPU cores: 64 rows took 0.84x the time of 32 (identical text)
    overrides: Sequence[str] = (),
    skip_before: bool = False,
    base_cache: bool = True,
    eval_every: int | None = None,
) -> QuickstartResult:
    """Evaluate the base model; warm start (SFT on verified worked solutions, when the recipe has
    ``sft_steps > 0``) and evaluate; GRPO + LoRA from there; evaluate again; write a report into ``output_dir``.

    Every evaluation scores the same greedy tasks, so ``summary.json`` pairs them: base -> final (``p_value``),
    and warm start -> final (``p_value_rl`` on exact match, ``reward_p_value_rl`` on per-task reward: the RL
    stage's own contribution). ``base_cache``: read the base model's answers from the cache an earlier
    run on this machine wrote for the same tasks, model and settings (and write it when absent).
    ``eval_every``: also keep and score a checkpoint every that many GRPO steps (``summary.json``'s
    ``budget``: the RL stage's paired tests against the step budget, :mod:`rlvr.train.budget`).
    """
    t_all = time.time()
    out = Path(output_dir)
    out.mkdir(parents=True, exist_ok=True)
    args = ["--config", find_recipe(recipe), "--output_dir", str(out / "train"), *overrides]
    if minutes is not None:
        args += ["--max_train_minutes", str(minutes)]
    if max_steps is not None:
        args += ["--max_steps", str(max_steps)]
    if eval_size is not None:
        args += ["--eval_size", str(eval_size)]
    task_args, sft_args, training_args, model_args = parse_sft_recipe(args, prog="rlvr quickstart")
    # eval happens before and after, with rlvr.eval; none during this short run
    training_args.eval_strategy = "no"
    budgets = checkpoint_steps(eval_every, int(training_args.max_steps)) if eval_every else []
    if budgets:  # every scored budget needs its checkpoint; keep them all
        training_args.save_strategy, training_args.save_steps, training_args.save_total_limit = "steps", eval_every, None
    if not task_args.eval_splits and not task_args.eval_sets:  # the family's own held-out splits
        task_args.eval_splits = default_eval_splits(task_args)
    specs = eval_set_specs(task_args)
    held_out = [spec["split"] for spec in specs.values() if not is_tuning_split(spec["split"])]
    primary = PrimaryTest.from_recipe(task_args.primary_test, has_warm_start=sft_args.sft_steps > 0,
                                      default_split="test_in" if "test_in" in held_out or not held_out else held_out[0])
    if primary.split not in {spec["split"] for spec in specs.values()} | set(specs):  # e.g. a tuning run on valid
        _say(f"the primary test's split {primary.split} is not among this run's eval sets ({', '.join(specs)}): "
             "this run tests no claim")
    if eval_size is not None:  # --eval-size: every set, including eval_sets with a size of their own
        specs = {name: {**spec, "size": int(eval_size)} for name, spec in specs.items()}
    # the recipe's families and eval sets are resolved above, so a misspelt family fails before any model loads
    _say(f"loading the model {model_args.model_name_or_path or 'default'}")
    model = resolve_model(model_args.model_name_or_path)
    model_args.model_name_or_path = model
    new_tokens = int(max_new_tokens or training_args.max_completion_length or 64)
    # every evaluation, and the base-answer cache's key: the GPU in bfloat16 when torch sees one, else the CPU
    eval_device, eval_dtype = ("cuda", "bfloat16") if cuda_available() else ("cpu", "float32")
    tasks_file, sizes = write_eval_tasks(out / "eval_tasks.jsonl", specs, task_args.eval_seed)
    n_eval = sum(sizes.values())
    per_set = ", ".join(f"{name} {n}" for name, n in sizes.items())
    seconds: dict[str, float] = {}
    reward_mode = task_args.reward_mode or "em"

    def stage_eval(name: str, what: str, model_path: str, adapter: str | None) -> tuple[dict[str, SplitScore], list[dict[str, Any]]]:
        _say(f"evaluating {what} on {n_eval} tasks ({per_set}), greedy")
        t0 = time.time()
        res = evaluate(model_path, adapter, tasks_file, out / name, max_new_tokens=new_tokens, batch_size=eval_batch_size,
                       device=eval_device, dtype=eval_dtype)
        seconds[name] = round(time.time() - t0, 1)
        scores, records = score_records(res.records, reward_mode), _slim(res.records, reward_mode)
        _write_json(out / name / "scores.json", {k: asdict(v) for k, v in scores.items()})
        _write_json(out / name / "records.json", records)
        return scores, records

    before_file = out / "eval_before" / "scores.json"
    cached_from: str | None = None
    key = eval_cache.cache_key(model, tasks_file, {"max_new_tokens": new_tokens, "batch_size": eval_batch_size,
                                                   "reward_mode": reward_mode, "backend": "transformers",
                                                   "device": eval_device, "dtype": eval_dtype})
    entry = eval_cache.load_entry(key) if base_cache else None
    if skip_before and before_file.is_file() and (out / "eval_before" / "records.json").is_file():
        _say("reusing the base model's scores from the previous run")
        before = {k: SplitScore(**v) for k, v in json.loads(before_file.read_text()).items()}
        before_records = json.loads((out / "eval_before" / "records.json").read_text())
    elif entry is not None:
        cached_from = str(eval_cache.entry_dir(key))
        _say(f"the base model's answers on these {n_eval} tasks: read from the cache an earlier run on this machine "
             f"wrote ({cached_from}; --no-base-cache to evaluate again)")
        before = {k: SplitScore(**v) for k, v in entry[0].items()}
        before_records = entry[1]
        _write_json(out / "eval_before" / "scores.json", entry[0])
        _write_json(out / "eval_before" / "records.json", before_records)
        seconds["eval_before"] = 0.0
    else:
        before, before_records = stage_eval("eval_before", "the base model", model, None)
        if base_cache:
            eval_cache.save_entry(key, {k: asdict(v) for k, v in before.items()}, before_records)

    warm: dict[str, SplitScore] | None = None
    warm_records: list[dict[str, Any]] | None = None
    sft_info: dict[str, Any] = {}
    if sft_args.sft_steps > 0:
        sft_args.sft_output_dir = sft_args.sft_output_dir or str(out / "warm_start")
        _say(f"warm start: {sft_args.sft_steps} SFT steps on {sft_args.sft_train_size} verified worked solutions "
             f"({sft_args.sft_style}) from the {sft_args.sft_split} split")
        t0 = time.time()
        sft_callbacks = console_callbacks(task_args.console, sft_args.sft_output_dir, sft_args.sft_steps,
                                          sft_args.sft_logging_steps, keys=SFT_KEYS, desc="warm start",
                                          every=max(1, sft_args.sft_steps // 4))
        sft_result = cold_start(task_args, sft_args, training_args, model_args, callbacks=sft_callbacks)
        seconds["warm_start"] = round(time.time() - t0, 1)
        sft_info = {k: sft_result.to_dict()[k] for k in ("steps", "first_loss", "last_loss", "merged_dir")}
        model_args.model_name_or_path = sft_result.merged_dir
        warm, warm_records = stage_eval("eval_warm", "the warm-started model", str(sft_result.merged_dir), None)

    steps = int(training_args.max_steps)
    start = "the warm-started model" if warm is not None else "the base model"
    _say(f"training {steps} {task_args.algorithm.upper()} steps from {start} (metrics: {training_args.output_dir}/"
         f"metrics.jsonl{', TensorBoard' if 'tensorboard' in (training_args.report_to or []) else ''})")
    t0 = time.time()
    result = train(task_args, training_args, model_args, callbacks=run_callbacks(task_args, training_args))
    seconds["train"] = round(time.time() - t0, 1)

    after, after_records = stage_eval("eval_after", "the trained model", str(model_args.model_name_or_path), str(out / "train"))
    seconds["total"] = round(time.time() - t_all, 1)
    summary_splits = build_summary(before_records, after_records, before, after, warm_records, warm)
    claims = declared_tests(summary_splits, primary)
    history = _log_history(Path(training_args.output_dir))
    budget: list[dict[str, Any]] = []
    ref_records, ref = (warm_records, warm) if warm_records is not None else (before_records, before)
    # a --minutes cap may stop the run before some budgets: those are left out
    for step in [s for s in budgets if s < result.global_step] + [result.global_step] if budgets else []:
        ckpt = checkpoint_dir(Path(training_args.output_dir), step)
        if step == result.global_step:
            scores, records = after, after_records
        elif ckpt.is_dir():
            scores, records = stage_eval(f"eval_step{step}", f"the step-{step} checkpoint",
                                         str(model_args.model_name_or_path), str(ckpt))
        else:
            continue
        budget.append(budget_row(step, result.global_step, seconds["train"],
                                 build_summary(before_records, records, before, scores, ref_records, ref),
                                 reward_trend(history, up_to=step), primary=primary))
    train_summary = {
        "algorithm": task_args.algorithm,
        "steps": result.global_step,
        "seconds_per_step": result.seconds_per_step,
        "last_train_reward": result.last_train_log.get("reward"),
        "family": [m.family for m in task_args.mix()],
        "options": [m.options for m in task_args.mix()],
        "reward_funcs": task_args.reward_funcs,
        "reward_mode": task_args.reward_mode,
        "warm_start": sft_info,
    }
    train_summary.update(reward_trend(history))
    table = render_table(before, after, warm)
    eval_tasks = load_tasks(tasks_file)
    stage_records = {"base": before_records, "warm start": warm_records, "final": after_records}
    by_kind = accuracy_by_kind(eval_tasks, stage_records)
    versus_common = versus_common_answers(eval_tasks, stage_records)
    qs = QuickstartResult(output_dir=str(out), before=before, after=after, train=train_summary, seconds=seconds,
                          table=table, splits=summary_splits, warm=warm, base_cache=cached_from, budget=budget,
                          claims=claims, by_kind=by_kind, versus_common=versus_common)
    _write_json(out / "quickstart.json", qs.to_dict())
    _write_json(out / "summary.json", {"primary": claims["primary"], "secondary": claims["secondary"],
                                       "tuning": {g: summary_splits[g] for g in claims["tuning"]},
                                       "splits": summary_splits, "steps": result.global_step,
                                       "warm_start_steps": sft_info.get("steps", 0),
                                       "seed": training_args.seed, "seconds": seconds,
                                       "recipe": recipe, "family": train_summary["family"],
                                       "train_reward": {k: v for k, v in train_summary.items()
                                                        if k.startswith(("train_reward", "trend_", "quarter_", "dynamic_"))},
                                       "base_from_cache": cached_from,
                                       **({"by_kind": by_kind} if by_kind else {}),
                                       **({"versus_most_common_answer": versus_common} if versus_common else {}),
                                       **({"budget": budget,
                                           "budget_smallest_significant": smallest_significant(budget, primary)}
                                          if budget else {})})
    _plot(out, history, qs)
    with atomic_open(out / "quickstart.md") as fh:
        fh.write(report_markdown(qs))
    return qs


def _slim(records: Sequence[dict[str, Any]], reward_mode: str = "f1") -> list[dict[str, Any]]:
    """What the paired tests need of eval records: id, split group and the first rollout's verdict and
    per-task reward (the checker's metric of the recipe's reward mode, as :func:`score_records` reads it)."""
    key = reward_metric(reward_mode)
    out = []
    for r in records:
        roll = r["rollouts"][0]
        metrics = roll.get("metrics") or {}
        reward = float(metrics.get(key, 0.0) or 0.0) if key != "em" else float(bool(roll["correct"]))
        out.append({"id": r["id"], "split": r["split"], "split_group": r.get("split_group"),
                    "rollouts": [{"correct": bool(roll["correct"]), "reason": roll["reason"], "reward": reward}]})
    return out


def _write_json(path: Path, data: Any) -> None:
    with atomic_open(path) as fh:
        fh.write(json.dumps(data, indent=2, default=str) + "\n")


def _log_history(train_dir: Path) -> list[dict[str, Any]]:
    """The run's log history (empty when the run saved none)."""
    try:
        return load_log_history(train_dir)
    except FileNotFoundError:
        return []


def _plot(out: Path, history: Sequence[dict[str, Any]], qs: QuickstartResult) -> None:
    """``quickstart.png``: the train curves and the before/after scores (never fails the run)."""
    try:
        family = ", ".join(qs.train.get("family") or [])
        plot_before_after(
            history,
            {k: asdict(v) for k, v in qs.before.items()}, {k: asdict(v) for k, v in qs.after.items()},
            out / "quickstart.png",
            warm={k: asdict(v) for k, v in qs.warm.items()} if qs.warm else None,
            title=(f"{'warm start + ' if qs.warm else ''}{str(qs.train.get('algorithm', 'grpo')).upper()} + LoRA on {family}: "
                   f"{qs.train.get('steps')} steps, {qs.seconds.get('train', 0) / 60:.1f} min"),
        )
    except Exception:  # noqa: BLE001 - a plot must never fail a finished run
        log.warning("could not plot the quickstart figure", exc_info=True)


