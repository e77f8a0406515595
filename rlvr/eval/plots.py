"""PNG plots of a run (matplotlib, Agg backend), drawn by each family group's report layout."""
from __future__ import annotations

import logging
from pathlib import Path
from typing import Any, Mapping

from rlvr.eval.layouts import layouts

log = logging.getLogger(__name__)


def pyplot() -> Any:
    """``matplotlib.pyplot`` on the non-interactive Agg backend (no display needed)."""
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def grouped_bars(ax: Any, labels: list[str], series: dict[str, list[float]],
                 errors: dict[str, list[float]] | None = None) -> None:
    """Bars of several series side by side per label, on a 0-100 % axis."""
    width = 0.8 / max(1, len(series))
    for i, (name, values) in enumerate(series.items()):
        err = (errors or {}).get(name)
        xs = [x + (i - (len(series) - 1) / 2) * width for x in range(len(labels))]
        ax.bar(xs, values, width, label=name, yerr=err, capsize=2 if err else 0)
    ax.set_xticks(list(range(len(labels))))
    ax.set_xticklabels(labels, rotation=30, ha="right", fontsize=8)
    ax.set_ylim(0, 118)
    ax.set_yticks(range(0, 101, 20))
    ax.grid(axis="y", alpha=0.3)


def save(plt: Any, fig: Any, path: Path) -> Path:
    """Lay out, write and close a figure; returns its path."""
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def write_plots(results: Mapping[str, Any], folder: Path) -> list[str]:
    """Write every plot that has data (each layout's); returns the file paths."""
    summary = results.get("summary", {})
    existed = folder.exists()
    folder.mkdir(parents=True, exist_ok=True)
    paths: list[str] = []
    try:
        plt = pyplot()
    except ImportError:  # pragma: no cover - matplotlib is a core dependency
        log.warning("matplotlib missing: no plots")
        paths = []
    else:
        for layout in layouts():
            try:
                paths += [str(p) for p in layout.plots(plt, summary, folder)]
            except Exception:  # noqa: BLE001 - a plot must never lose a finished evaluation
                log.exception("plots of the %s layout failed", layout.name)
    if not existed and not any(folder.iterdir()):
        folder.rmdir()  # nothing plotted: no empty folder left behind
    return paths
