"""``quickstart.png``: the RL run's train curves and every stage's held-out scores per split."""
from __future__ import annotations

import logging
from pathlib import Path
from typing import Any, Mapping, Sequence

from rlvr.eval.plots import pyplot
from rlvr.train.plots import draw_sampling, draw_train, save_figure, train_logs, trailing_window

log = logging.getLogger(__name__)

#: the metrics drawn per split: (score field, label)
METRICS = (("exact_match", "exact match"), ("f1", "F1"), ("format_ok", "format ok"))
#: the bars' shade of the first stages; the arms after them are drawn darker in turn
_ALPHA = {"base": 0.2, "warm start": 0.4}


def plot_stages(history: Sequence[dict[str, Any]], stages: Mapping[str, Mapping[str, Mapping[str, float]]],
                out_png: str | Path, *, title: str = "", window: int | None = None,
                metrics: Sequence[tuple[str, str]] = METRICS) -> Path:
    """Train curves (left; frontier and dynamic-sampling counters in the middle when the run logs them) and
    the held-out scores per split at each stage (right, in %). ``stages``: label -> split -> {metric: fraction},
    in the order to draw them (base, warm start, then the arms)."""
    plt = pyplot()
    train = train_logs(history)
    sampling = any(k.startswith(("dynamic/", "frontier/")) for h in train for k in h)
    fig, axes = plt.subplots(1, 3 if sampling else 2, figsize=(17 if sampling else 12, 4.2))
    draw_train(axes[0], train, trailing_window(train, window))
    if sampling:
        draw_sampling(axes[1], train)
    _draw_scores(axes[-1], stages, metrics)
    return save_figure(fig, out_png, title)


def _draw_scores(ax: Any, stages: Mapping[str, Mapping[str, Mapping[str, float]]],
                 metrics: Sequence[tuple[str, str]]) -> None:
    """Grouped bars: per split, per metric, one bar per stage."""
    labels = list(stages)
    first, last = stages[labels[0]], stages[labels[-1]]
    splits = [s for s in first if s in last]
    k = len(labels)
    width = 0.8 / (k * len(metrics))
    for m, (key, label) in enumerate(metrics):
        for j, when in enumerate(labels):
            xs = [i + (k * m + j - k * len(metrics) / 2 + 0.5) * width for i in range(len(splits))]
            ys = [100 * float(stages[when].get(s, {}).get(key, 0.0)) for s in splits]
            shade = _ALPHA.get(when, 0.55 + 0.4 * (j - len(_ALPHA)) / max(1, k - len(_ALPHA)))
            ax.bar(xs, ys, width, label=f"{label} {when}", color=f"C{m}", alpha=min(0.95, shade))
            for x, y in zip(xs, ys):
                ax.text(x, y + 1, f"{y:.0f}", ha="center", fontsize=5 if k > 3 else 6)
    ax.set_xticks(range(len(splits)), [f"{s} (n = {int(first[s].get('n', 0))})" for s in splits])
    ax.set_ylabel("%")
    ax.set_ylim(0, 135)
    ax.set_title("held-out, greedy: " + " / ".join(labels))
    ax.legend(fontsize=6, ncol=len(metrics), loc="upper center")


def plot_quickstart(history: Sequence[dict[str, Any]], stages: Mapping[str, Mapping[str, Mapping[str, float]]],
                    out_png: Path, title: str) -> None:
    """:func:`plot_stages`, never failing the run: a figure that cannot be drawn is logged and skipped."""
    try:
        plot_stages(history, stages, out_png, title=title)
    except Exception:  # noqa: BLE001 - a plot must never fail a finished run
        log.warning("could not plot the quickstart figure", exc_info=True)
