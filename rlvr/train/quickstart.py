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
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Sequence

from rlvr.datasets import Mixture
from rlvr.eval.config import EvalConfig
from rlvr.eval.runner import EvalResult, run_eval
from rlvr.models import resolve_model
from rlvr.reasons import format_ok
from rlvr.train.config import DEFAULT_EVAL_SPLITS
from rlvr.train.data import eval_set_specs
from rlvr.train.entry import find_recipe, run_callbacks
from rlvr.train.plots import load_log_history, plot_before_after
from rlvr.eval.stats import mean_se, paired_exact_test
from rlvr.files import atomic_open
from rlvr.train.progress import SFT_KEYS, console_callbacks
from rlvr.train.runner import train
from rlvr.train.sft import cold_start, parse_sft_recipe

log = logging.getLogger(__name__)


@dataclass
class SplitScore:
    """Scores of one model on one eval split."""

    split: str
    n: int
    format_ok: float
    valid: float
    exact_match: float
    f1: float
    reward: float

    def row(self) -> list[str]:
        return [f"{100 * v:.1f}" for v in (self.format_ok, self.valid, self.exact_match, self.f1, self.reward)]


@dataclass
class QuickstartResult:
    """Before/after scores, training summary and where everything was written."""

    output_dir: str
    before: dict[str, SplitScore]
    after: dict[str, SplitScore]
    train: dict[str, Any]
    seconds: dict[str, float] = field(default_factory=dict)
    table: str = ""
    splits: dict[str, Any] = field(default_factory=dict)
    warm: dict[str, SplitScore] | None = None

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        return d


def score_records(records: Sequence[dict[str, Any]], reward_mode: str = "f1") -> dict[str, SplitScore]:
    """Per-split scores from ``rlvr.eval`` task records (first rollout of each task).

    ``reward`` is the training reward's scoring mode re-applied: the mean of the metric named
    ``reward_mode`` (``f1``, ``jaccard`` or ``em``).
    """
    by_split: dict[str, list[dict[str, Any]]] = {}
    for rec in records:
        by_split.setdefault(rec.get("split_group") or rec["split"], []).append(rec["rollouts"][0])
    key = {"f1": "f1", "shaped": "f1", "jaccard": "jaccard"}.get(reward_mode, "em")
    out = {}
    for split, rolls in by_split.items():
        n = len(rolls)
        metric = lambda name: sum(float((r.get("metrics") or {}).get(name, 0.0) or 0.0) for r in rolls) / n  # noqa: E731
        out[split] = SplitScore(
            split=split,
            n=n,
            format_ok=sum(format_ok(r["reason"]) for r in rolls) / n,
            valid=metric("valid"),
            exact_match=sum(bool(r["correct"]) for r in rolls) / n,
            f1=metric("f1"),
            reward=metric(key),
        )
    return out


def _order(splits: Sequence[str]) -> list[str]:
    rank = {"in": 0, "cross": 1, "out": 2}
    return sorted(splits, key=lambda s: (rank.get(s, 9), s))


def render_table(before: dict[str, SplitScore], after: dict[str, SplitScore],
                 warm: dict[str, SplitScore] | None = None) -> str:
    """A Markdown table: per split, format / valid / EM / F1 before -> (after the warm start ->) after (percent)."""
    headers = ["split", "n", "format ok %", "valid %", "exact match %", "F1 %"]
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    for split in _order(list(dict.fromkeys([*before, *after]))):
        b, a, w = before.get(split), after.get(split), (warm or {}).get(split)
        cells = [split, str((a or b).n)]
        for attr in ("format_ok", "valid", "exact_match", "f1"):
            vb = getattr(b, attr) * 100 if b else None
            va = getattr(a, attr) * 100 if a else None
            if vb is not None and va is not None:
                mid = f"{getattr(w, attr) * 100:.1f} -> " if w is not None else ""
                cells.append(f"{vb:.1f} -> {mid}{va:.1f} ({va - vb:+.1f})")
            else:
                cells.append("–")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


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
             batch_size: int) -> EvalResult:
    """Greedy evaluation of ``model`` (+ ``adapter``) on ``tasks_file`` with :mod:`rlvr.eval`."""
    config = EvalConfig(
        model=model, adapter=adapter, tasks_file=str(tasks_file), out=str(out), backend="transformers",
        max_new_tokens=max_new_tokens, batch_size=batch_size, samples=1, device="cpu", dtype="float32",
        plots=False, overwrite=True,
    )
    return run_eval(config)


def _say(text: str) -> None:
    """A phase line on the console (stdout, flushed, so it interleaves with the progress bars)."""
    print(f"[rlvr quickstart] {text}", flush=True)


def per_task_correct(records: Sequence[dict[str, Any]]) -> dict[str, dict[str, bool]]:
    """``{split: {task id: correct}}`` of the first rollout of each task record."""
    out: dict[str, dict[str, bool]] = {}
    for rec in records:
        split = rec.get("split_group") or rec["split"]
        out.setdefault(split, {})[rec["id"]] = bool(rec["rollouts"][0]["correct"])
    return out


