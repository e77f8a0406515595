"""What ``rlvr quickstart`` reports: per-split scores, the paired tests between stages, the
training-reward trend, and the printed report.

Per split, the paired tests (the recipe declares ONE of them as its primary test, :mod:`rlvr.train.claims`;
the rest are secondary and reported with Holm-adjusted p-values):

- ``p_value`` / ``gained`` / ``lost``: base -> final, exact McNemar test on exact match;
- ``reward_p_value`` / ``better`` / ``worse``: base -> final, exact Wilcoxon signed-rank test on per-task reward;
- ``p_value_rl`` / ``gained_rl`` / ``lost_rl``: warm start -> final (the RL stage's own contribution),
  exact McNemar test on exact match;
- ``reward_p_value_rl`` / ``better_rl`` / ``worse_rl``: warm start -> final, exact Wilcoxon signed-rank
  test on the per-task reward (the checker's reward in the recipe's ``reward_mode``);
- ``em_*``, ``reward_*``, ``f1_*``, ``format_*`` at every stage, with standard errors of exact match;

and for the run, the training-reward trend, descriptive only: the mean of the last quarter of steps against
the first (on ``rlvr/reward_drawn``, the reward of the tasks as drawn, when the run logs it). It has no
interval: steps are autocorrelated, and frontier selection draws harder tasks as the model improves, so a
flat drawn reward can hide learning. The fixed-task tests (and ``--eval-every`` checkpoints) are the evidence.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Sequence

from rlvr.eval.layouts import accuracy_by_group, against_common_answers, constant_answer_by_group, metric_note
from rlvr.eval.stats import mean_se, paired_exact_test, paired_signed_rank_test, quarter_trend, sign_test_p_value
from rlvr.eval.tables import metric_value
from rlvr.reasons import format_ok
from rlvr.task import Task
from rlvr.train.budget import render_budget
from rlvr.train.claims import is_tuning_split, render_claims

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
    base_cache: str | None = None
    budget: list[dict[str, Any]] = field(default_factory=list)
    claims: dict[str, Any] = field(default_factory=dict)
    by_kind: dict[str, dict[str, list[int]]] = field(default_factory=dict)
    versus_common: dict[str, dict[str, Any]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        return d


def reward_metric(reward_mode: str) -> str:
    """The verdict metric that is the training reward's scoring mode (``f1``, ``jaccard`` or ``em``)."""
    return {"f1": "f1", "shaped": "f1", "jaccard": "jaccard"}.get(reward_mode, "em")


def score_records(records: Sequence[dict[str, Any]], reward_mode: str = "f1") -> dict[str, SplitScore]:
    """Per-split scores from ``rlvr.eval`` task records (first rollout of each task).

    ``reward`` is the training reward's scoring mode re-applied: the mean of the metric named
    ``reward_mode`` (``f1``, ``jaccard`` or ``em``).
    """
    by_split: dict[str, list[dict[str, Any]]] = {}
    for rec in records:
        by_split.setdefault(rec.get("split_group") or rec["split"], []).append(rec["rollouts"][0])
    key = reward_metric(reward_mode)
    out = {}
    for split, rolls in by_split.items():
        n = len(rolls)
        metric = lambda name: sum(metric_value(r, name) for r in rolls) / n  # noqa: E731 - absent: 1 when correct
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


def per_task(records: Sequence[dict[str, Any]], what: str = "correct") -> dict[str, dict[str, Any]]:
    """``{split: {task id: value}}`` of the first rollout of each task record: ``correct`` (bool) or
    ``reward`` (the per-task reward kept by the quickstart's slim records)."""
    out: dict[str, dict[str, Any]] = {}
    for rec in records:
        split = rec.get("split_group") or rec["split"]
        roll = rec["rollouts"][0]
        if what == "correct":
            value = bool(roll["correct"])
        else:  # the slim records' reward, else the verdict's F1, else exact match
            metrics = roll.get("metrics") or {}
            value = float(roll.get("reward", metrics.get("f1", float(bool(roll["correct"])))) or 0.0)
        out.setdefault(split, {})[rec["id"]] = value
    return out


