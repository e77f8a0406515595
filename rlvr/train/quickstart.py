"""The CPU proof: evaluate the embedded model, train it with GRPO + LoRA, evaluate again.

``rlvr quickstart`` runs :func:`run_quickstart`: a fixed eval set (in / cross / out splits of the
recipe's family) is scored before and after a short GRPO run, and a table reports, per split,
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
from rlvr.train.config import DEFAULT_EVAL_SPLITS, parse_recipe
from rlvr.train.entry import find_recipe
from rlvr.train.plots import load_log_history, plot_before_after
from rlvr.eval.stats import mean_se, paired_exact_test
from rlvr.files import atomic_open
from rlvr.train.progress import CompactProgress, JsonlMetricsLog
from rlvr.train.runner import train

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


def render_table(before: dict[str, SplitScore], after: dict[str, SplitScore]) -> str:
    """A Markdown table: per split, format / valid / EM / F1 before -> after (percent)."""
    headers = ["split", "n", "format ok %", "valid %", "exact match %", "F1 %"]
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    for split in _order(list(dict.fromkeys([*before, *after]))):
        b, a = before.get(split), after.get(split)
        cells = [split, str((a or b).n)]
        for attr in ("format_ok", "valid", "exact_match", "f1"):
            vb = getattr(b, attr) * 100 if b else None
            va = getattr(a, attr) * 100 if a else None
            if vb is not None and va is not None:
                cells.append(f"{vb:.1f} -> {va:.1f} ({va - vb:+.1f})")
            else:
                cells.append("–")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def write_eval_tasks(path: Path, mix: Sequence[Any], splits: Sequence[str], n: int, seed: int) -> Path:
    """Write the fixed eval set (``n`` tasks per split of the mixture) as a task JSONL.

    The mixture's prompt options give the tasks the prompts the model is trained with.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as fh:
        for split in splits:
            mixture = Mixture(list(mix), split, seed)
            for i in range(n):
                task = mixture.task_at(i)
                fh.write(task.to_json() + "\n")
    return path


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


def build_summary(before_records: Sequence[dict[str, Any]], after_records: Sequence[dict[str, Any]],
                  before: dict[str, SplitScore], after: dict[str, SplitScore]) -> dict[str, Any]:
    """Per split (``in``, ``cross``, ``out``): n, exact match before/after with standard errors, the
    exact McNemar p-value on the paired outcomes, F1 and format before/after (fractions in [0, 1])."""
    b_tasks, a_tasks = per_task_correct(before_records), per_task_correct(after_records)
    splits: dict[str, Any] = {}
    for split in _order(list(dict.fromkeys([*b_tasks, *a_tasks]))):
        ids = [i for i in b_tasks.get(split, {}) if i in a_tasks.get(split, {})]
        b = [b_tasks[split][i] for i in ids]
        a = [a_tasks[split][i] for i in ids]
        test = paired_exact_test(b, a)
        em_b, se_b, _ = mean_se(float(x) for x in b)
        em_a, se_a, _ = mean_se(float(x) for x in a)
        sb, sa = before.get(split), after.get(split)
        splits[split] = {
            "n": len(ids), "em_before": em_b, "em_after": em_a, "em_se_before": se_b, "em_se_after": se_a,
            "gained": test.gained, "lost": test.lost, "p_value": test.p_value,
            "f1_before": sb.f1 if sb else None, "f1_after": sa.f1 if sa else None,
            "format_before": sb.format_ok if sb else None, "format_after": sa.format_ok if sa else None,
        }
    return splits