def _paired(b_tasks: dict[str, bool], a_tasks: dict[str, bool]) -> tuple[list[bool], list[bool]]:
    ids = [i for i in b_tasks if i in a_tasks]
    return [b_tasks[i] for i in ids], [a_tasks[i] for i in ids]


def build_summary(before_records: Sequence[dict[str, Any]], after_records: Sequence[dict[str, Any]],
                  before: dict[str, SplitScore], after: dict[str, SplitScore],
                  warm_records: Sequence[dict[str, Any]] | None = None,
                  warm: dict[str, SplitScore] | None = None) -> dict[str, Any]:
    """Per split (``in``, ``cross``, ``out``): n, exact match before/after with standard errors, the
    exact McNemar p-value on the paired outcomes, F1 and format before/after (fractions in [0, 1]).

    With a warm-start stage (``warm_records``): also ``em_warm`` and the paired test of warm start ->
    after (``gained_rl``, ``lost_rl``, ``p_value_rl``), the RL stage's own contribution.
    """
    b_tasks, a_tasks = per_task_correct(before_records), per_task_correct(after_records)
    w_tasks = per_task_correct(warm_records) if warm_records is not None else None
    splits: dict[str, Any] = {}
    for split in _order(list(dict.fromkeys([*b_tasks, *a_tasks]))):
        b, a = _paired(b_tasks.get(split, {}), a_tasks.get(split, {}))
        test = paired_exact_test(b, a)
        em_b, se_b, _ = mean_se(float(x) for x in b)
        em_a, se_a, _ = mean_se(float(x) for x in a)
        sb, sa = before.get(split), after.get(split)
        row = {
            "n": len(b), "em_before": em_b, "em_after": em_a, "em_se_before": se_b, "em_se_after": se_a,
            "gained": test.gained, "lost": test.lost, "p_value": test.p_value,
            "f1_before": sb.f1 if sb else None, "f1_after": sa.f1 if sa else None,
            "format_before": sb.format_ok if sb else None, "format_after": sa.format_ok if sa else None,
        }
        if w_tasks is not None:
            w, a2 = _paired(w_tasks.get(split, {}), a_tasks.get(split, {}))
            rl = paired_exact_test(w, a2)
            em_w, se_w, _ = mean_se(float(x) for x in w)
            sw = (warm or {}).get(split)
            row.update({
                "em_warm": em_w, "em_se_warm": se_w, "gained_rl": rl.gained, "lost_rl": rl.lost,
                "p_value_rl": rl.p_value, "f1_warm": sw.f1 if sw else None, "format_warm": sw.format_ok if sw else None,
            })
        splits[split] = row
    return splits


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
) -> QuickstartResult:
    """Evaluate the base model; warm start (SFT on verified worked solutions, when the recipe has
    ``sft_steps > 0``) and evaluate; GRPO + LoRA from there; evaluate again; write a report into ``output_dir``.

    Every evaluation scores the same greedy tasks, so ``summary.json`` pairs them: base -> final (``p_value``),
    and warm start -> final (``p_value_rl``, the RL stage's own contribution).
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
    _say(f"loading the model {model_args.model_name_or_path or 'default'}")
    model = resolve_model(model_args.model_name_or_path)
    model_args.model_name_or_path = model
    if not task_args.eval_splits and not task_args.eval_sets:
        task_args.eval_splits = list(DEFAULT_EVAL_SPLITS)
    specs = eval_set_specs(task_args)
    if eval_size is not None:  # --eval-size: every set, including eval_sets with a size of their own
        specs = {name: {**spec, "size": int(eval_size)} for name, spec in specs.items()}
    new_tokens = int(max_new_tokens or training_args.max_completion_length or 64)
    tasks_file, sizes = write_eval_tasks(out / "eval_tasks.jsonl", specs, task_args.eval_seed)
    n_eval = sum(sizes.values())
    per_set = ", ".join(f"{name} {n}" for name, n in sizes.items())
    seconds: dict[str, float] = {}
    reward_mode = task_args.reward_mode or "em"

    def stage_eval(name: str, what: str, model_path: str, adapter: str | None) -> tuple[dict[str, SplitScore], list[dict[str, Any]]]:
        _say(f"evaluating {what} on {n_eval} tasks ({per_set}), greedy")
        t0 = time.time()
        res = evaluate(model_path, adapter, tasks_file, out / name, max_new_tokens=new_tokens, batch_size=eval_batch_size)
        seconds[name] = round(time.time() - t0, 1)
        scores, records = score_records(res.records, reward_mode), _slim(res.records)
        _write_json(out / name / "scores.json", {k: asdict(v) for k, v in scores.items()})
        _write_json(out / name / "records.json", records)
        return scores, records

    before_file = out / "eval_before" / "scores.json"
    if skip_before and before_file.is_file() and (out / "eval_before" / "records.json").is_file():
        _say("reusing the base model's scores from the previous run")
        before = {k: SplitScore(**v) for k, v in json.loads(before_file.read_text()).items()}
        before_records = json.loads((out / "eval_before" / "records.json").read_text())
    else:
        before, before_records = stage_eval("eval_before", "the base model", model, None)

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
    history = _log_history(Path(training_args.output_dir))
    train_summary.update(_reward_curve(history))
    table = render_table(before, after, warm)
    qs = QuickstartResult(output_dir=str(out), before=before, after=after, train=train_summary, seconds=seconds,
                          table=table, splits=summary_splits, warm=warm)
    _write_json(out / "quickstart.json", qs.to_dict())
    _write_json(out / "summary.json", {"splits": summary_splits, "steps": result.global_step,
                                       "warm_start_steps": sft_info.get("steps", 0),
                                       "seed": training_args.seed, "seconds": seconds,
                                       "recipe": recipe, "family": train_summary["family"]})
    _plot(out, history, qs)
    with atomic_open(out / "quickstart.md") as fh:
        fh.write(report_markdown(qs))
    return qs


def _slim(records: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """What the paired test needs of eval records: id, split group and the first rollout's verdict."""
    return [{"id": r["id"], "split": r["split"], "split_group": r.get("split_group"),
             "rollouts": [{"correct": bool(r["rollouts"][0]["correct"]), "reason": r["rollouts"][0]["reason"]}]}
            for r in records]


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


