"""PNG plots of a run (matplotlib, Agg backend): per-split bars and per-feature / per-class bars."""
from __future__ import annotations

import logging
from pathlib import Path
from typing import Any, Mapping

log = logging.getLogger(__name__)


def pyplot() -> Any:
    """``matplotlib.pyplot`` on the non-interactive Agg backend (no display needed)."""
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def _collect(summary: Mapping[str, float], prefix: str) -> dict[tuple[str, ...], float]:
    out = {}
    for key, value in summary.items():
        if key.startswith(prefix) and not key.endswith(("_se", "_n")):
            out[tuple(key[len(prefix):].split("/"))] = value
    return out


def write_plots(results: Mapping[str, Any], folder: Path) -> list[str]:
    """Write every plot that has data; returns the file paths."""
    summary = results.get("summary", {})
    folder.mkdir(parents=True, exist_ok=True)
    paths: list[str] = []
    try:
        plt = pyplot()
    except ImportError:  # pragma: no cover - matplotlib is a core dependency
        log.warning("matplotlib missing: no plots")
        return paths
    for fn in (_stoich_splits, _stoich_classes, _molecule_splits, _molecule_features):
        try:
            path = fn(plt, summary, folder)
        except Exception:  # noqa: BLE001 - a plot must never lose a finished evaluation
            log.exception("plot %s failed", fn.__name__)
            path = None
        if path:
            paths.append(str(path))
    return paths


def _grouped_bars(plt, ax, labels, series: dict[str, list[float]], errors: dict[str, list[float]] | None = None) -> None:
    import numpy as np

    x = np.arange(len(labels))
    width = 0.8 / max(1, len(series))
    for i, (name, values) in enumerate(series.items()):
        err = (errors or {}).get(name)
        ax.bar(x + (i - (len(series) - 1) / 2) * width, values, width, label=name, yerr=err, capsize=2 if err else 0)
    ax.set_xticks(x)
    ax.set_xticklabels(labels, rotation=30, ha="right", fontsize=8)
    ax.set_ylim(0, 118)
    ax.set_yticks(range(0, 101, 20))
    ax.grid(axis="y", alpha=0.3)


def _stoich_splits(plt, summary, folder: Path):
    cells = _collect(summary, "stoich/table4/")
    if not cells:
        return None
    from rlvr.eval.report import _split_sort

    variants = sorted({k[0] for k in cells})
    groups = sorted({k[1] for k in cells}, key=_split_sort)
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.2), sharey=True)
    for ax, metric in zip(axes, ("EM", "JAC", "F1")):
        series = {g: [cells.get((v, g, metric), 0.0) for v in variants] for g in groups}
        _grouped_bars(plt, ax, variants, series)
        ax.set_title(metric)
    axes[0].set_ylabel("%")
    axes[-1].legend(title="split", loc="upper center", ncol=len(groups), fontsize=8)
    fig.suptitle("Stoichiometry: EM / JAC / F1 per variant and split")
    fig.tight_layout()
    path = folder / "stoich_splits.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def _stoich_classes(plt, summary, folder: Path):
    cells = _collect(summary, "stoich/class/")
    if not cells:
        return None
    classes = sorted({k[0] for k in cells}, key=lambda c: -summary.get(f"stoich/class/{c}/EM_n", 0))[:30]
    fig, ax = plt.subplots(figsize=(max(6, 0.45 * len(classes) + 2), 4.2))
    _grouped_bars(plt, ax, classes, {m: [cells.get((c, m), 0.0) for c in classes] for m in ("EM", "F1")})
    ax.set_ylabel("%")
    ax.legend(loc="upper center", ncol=2, fontsize=8)
    ax.set_title("Stoichiometry by reaction class")
    fig.tight_layout()
    path = folder / "stoich_classes.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def _molecule_splits(plt, summary, folder: Path):
    cells = _collect(summary, "molecules/split/")
    acc = {k: v for k, v in cells.items() if len(k) == 3 and k[2] == "accuracy"}
    if not acc:
        return None
    from rlvr.eval.report import TYPE_ORDER

    splits = sorted({k[0] for k in acc})
    types = [t for t in TYPE_ORDER if any(k[1] == t for k in acc)]
    series = {s: [acc.get((s, t, "accuracy"), 0.0) for t in types] + [summary.get(f"molecules/split/{s}/accuracy", 0.0)]
              for s in splits}
    errors = {s: [summary.get(f"molecules/split/{s}/{t}/accuracy_se", 0.0) for t in types]
              + [summary.get(f"molecules/split/{s}/accuracy_se", 0.0)] for s in splits}
    fig, ax = plt.subplots(figsize=(7, 4.2))
    _grouped_bars(plt, ax, types + ["all"], series, errors)
    ax.set_ylabel("accuracy (%)")
    ax.legend(title="pool", loc="upper center", ncol=len(splits), fontsize=8)
    ax.set_title("Molecular tasks: accuracy per task type and pool split (± SE)")
    fig.tight_layout()
    path = folder / "molecules_splits.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def _molecule_features(plt, summary, folder: Path):
    cells = {k[0]: v for k, v in _collect(summary, "molecules/feature/").items() if k[-1] == "accuracy"}
    if not cells:
        return None
    items = sorted(cells.items(), key=lambda kv: kv[1])[-60:]
    fig, ax = plt.subplots(figsize=(7, max(3, 0.22 * len(items) + 1)))
    ax.barh([k for k, _ in items], [v for _, v in items], color="tab:blue")
    ax.set_xlim(0, 105)
    ax.set_xlabel("key-level accuracy (%)")
    ax.tick_params(axis="y", labelsize=7)
    ax.grid(axis="x", alpha=0.3)
    ax.set_title("Molecular tasks: accuracy per feature")
    fig.tight_layout()
    path = folder / "molecules_features.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
