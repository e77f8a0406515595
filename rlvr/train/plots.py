"""Training curves from a run's log history (PNG, matplotlib with the Agg backend)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Sequence


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


def plot_training_curve(history: Sequence[dict[str, Any]], out_png: str | Path, *, title: str = "", window: int = 5) -> Path:
    """Plot train rewards (total and per reward function, smoothed) and per-eval-set rewards over steps."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    train = [h for h in history if "reward" in h and "step" in h]
    evals: dict[str, list[tuple[int, float]]] = {}
    for h in history:
        for key, value in h.items():
            if key.startswith("eval_") and key.endswith("_reward") and isinstance(value, (int, float)):
                evals.setdefault(key[len("eval_"):-len("_reward")] or "eval", []).append((h.get("step", 0), value))
    fig, axes = plt.subplots(1, 2 if evals else 1, figsize=(11 if evals else 6, 4), squeeze=False)
    ax = axes[0][0]
    if train:
        steps = [h["step"] for h in train]
        keys = ["reward"] + sorted(k for k in train[0] if k.startswith("rewards/") and k.endswith("/mean"))
        for key in keys:
            vals = [h.get(key) for h in train]
            pts = [(s, v) for s, v in zip(steps, vals) if v is not None]
            if not pts:
                continue
            xs, ys = zip(*pts)
            label = "total reward" if key == "reward" else key.split("/")[1]
            ax.plot(xs, ys, alpha=0.25)
            ax.plot(xs, _smooth(ys, window), label=f"{label} (mean of {window})", color=ax.lines[-1].get_color())
    ax.set_xlabel("step")
    ax.set_ylabel("train reward")
    ax.set_title("training")
    ax.legend(fontsize=8)
    if evals:
        ax = axes[0][1]
        for name, pts in sorted(evals.items()):
            xs, ys = zip(*pts)
            ax.plot(xs, ys, marker="o", label=name)
        ax.set_xlabel("step")
        ax.set_ylabel("eval reward")
        ax.set_title("eval sets")
        ax.legend(fontsize=8)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    out = Path(out_png)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out