def per_task_correct(records: Sequence[dict[str, Any]]) -> dict[str, dict[str, bool]]:
    """``{split: {task id: correct}}`` of the first rollout of each task record."""
    return per_task(records, "correct")


def _paired(b_tasks: dict[str, Any], a_tasks: dict[str, Any]) -> tuple[list[Any], list[Any]]:
    ids = [i for i in b_tasks if i in a_tasks]
    return [b_tasks[i] for i in ids], [a_tasks[i] for i in ids]


def build_summary(before_records: Sequence[dict[str, Any]], after_records: Sequence[dict[str, Any]],
                  before: dict[str, SplitScore], after: dict[str, SplitScore],
                  warm_records: Sequence[dict[str, Any]] | None = None,
                  warm: dict[str, SplitScore] | None = None) -> dict[str, Any]:
    """Per split (``in``, ``cross``, ``out``): n, exact match and reward at each stage (exact match with
    standard errors), the exact McNemar test of base -> final, F1 and format (fractions in [0, 1]).

    With a warm-start stage (``warm_records``): the RL stage's own contribution, warm start -> final:
    the exact McNemar test on exact match (``gained_rl``, ``lost_rl``, ``p_value_rl``) and the Wilcoxon
    signed-rank test on per-task reward (``better_rl``, ``worse_rl``, ``reward_diff_rl``, ``reward_p_value_rl``).
    """
    b_tasks, a_tasks = per_task(before_records), per_task(after_records)
    b_rew, a_rew = per_task(before_records, "reward"), per_task(after_records, "reward")
    w_tasks = per_task(warm_records) if warm_records is not None else None
    w_rew = per_task(warm_records, "reward") if warm_records is not None else None
    splits: dict[str, Any] = {}
    for split in _order(list(dict.fromkeys([*b_tasks, *a_tasks]))):
        b, a = _paired(b_tasks.get(split, {}), a_tasks.get(split, {}))
        test = paired_exact_test(b, a)
        rank_all = paired_signed_rank_test(*_paired(b_rew.get(split, {}), a_rew.get(split, {})))
        em_b, se_b, _ = mean_se(float(x) for x in b)
        em_a, se_a, _ = mean_se(float(x) for x in a)
        sb, sa = before.get(split), after.get(split)
        row = {
            "n": len(b), "em_before": em_b, "em_after": em_a, "em_se_before": se_b, "em_se_after": se_a,
            "gained": test.gained, "lost": test.lost, "p_value": test.p_value,
            "reward_p_value": rank_all.p_value, "better": rank_all.better, "worse": rank_all.worse,
            "reward_before": sb.reward if sb else None, "reward_after": sa.reward if sa else None,
            "f1_before": sb.f1 if sb else None, "f1_after": sa.f1 if sa else None,
            "format_before": sb.format_ok if sb else None, "format_after": sa.format_ok if sa else None,
        }
        if w_tasks is not None and w_rew is not None:
            w, a2 = _paired(w_tasks.get(split, {}), a_tasks.get(split, {}))
            rl = paired_exact_test(w, a2)
            wr, ar = _paired(w_rew.get(split, {}), a_rew.get(split, {}))
            rank = paired_signed_rank_test(wr, ar)
            em_w, se_w, _ = mean_se(float(x) for x in w)
            sw = (warm or {}).get(split)
            row.update({
                "em_warm": em_w, "em_se_warm": se_w, "gained_rl": rl.gained, "lost_rl": rl.lost,
                "p_value_rl": rl.p_value, "reward_warm": sw.reward if sw else None,
                "better_rl": rank.better, "worse_rl": rank.worse, "reward_diff_rl": rank.mean_diff,
                "reward_p_value_rl": rank.p_value,
                "f1_warm": sw.f1 if sw else None, "format_warm": sw.format_ok if sw else None,
            })
        splits[split] = row
    return splits