def _reward_curve(history: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """First/last-quarter mean train reward (and each reward function's) from the run's log history."""
    logs = [h for h in history if "reward" in h]
    if len(logs) < 2:
        return {}
    q = max(1, len(logs) // 4)

    def mean(items, key):
        vals = [h[key] for h in items if h.get(key) is not None]
        return round(sum(vals) / len(vals), 4) if vals else None

    out = {"train_reward_first_quarter": mean(logs[:q], "reward"), "train_reward_last_quarter": mean(logs[-q:], "reward")}
    for key in logs[0]:
        if key.startswith("rewards/") and key.endswith("/mean"):
            name = key.split("/")[1]
            out[f"{name}_first_quarter"] = mean(logs[:q], key)
            out[f"{name}_last_quarter"] = mean(logs[-q:], key)
    return out


def report_markdown(qs: QuickstartResult) -> str:
    """The quickstart report (what the command prints at the end)."""
    t = qs.train
    ws = t.get("warm_start") or {}
    algo = str(t.get("algorithm", "grpo")).upper()
    stages = (f"warm start ({ws.get('steps')} SFT steps on verified worked solutions, loss {ws.get('first_loss', 0):.2f} -> "
              f"{ws.get('last_loss', 0):.2f}), then " if ws else "")
    lines = [
        "# rlvr quickstart",
        "",
        f"{stages}{algo} + LoRA on {', '.join(t['family'])} ({t['options'][0] if t['options'] else {}}), "
        f"{t['steps']} steps at {t['seconds_per_step']:.1f} s/step; rewards {t['reward_funcs']} (mode {t['reward_mode']}).",
        "",
        ("columns: base -> after the warm start -> after " + algo if ws else "columns: base -> after " + algo),
        "",
        qs.table,
        "",
        "format ok = the completion has an <answer> block that parses; exact match = the whole product bag is right;",
        "F1 = partial credit on (molecule, coefficient) counts. Greedy decoding, the same tasks at every stage.",
        "",
        f"figure: {qs.output_dir}/quickstart.png (train curves; scores per split)",
    ]
    if qs.splits:
        lines += ["", "exact match, paired (the same tasks at every stage; exact McNemar test):"]
        for split, row in qs.splits.items():
            mid = f" -> {100 * row['em_warm']:.1f}" if "em_warm" in row else ""
            lines.append(
                f"  {split}: {100 * row['em_before']:.1f}{mid} -> {100 * row['em_after']:.1f} % "
                f"(± {100 * row['em_se_after']:.1f} SE, n = {row['n']}; base -> final: {row['gained']} tasks became right, "
                f"{row['lost']} wrong, p = {row['p_value']:.3g}"
                + (f"; {algo} alone: +{row['gained_rl']} / -{row['lost_rl']}, p = {row['p_value_rl']:.3g}" if "p_value_rl" in row else "")
                + ")")
        lines.append(f"  machine-readable: {qs.output_dir}/summary.json")
    if "train_reward_first_quarter" in t:
        lines += ["", f"train reward: first quarter {t['train_reward_first_quarter']} -> last quarter {t['train_reward_last_quarter']}"]
    lines += ["", "seconds: " + ", ".join(f"{k} {v}" for k, v in qs.seconds.items()), f"output: {qs.output_dir}"]
    return "\n".join(lines) + "\n"
