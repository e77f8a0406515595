"""The building blocks of evaluation tables: per-task metrics, grouping, percentages, Markdown.

Report layouts (the families' ``FamilyGroup.report`` hooks and the generic per-family layout) are
written with these; nothing here knows a family.
"""
from __future__ import annotations

import math
import re
from collections import defaultdict
from typing import Any, Callable, Iterable, Mapping, Sequence

from rlvr.eval.stats import mean_se
from rlvr.reasons import answered

#: column order of split groups
SPLIT_ORDER = ("in", "cross", "out", "test", "valid", "valid_cross", "train", "train_cross", "easy", "hard")

Record = Mapping[str, Any]


def split_sort(group: str) -> tuple[int, str]:
    """Sort key of split groups: the known ones in :data:`SPLIT_ORDER`, then alphabetical."""
    return (SPLIT_ORDER.index(group) if group in SPLIT_ORDER else len(SPLIT_ORDER), group)


def natural(value: Any) -> tuple[float, str]:
    """Sort key putting ``2`` before ``10`` and ``250-1000`` before ``1000-inf``."""
    m = re.match(r"\s*(\d+(?:\.\d+)?)", str(value))
    return (float(m.group(1)) if m else float("inf"), str(value))


def metric_value(rollout: Record, key: str) -> float:
    """A rollout's metric; a verdict without it counts 1 when correct, 0 otherwise."""
    value = (rollout.get("metrics") or {}).get(key)
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)) and math.isfinite(value):
        return float(value)
    return 1.0 if rollout.get("correct") else 0.0


def task_metric(record: Record, key: str) -> float:
    """Mean of a metric over the record's rollouts (``correct`` for ``key == "correct"``)."""
    rollouts = record["rollouts"]
    if key == "correct":
        return sum(bool(r.get("correct")) for r in rollouts) / len(rollouts)
    return sum(metric_value(r, key) for r in rollouts) / len(rollouts)


def task_answered(record: Record) -> float:
    """Share of a task's rollouts with a readable answer (:func:`rlvr.reasons.answered`)."""
    rollouts = record["rollouts"]
    return sum(answered(r.get("reason")) for r in rollouts) / len(rollouts)


def has_metric(records: Iterable[Record], key: str) -> bool:
    """Whether any rollout of ``records`` reports ``key``."""
    return any(key in (r.get("metrics") or {}) for rec in records for r in rec["rollouts"])


def group_by(records: Iterable[Any], key: Callable[[Any], Any]) -> dict[Any, list]:
    """Items grouped by ``key`` (None keys dropped), in first-seen order."""
    groups: dict[Any, list] = defaultdict(list)
    for rec in records:
        k = key(rec)
        if k is not None:
            groups[k].append(rec)
    return dict(groups)


def pct(values: Iterable[float]) -> tuple[float, float, int]:
    """``(mean %, standard error %, n)`` of values in [0, 1]."""
    m, se, n = mean_se(values)
    return 100.0 * m, 100.0 * se, n


def put(out: dict[str, float], path: str, stat: tuple[float, float, int], se: bool = False) -> None:
    """Store a :func:`pct` result under ``path`` (``_se`` and ``_n`` beside it); nothing when n is 0."""
    mean, err, n = stat
    if n == 0:
        return
    out[path] = round(mean, 4)
    if se:
        out[path + "_se"] = round(err, 4)
    out[path + "_n"] = n


def md_table(headers: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    """A GitHub Markdown table."""
    lines = ["| " + " | ".join(str(h) for h in headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    for row in rows:
        lines.append("| " + " | ".join(str(c) for c in row) + " |")
    return "\n".join(lines) + "\n"


def fmt(value: float | None, se: float | None = None) -> str:
    """A cell: ``12.34``, ``12.3 ± 1.2`` with a standard error, ``–`` when missing."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    if se is not None and not math.isnan(se) and se > 0:
        return f"{value:.1f} ± {se:.1f}"
    return f"{value:.2f}"


def cell(records: Sequence[Record] | None, key: str) -> str:
    """The mean of a task metric over ``records`` as a cell (``–`` for none)."""
    if not records:
        return "–"
    return fmt(pct(task_metric(r, key) for r in records)[0])


def collect(summary: Mapping[str, float], prefix: str) -> dict[tuple[str, ...], float]:
    """Summary values under ``prefix``, keyed by the rest of their path (``_se``/``_n`` left out)."""
    out = {}
    for key, value in summary.items():
        if key.startswith(prefix) and not key.endswith(("_se", "_n")):
            out[tuple(key[len(prefix):].split("/"))] = value
    return out
