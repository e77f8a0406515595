"""Training curves from a run's log history (PNG, matplotlib with the Agg backend)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Sequence

from rlvr.eval.plots import pyplot
from rlvr.files import atomic_path


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


def train_logs(history: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The training steps' logs of a log history (those with a reward)."""
    return [h for h in history if "reward" in h and "step" in h]


def draw_train(ax: Any, train: Sequence[dict[str, Any]], window: int) -> None:
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


def draw_sampling(ax: Any, train: Sequence[dict[str, Any]]) -> None:
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


def save_figure(fig: Any, out_png: str | Path, title: str) -> Path:
    """Title, lay out and write ``fig`` as a PNG (atomically), then close it."""
    plt = pyplot()

    if title:
        fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    out = Path(out_png)
    with atomic_path(out) as tmp:
        fig.savefig(tmp, dpi=110, format="png")
    plt.close(fig)
    return out


def trailing_window(train: Sequence[Any], window: int | None) -> int:
    """The trailing-mean window: ``window``, else 5 or a tenth of the run when that is longer."""
    return window if window is not None else max(5, len(train) // 10)


def plot_training_curve(history: Sequence[dict[str, Any]], out_png: str | Path, *, title: str = "", window: int | None = None) -> Path:
    """Plot train rewards (total and per reward function, smoothed) and per-eval-set rewards over steps.

    ``window``: logs in the trailing mean (None: 5, or a tenth of the run when that is longer).
    """
    plt = pyplot()
    train = train_logs(history)
    evals: dict[str, list[tuple[int, float]]] = {}
    for h in history:
        for key, value in h.items():
            if key.startswith("eval_") and key.endswith("_reward") and isinstance(value, (int, float)):
                evals.setdefault(key[len("eval_"):-len("_reward")] or "eval", []).append((h.get("step", 0), value))
    fig, axes = plt.subplots(1, 2 if evals else 1, figsize=(11 if evals else 6, 4), squeeze=False)
    draw_train(axes[0][0], train, trailing_window(train, window))
    if evals:
        ax = axes[0][1]
        for name, pts in sorted(evals.items()):
            xs, ys = zip(*pts)
            ax.plot(xs, ys, marker="o", label=name)
        ax.set_xlabel("step")
        ax.set_ylabel("eval reward")
        ax.set_title("eval sets")
        ax.legend(fontsize=8)
    return save_figure(fig, out_png, title)