def reward_trend(history: Sequence[dict[str, Any]], up_to: int | None = None) -> dict[str, Any]:
    """The training-reward trend of a run's log history (its steps up to ``up_to``, when given): first- and
    last-quarter means of the drawn reward (``rlvr/reward_drawn``, else TRL's ``reward``) and their
    difference (descriptive, no interval: see the module docstring), plus the first/last-quarter means of every reward function and of the frontier
    and dynamic-sampling counters."""
    logs = [h for h in history if "reward" in h and (up_to is None or h.get("step", 0) <= up_to)]
    if len(logs) < 2:
        return {}
    key = "rlvr/reward_drawn" if all("rlvr/reward_drawn" in h for h in logs) else "reward"
    out: dict[str, Any] = {"trend_metric": key}
    trend = quarter_trend([h[key] for h in logs])
    if trend is not None:
        out.update({"train_reward_first_quarter": round(trend.first, 4), "train_reward_last_quarter": round(trend.last, 4),
                    "train_reward_trend": round(trend.diff, 4), "quarter_steps": trend.n_quarter})
    q = max(1, len(logs) // 4)

    def mean(items: Sequence[dict[str, Any]], name: str) -> float | None:
        vals = [h[name] for h in items if h.get(name) is not None]
        return round(sum(vals) / len(vals), 4) if vals else None

    for name in logs[0]:
        if name.startswith("rewards/") and name.endswith("/mean"):
            short = name.split("/")[1]
            out[f"{short}_first_quarter"] = mean(logs[:q], name)
            out[f"{short}_last_quarter"] = mean(logs[-q:], name)
    for name in ("dynamic/zero_std_groups", "dynamic/replaced", "dynamic/extra_groups"):
        vals = [h.get(name) for h in logs if h.get(name) is not None]
        if vals:
            out[name.replace("/", "_") + "_total"] = round(float(sum(vals)), 1)
    return out


#: the baseline column of the per-kind table: each kind's most common true answer, given to every task of it
CONSTANT = "most common answer"


def accuracy_by_kind(tasks: Sequence[Task], stages: dict[str, Sequence[dict[str, Any]] | None]) -> dict[str, dict[str, list[int]]]:
    """Per kind of question (a layout's ``task_group``: a molecule task's asked feature) and stage, ``[right,
    scored]`` over the held-out eval tasks (tuning sets left out), plus :data:`CONSTANT`: what each kind's
    most common true answer scores on the same tasks (an optimistic baseline); empty where the family names
    no kinds."""
    held = [t for t in tasks if not is_tuning_split(str(t.meta.get("split", "")))]
    out: dict[str, dict[str, list[int]]] = {}
    for stage, records in stages.items():
        if records is None:
            continue
        correct = {rec["id"]: bool(rec["rollouts"][0]["correct"]) for rec in records}
        for kind, (right, n) in accuracy_by_group(held, correct).items():
            out.setdefault(kind, {})[stage] = [right, n]
    if out:
        for kind, (right, n) in constant_answer_by_group(held).items():
            out.setdefault(kind, {})[CONSTANT] = [right, n]
    return out


def versus_common_answers(tasks: Sequence[Task], stages: dict[str, Sequence[dict[str, Any]] | None]) -> dict[str, dict[str, Any]]:
    """Per stage, the model against the most-common-answer baseline task by task over the held-out eval tasks
    (:func:`rlvr.eval.layouts.against_common_answers`): ``{"up", "down", "p"}`` with the exact sign test's
    two-sided p on the tasks where exactly one of the two is right. Whether a model reads the question beyond
    its kind: base -> final alone would pass for one that answers each kind's common value. Empty where the
    family names no kinds."""
    held = [t for t in tasks if not is_tuning_split(str(t.meta.get("split", "")))]
    out: dict[str, dict[str, Any]] = {}
    if not constant_answer_by_group(held):  # no kinds
        return out
    for stage, records in stages.items():
        if records is None:
            continue
        up, down = against_common_answers(held, {rec["id"]: bool(rec["rollouts"][0]["correct"]) for rec in records})
        out[stage] = {"up": up, "down": down, "p": sign_test_p_value(up, down)}
    return out


def render_by_kind(by_kind: dict[str, dict[str, list[int]]]) -> str:
    """A Markdown table: right / scored per kind of question at each stage."""
    stages = list(dict.fromkeys(s for cells in by_kind.values() for s in cells))
    lines = ["| question | " + " | ".join(stages) + " |", "|---" * (len(stages) + 1) + "|"]
    for kind, cells in by_kind.items():
        lines.append(f"| {kind} | " + " | ".join(f"{cells[s][0]}/{cells[s][1]}" if s in cells else "–" for s in stages) + " |")
    return "\n".join(lines)


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
        *(render_claims(qs.claims) + [""] if qs.claims else []),
        ("columns: base -> after the warm start -> after " + algo if ws else "columns: base -> after " + algo),
        "",
        qs.table,
        "",
        metric_note(t["family"][0]) + ". Greedy decoding, the same tasks at every stage.",
        "",
        f"figure: {qs.output_dir}/quickstart.png (train curves; scores per split)",
    ]
    if qs.by_kind:
        lines += ["", "exact match per kind of question (held-out sets, right / scored; the last column answers every "
                  "question of a kind with its most common true answer on these tasks, an optimistic baseline that reads "
                  "nothing but the kind):", "", render_by_kind(qs.by_kind)]
    if qs.versus_common:
        lines += ["", "against that baseline, task by task (held-out sets; + where only the model is right, - where only "
                  "the baseline is; exact sign test):"]
        lines += [f"  {stage}: +{row['up']} / -{row['down']}, p = {row['p']:.3g}" for stage, row in qs.versus_common.items()]
    if qs.splits:
        lines += ["", "paired tests per split (the same tasks at every stage; exact McNemar on exact match, exact",
                  "Wilcoxon signed-rank on per-task reward; p uncorrected here, Holm-corrected in summary.json's secondary;",
                  "valid* / train* sets are for tuning, listed last):"]
        for split, row in sorted(qs.splits.items(), key=lambda kv: is_tuning_split(kv[0])):
            mid = f" -> {100 * row['em_warm']:.1f}" if "em_warm" in row else ""
            lines.append(
                f"  {split}: exact match {100 * row['em_before']:.1f}{mid} -> {100 * row['em_after']:.1f} % "
                f"(± {100 * row['em_se_after']:.1f} SE, n = {row['n']}); base -> final +{row['gained']} / -{row['lost']}, "
                f"p = {row['p_value']:.3g}; reward {row['reward_before']:.3f} -> {row['reward_after']:.3f}, p = {row['reward_p_value']:.3g}")
            if "p_value_rl" in row:
                lines.append(
                    f"      {algo} alone (warm start -> final): exact match +{row['gained_rl']} / -{row['lost_rl']}, "
                    f"p = {row['p_value_rl']:.3g}; reward {row['reward_warm']:.3f} -> {row['reward_after']:.3f} "
                    f"({row['better_rl']} tasks up, {row['worse_rl']} down), p = {row['reward_p_value_rl']:.3g}")
        lines.append(f"  machine-readable: {qs.output_dir}/summary.json")
    if "train_reward_trend" in t:
        lines += ["", f"train reward ({t['trend_metric']}): first quarter {t['train_reward_first_quarter']} -> last quarter "
                      f"{t['train_reward_last_quarter']} ({t['train_reward_trend']:+.3f}, {t['quarter_steps']} steps each; "
                      "descriptive only: steps are autocorrelated and the drawn tasks get harder as the model improves)"]
    if "dynamic_zero_std_groups_total" in t:
        lines.append(f"dynamic sampling: {t['dynamic_zero_std_groups_total']:.0f} groups without reward spread, "
                     f"{t.get('dynamic_replaced_total', 0):.0f} replaced by fresh prompts "
                     f"({t.get('dynamic_extra_groups_total', 0):.0f} extra groups generated)")
    if qs.base_cache:
        lines.append(f"base model: answers read from the cache an earlier run on this machine wrote ({qs.base_cache})")
    if qs.budget:
        ref = "warm start" if qs.warm else "base"
        lines += ["", f"the RL stage against its step budget ({ref} -> the checkpoint at each budget; --eval-every):", "",
                  render_budget(qs.budget)]
    lines += ["", "seconds: " + ", ".join(f"{k} {v}" for k, v in qs.seconds.items()), f"output: {qs.output_dir}"]
    return "\n".join(lines) + "\n"