def run_quickstart(
    *,
    recipe: str = "quickstart",
    output_dir: str = "outputs/quickstart",
    minutes: float | None = None,
    max_steps: int | None = None,
    eval_size: int | None = None,
    max_new_tokens: int | None = None,
    eval_batch_size: int = 16,
    overrides: Sequence[str] = (),
    skip_before: bool = False,
) -> QuickstartResult:
    """Evaluate, train (GRPO + LoRA on the recipe), evaluate again; write a report into ``output_dir``."""
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
    task_args, training_args, model_args = parse_recipe(args, prog="rlvr quickstart")
    # eval happens before and after, with rlvr.eval; none during this short run
    training_args.eval_strategy = "no"
    _say(f"loading the model {model_args.model_name_or_path or 'default'}")
    model = resolve_model(model_args.model_name_or_path)
    splits = list(task_args.eval_splits or DEFAULT_EVAL_SPLITS)
    new_tokens = int(max_new_tokens or training_args.max_completion_length or 64)
    tasks_file = write_eval_tasks(out / "eval_tasks.jsonl", task_args.mix(), splits, task_args.eval_size, task_args.eval_seed)
    n_eval = task_args.eval_size * len(splits)
    seconds: dict[str, float] = {}
    reward_mode = task_args.reward_mode or "em"

    before: dict[str, SplitScore] = {}
    before_file = out / "eval_before" / "scores.json"
    before_records: list[dict[str, Any]] = []
    if skip_before and before_file.is_file() and (out / "eval_before" / "records.json").is_file():
        _say("reusing the base model's scores from the previous run")
        before = {k: SplitScore(**v) for k, v in json.loads(before_file.read_text()).items()}
        before_records = json.loads((out / "eval_before" / "records.json").read_text())
    else:
        _say(f"evaluating the base model on {n_eval} tasks ({task_args.eval_size} per split: {', '.join(splits)}), greedy")
        t0 = time.time()
        res = evaluate(model, None, tasks_file, out / "eval_before", max_new_tokens=new_tokens, batch_size=eval_batch_size)
        seconds["eval_before"] = round(time.time() - t0, 1)
        before = score_records(res.records, reward_mode)
        before_records = _slim(res.records)
        _write_json(before_file, {k: asdict(v) for k, v in before.items()})
        _write_json(out / "eval_before" / "records.json", before_records)

    steps = int(training_args.max_steps)
    _say(f"training {steps} {task_args.algorithm.upper()} steps (metrics: {training_args.output_dir}/metrics.jsonl"
         f"{', TensorBoard' if 'tensorboard' in (training_args.report_to or []) else ''})")
    t0 = time.time()
    progress = CompactProgress(every=max(1, steps // 10))
    result = train(task_args, training_args, model_args,
                   callbacks=[progress, JsonlMetricsLog(Path(training_args.output_dir) / "metrics.jsonl")])
    seconds["train"] = round(time.time() - t0, 1)

    _say(f"evaluating the trained model on the same {n_eval} tasks")
    t0 = time.time()
    res = evaluate(model, str(out / "train"), tasks_file, out / "eval_after", max_new_tokens=new_tokens, batch_size=eval_batch_size)
    seconds["eval_after"] = round(time.time() - t0, 1)
    after = score_records(res.records, reward_mode)
    _write_json(out / "eval_after" / "scores.json", {k: asdict(v) for k, v in after.items()})
    seconds["total"] = round(time.time() - t_all, 1)
    summary_splits = build_summary(before_records, _slim(res.records), before, after)

    train_summary = {
        "steps": result.global_step,
        "seconds_per_step": result.seconds_per_step,
        "last_train_reward": result.last_train_log.get("reward"),
        "family": [m.family for m in task_args.mix()],
        "options": [m.options for m in task_args.mix()],
        "reward_funcs": task_args.reward_funcs,
        "reward_mode": task_args.reward_mode,
    }
    history = _log_history(Path(training_args.output_dir))
    train_summary.update(_reward_curve(history))
    table = render_table(before, after)
    qs = QuickstartResult(output_dir=str(out), before=before, after=after, train=train_summary, seconds=seconds,
                          table=table, splits=summary_splits)
    _write_json(out / "quickstart.json", qs.to_dict())
    _write_json(out / "summary.json", {"splits": summary_splits, "steps": result.global_step,
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
            title=f"GRPO + LoRA on {family}: {qs.train.get('steps')} steps, {qs.seconds.get('train', 0) / 60:.0f} min",
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
    lines = [
        "# rlvr quickstart",
        "",
        f"GRPO + LoRA on {', '.join(t['family'])} ({t['options'][0] if t['options'] else {}}), "
        f"{t['steps']} steps at {t['seconds_per_step']:.1f} s/step; rewards {t['reward_funcs']} (mode {t['reward_mode']}).",
        "",
        qs.table,
        "",
        "format ok = the completion has an <answer> block that parses; exact match = the whole product bag is right;",
        "F1 = partial credit on (molecule, coefficient) counts. Greedy decoding, same tasks before and after.",
        "",
        f"figure: {qs.output_dir}/quickstart.png (train curves; before/after per split)",
    ]
    if qs.splits:
        lines += ["", "exact match, paired (the same tasks before and after; exact McNemar test):"]
        for split, row in qs.splits.items():
            lines.append(
                f"  {split}: {100 * row['em_before']:.1f} -> {100 * row['em_after']:.1f} % "
                f"(± {100 * row['em_se_after']:.1f} SE, n = {row['n']}; {row['gained']} tasks became right, "
                f"{row['lost']} wrong; p = {row['p_value']:.3g})")
        lines.append(f"  machine-readable: {qs.output_dir}/summary.json")
    if "train_reward_first_quarter" in t:
        lines += ["", f"train reward: first quarter {t['train_reward_first_quarter']} -> last quarter {t['train_reward_last_quarter']}"]
    lines += ["", "seconds: " + ", ".join(f"{k} {v}" for k, v in qs.seconds.items()), f"output: {qs.output_dir}"]
    return "\n".join(lines) + "\n"
