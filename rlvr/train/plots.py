"""Training curves from a run's log history (PNG, matplotlib with the Agg backend)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Mapping, Sequence

from rlvr.eval.plots import pyplot


_CURVE_LABELS = {"reward": "total reward", "rlvr/reward_drawn": "total reward, tasks as drawn"}


def load_log_history(path: str | Path) -> list[dict[str, Any]]:
    """The log history of a run: ``trainer_state.json`` itself, a checkpoint, or an output dir (newest checkpoint)."""
    p = Path(path)
    if p.is_dir():
        if (p / "trainer_state.json").is_file():
            p = p / "trainer_state.json"
        else:
            states = sorted(p.glob("checkpoint-*/trainer_state.json"), key=lambda q: int(q.parent.name.split("-")[-1]))
            if not states:
                raise FileNotFoundError(f"{path}: no trainer_state.json (no checkpoint saved yet)")
            p = states[-1]
    return list(json.loads(p.read_text())["log_history"])


def _smooth(values: Sequence[float], window: int) -> list[float]:
    out, acc = [], []
    for v in values:
        acc.append(v)
        if len(acc) > window:
            acc.pop(0)
        out.append(sum(acc) / len(acc))
    return out


def _train_logs(history: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    return [h for h in history if "reward" in h and "step" in h]


def _draw_train(ax: Any, train: Sequence[dict[str, Any]], window: int) -> None:
    """Raw (faint) and trailing-mean curves of the total reward and each reward function."""
    if train:
        steps = [h["step"] for h in train]
        keys = ["reward"] + (["rlvr/reward_drawn"] if "rlvr/reward_drawn" in train[0] else []) \
            + sorted(k for k in train[0] if k.startswith("rewards/") and k.endswith("/mean"))
        for key in keys:
            pts = [(s, h.get(key)) for s, h in zip(steps, train) if h.get(key) is not None]
            if not pts:
                continue
            xs, ys = zip(*pts)
            label = _CURVE_LABELS[key] if key in _CURVE_LABELS else key.split("/")[1]  # rewards/<name>/mean
            ax.plot(xs, ys, alpha=0.2)
            ax.plot(xs, _smooth(ys, window), label=f"{label} (mean of {window})", color=ax.lines[-1].get_color())
    ax.set_xlabel("step")
    ax.set_ylabel("train reward")
    ax.set_title("training (fresh train-split tasks)")
    ax.legend(fontsize=8)


def _draw_sampling(ax: Any, train: Sequence[dict[str, Any]]) -> None:
    """Per step: groups without reward spread and those replaced (bars), frontier cells and mean cell success (lines)."""
    steps = [h["step"] for h in train]
    zero = [h.get("dynamic/zero_std_groups") for h in train]
    replaced = [h.get("dynamic/replaced") for h in train]
    if any(v is not None for v in zero):
        ax.bar(steps, [v or 0 for v in zero], width=0.8, color="C7", alpha=0.5, label="groups without reward spread")
        ax.bar(steps, [v or 0 for v in replaced], width=0.5, color="C2", alpha=0.8, label="replaced by fresh prompts")
    cells = [h.get("frontier/cells_at_frontier") for h in train]
    if any(v is not None for v in cells):
        ax.plot(steps, [v if v is not None else float("nan") for v in cells], color="C3", marker=".",
                label="cells at the frontier (success 0.1-0.9)")
        twin = ax.twinx()
        rates = [h.get("frontier/mean_rate") for h in train]
        twin.plot(steps, [v if v is not None else float("nan") for v in rates], color="C0", linestyle="--",
                  label="mean cell success (right axis)")
        twin.set_ylim(0, 1)
        twin.legend(fontsize=7, loc="upper right")
    ax.set_xlabel("step")
    ax.set_ylabel("groups / cells")
    ax.set_title("frontier selection and dynamic sampling")
    ax.legend(fontsize=7, loc="upper left")


def _save(fig: Any, out_png: str | Path, title: str) -> Path:
    plt = pyplot()

    if title:
        fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    out = Path(out_png)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out


def _window(train: Sequence[Any], window: int | None) -> int:
    return window if window is not None else max(5, len(train) // 10)


def plot_training_curve(history: Sequence[dict[str, Any]], out_png: str | Path, *, title: str = "", window: int | None = None) -> Path:
    """Plot train rewards (total and per reward function, smoothed) and per-eval-set rewards over steps.

    ``window``: logs in the trailing mean (None: 5, or a tenth of the run when that is longer).
    """
    plt = pyplot()
    train = _train_logs(history)
    evals: dict[str, list[tuple[int, float]]] = {}
    for h in history:
        for key, value in h.items():
            if key.startswith("eval_") and key.endswith("_reward") and isinstance(value, (int, float)):
                evals.setdefault(key[len("eval_"):-len("_reward")] or "eval", []).append((h.get("step", 0), value))
    fig, axes = plt.subplots(1, 2 if evals else 1, figsize=(11 if evals else 6, 4), squeeze=False)
    _draw_train(axes[0][0], train, _window(train, window))
    if evals:
        ax = axes[0][1]
        for name, pts in sorted(evals.items()):
            xs, ys = zip(*pts)
            ax.plot(xs, ys, marker="o", label=name)
        ax.set_xlabel("step")
        ax.set_ylabel("eval reward")
        ax.set_title("eval sets")
        ax.legend(fontsize=8)
    return _save(fig, out_png, title)


def plot_before_after(
    history: Sequence[dict[str, Any]],
    before: Mapping[str, Mapping[str, float]],
    after: Mapping[str, Mapping[str, float]],
    out_png: str | Path,
    *,
    title: str = "",
    window: int | None = None,
    metrics: Sequence[tuple[str, str]] = (("exact_match", "exact match"), ("f1", "F1"), ("format_ok", "format ok")),
    warm: Mapping[str, Mapping[str, float]] | None = None,
) -> Path:
    """Train curves (left) and held-out scores per split at each stage (right, in %): before and after
    training, and after the warm start in between when ``warm`` is given.

    ``before`` / ``warm`` / ``after``: split -> {metric: fraction} (the quickstart's per-split scores).
    """
    plt = pyplot()
    train = _train_logs(history)
    sampling = any(k.startswith(("dynamic/", "frontier/")) for h in train for k in h)
    fig, axes = plt.subplots(1, 3 if sampling else 2, figsize=(17 if sampling else 12, 4.2))
    left, right = axes[0], axes[-1]
    _draw_train(left, train, _window(train, window))
    if sampling:
        _draw_sampling(axes[1], train)
    splits = [s for s in before if s in after]
    stages = [(before, "base", 0.3)] + ([(warm, "warm start", 0.6)] if warm else []) + [(after, "after", 0.95)]
    k = len(stages)
    width = 0.8 / (k * len(metrics))
    for m, (key, label) in enumerate(metrics):
        for j, (scores, when, alpha) in enumerate(stages):
            xs = [i + (k * m + j - k * len(metrics) / 2 + 0.5) * width for i in range(len(splits))]
            ys = [100 * float(scores[s].get(key, 0.0)) for s in splits]
            right.bar(xs, ys, width, label=f"{label} {when}", color=f"C{m}", alpha=alpha)
            for x, y in zip(xs, ys):
                right.text(x, y + 1, f"{y:.0f}", ha="center", fontsize=6)
    right.set_xticks(range(len(splits)), [f"{s} (n = {int(before[s].get('n', 0))})" for s in splits])
    right.set_ylabel("%")
    right.set_ylim(0, 135)
    right.set_title("held-out, greedy: " + " -> ".join(w for _, w, _ in stages))
    right.legend(fontsize=6, ncol=len(metrics), loc="upper center")
    return _save(fig, out_png, title)
