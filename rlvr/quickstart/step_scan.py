"""The RL stage's effect against minutes of training: ``rlvr quickstart --eval-every N``.

One run trains the recipe's GRPO stage to ``max_steps``, keeping a checkpoint every ``N`` steps; each
checkpoint is scored on the same eval set as the warm start, so the warm start -> checkpoint paired tests
(the RL stage alone, as in ``summary.json``) read as a curve over the step budget. With a constant
learning rate the first ``k`` steps of a longer run are the steps a ``k``-step run takes, so a row is
what ``rlvr quickstart --max-steps k`` would have reported for the RL stage, without training again.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

from rlvr.eval.plots import pyplot
from rlvr.eval.stats import holm
from rlvr.files import atomic_path
from rlvr.quickstart.claims import PrimaryTest


def checkpoint_steps(eval_every: int, max_steps: int) -> list[int]:
    """The intermediate budgets scored (``eval_every``, ``2 * eval_every``, ... below ``max_steps``)."""
    if eval_every < 1:
        raise ValueError(f"--eval-every must be at least 1 (got {eval_every})")
    return list(range(eval_every, max_steps, eval_every))


def checkpoint_dir(train_dir: Path, step: int) -> Path:
    """The adapter the trainer saved at ``step`` (``<train_dir>/checkpoint-<step>``)."""
    return Path(train_dir) / f"checkpoint-{step}"


def trend_summary(trend: dict[str, Any] | None) -> dict[str, Any]:
    """The training-reward trend's own keys (difference, interval, steps per quarter) of a
    :func:`rlvr.quickstart.trend.reward_trend` result."""
    return {k: v for k, v in (trend or {}).items() if k.startswith(("train_reward_trend", "quarter_"))}


def rl_significant(split_row: dict[str, Any], alpha: float = 0.05, primary: PrimaryTest | None = None) -> bool:
    """Whether the RL stage's own test (``primary``'s test; default the exact McNemar test on exact match) is below
    ``alpha`` on a budget row's split, uncorrected (the final budget's own claim)."""
    key = "p_value_rl" if (primary.test if primary else "mcnemar") == "mcnemar" else "reward_p_value_rl"
    return split_row.get(key, 1.0) < alpha


def em_change_in_se(split_row: dict[str, Any]) -> float | None:
    """Exact match at the budget minus at the warm start, in standard errors of the warm start (None without one)."""
    se = split_row.get("em_se_warm")
    return (split_row["em_after"] - split_row["em_warm"]) / se if se else None


def _budget_split(row: dict[str, Any], reference: str) -> dict[str, Any]:
    """A split row of :func:`~rlvr.quickstart.scores.build_summary` (``reference`` and ``rl`` stages) as a budget
    row's split: the reference's and the checkpoint's exact match, both RL-alone tests."""
    ref, rl = row["stages"].get(reference, {}), row["stages"]["rl"]
    test = row["tests"].get(f"{reference}->rl", {})
    out = {"n": row["n"], "em_after": rl["em"], "em_se_after": rl["em_se"], "reward_after": rl["reward"]}
    if reference == "warm":
        out.update(em_warm=ref["em"], em_se_warm=ref["em_se"], reward_warm=ref["reward"])
        out.update({f"{k}_rl": test[k] for k in ("gained", "lost", "p_value", "better", "worse") if k in test})
        if "reward_p_value" in test:
            out["reward_p_value_rl"] = test["reward_p_value"]
    return out


def budget_row(steps: int, max_steps: int, train_seconds: float, splits: dict[str, Any],
               trend: dict[str, Any] | None = None, primary: PrimaryTest | None = None,
               reference: str = "warm") -> dict[str, Any]:
    """One budget: its step count, the GRPO minutes it took (the run's measured training time pro rata,
    steps take near-constant time), per split the RL stage's paired tests at that budget (``reference`` ->
    checkpoint), and ``train_reward``: the training-reward trend over the budget's steps (``trend``, as
    :func:`rlvr.quickstart.trend.reward_trend` gives it on the log history up to ``steps``).
    ``primary_p_value``: the RL-alone test at this budget on the primary test's split."""
    primary = primary or PrimaryTest()
    rows = {name: _budget_split(row, reference) for name, row in splits.items()}
    at = rows.get(primary.group) or {}
    return {
        "steps": int(steps),
        "primary_p_value": at.get("p_value_rl" if primary.test == "mcnemar" else "reward_p_value_rl"),
        "train_minutes": round(train_seconds * steps / max(max_steps, 1) / 60.0, 2),
        "splits": rows,
        "train_reward": trend_summary(trend),
    }


