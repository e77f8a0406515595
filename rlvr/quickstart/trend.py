"""The training-reward trend of a run's log history: descriptive, never a claim.

The mean of the last quarter of steps against the first (on ``rlvr/reward_drawn``, the reward of the tasks as
drawn, when the run logs it). It has no interval: steps are autocorrelated, and frontier selection draws harder
tasks as the model improves, so a flat drawn reward can hide learning. The fixed-task tests (and
``--eval-every`` checkpoints) are the evidence.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

from rlvr.eval.stats import quarter_trend
from rlvr.train.plots import load_log_history

#: the dynamic-sampling counters summed over a run
DYNAMIC_COUNTERS = ("dynamic/zero_std_groups", "dynamic/replaced", "dynamic/extra_groups")


def log_history(train_dir: Path) -> list[dict[str, Any]]:
    """The run's log history (empty when the run saved none)."""
    try:
        return load_log_history(train_dir)
    except FileNotFoundError:
        return []


def _mean(items: Sequence[dict[str, Any]], name: str) -> float | None:
    vals = [h[name] for h in items if h.get(name) is not None]
    return round(sum(vals) / len(vals), 4) if vals else None


def reward_trend(history: Sequence[dict[str, Any]], up_to: int | None = None) -> dict[str, Any]:
    """The training-reward trend of a run's log history (its steps up to ``up_to``, when given): first- and
    last-quarter means of the drawn reward (``rlvr/reward_drawn``, else TRL's ``reward``) and their
    difference, plus the first/last-quarter means of every reward function and the totals of the
    dynamic-sampling counters."""
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
    for name in logs[0]:
        if name.startswith("rewards/") and name.endswith("/mean"):
            short = name.split("/")[1]
            out[f"{short}_first_quarter"] = _mean(logs[:q], name)
            out[f"{short}_last_quarter"] = _mean(logs[-q:], name)
    for name in DYNAMIC_COUNTERS:
        vals = [h.get(name) for h in logs if h.get(name) is not None]
        if vals:
            out[name.replace("/", "_") + "_total"] = round(float(sum(vals)), 1)
    return out