def smallest_significant(rows: Sequence[dict[str, Any]], primary: PrimaryTest | None = None) -> dict[str, Any]:
    """A secondary analysis: the fewest steps at which the primary test is below its alpha after Holm's
    correction over every scanned budget (scanning several budgets is several tests). Returns the step
    count (None when no budget passes) and each budget's Holm-adjusted p (``p_holm`` by step)."""
    primary = primary or PrimaryTest()
    ordered = [r for r in sorted(rows, key=lambda r: r["steps"]) if r.get("primary_p_value") is not None]
    adjusted = holm([r["primary_p_value"] for r in ordered])
    passing = [r["steps"] for r, p in zip(ordered, adjusted) if p < primary.alpha]
    return {"steps": int(passing[0]) if passing else None,
            "p_holm": {str(r["steps"]): p for r, p in zip(ordered, adjusted)}}


def render_budget(rows: Sequence[dict[str, Any]]) -> str:
    """A Markdown table: per budget and split, exact match warm start -> checkpoint and both RL-alone tests."""
    lines = ["| GRPO steps | GRPO min | split | EM % warm -> at budget | RL alone: EM +/-, p (McNemar) | "
             "RL alone: reward up/down, p (Wilcoxon) | EM change / SE |",
             "|---|---|---|---|---|---|---|"]
    for row in sorted(rows, key=lambda r: r["steps"]):
        for split, s in row["splits"].items():
            if "em_warm" not in s:
                continue
            lines.append(
                f"| {row['steps']} | {row['train_minutes']:.1f} | {split} | {100 * s['em_warm']:.0f} -> {100 * s['em_after']:.0f} | "
                f"+{s['gained_rl']} -{s['lost_rl']}, {s['p_value_rl']:.2g} | {s['better_rl']} / {s['worse_rl']}, "
                f"{s['reward_p_value_rl']:.2g} | {em_change_in_se(s) or 0.0:+.1f} |")
    return "\n".join(lines)


def plot_budget(runs: Sequence[tuple[str, Sequence[dict[str, Any]]]], out_png: str | Path,
                splits: Sequence[str] = ("in", "cross", "out")) -> Path:
    """One panel per split: exact-match change warm start -> checkpoint (points) against GRPO minutes,
    a line per run (``(label, budget rows)``); a filled marker where either RL-alone test is below 0.05;
    the dashed line is minus one standard error of the warm start's exact match."""
    plt = pyplot()
    fig, grid = plt.subplots(1, len(splits), figsize=(4.2 * len(splits), 3.4), sharey=True, squeeze=False)
    axes = list(grid[0])
    for ax, split in zip(axes, splits):
        for label, rows in runs:
            pts = [(r["train_minutes"], r["splits"][split]) for r in sorted(rows, key=lambda r: r["steps"])
                   if "em_warm" in r["splits"].get(split, {})]
            if not pts:
                continue
            xs = [0.0] + [m for m, _ in pts]
            ys = [0.0] + [100 * (s["em_after"] - s["em_warm"]) for _, s in pts]
            line, = ax.plot(xs, ys, "-", label=label)
            for (m, s), y in zip(pts, ys[1:]):
                ax.plot([m], [y], "o", color=line.get_color(), markerfacecolor=line.get_color() if rl_significant(s) else "white")
            ax.axhline(-100 * pts[0][1]["em_se_warm"], color=line.get_color(), ls=":", lw=0.8)
        ax.axhline(0.0, color="grey", lw=0.8)
        ax.set_title(f"test_{split}")
        ax.set_xlabel("GRPO minutes (2 CPU cores)")
    axes[0].set_ylabel("exact match, points vs warm start")
    axes[0].legend(fontsize=8)
    fig.suptitle("the RL stage against its budget (filled: McNemar p < 0.05, uncorrected; dotted: -1 SE)", fontsize=10)
    fig.tight_layout()
    with atomic_path(out_png) as tmp:
        fig.savefig(tmp, dpi=110, format="png")
    plt.close(fig)
    return Path(out_png)
