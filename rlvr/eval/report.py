"""The report of an evaluation: task info, the flat summary and Markdown, laid out per family group.

Each family group brings its layout (``FamilyGroup.report``: the ChemAlgebra tables for the
stoichiometry families, the MolecularIQ tables for the molecular ones); families without one get
:class:`~rlvr.eval.layouts.FamilyLayout`, a table per family and split. Everything here reads the
per-task records of a run (task info + every rollout's :class:`Verdict` fields); no check is
re-implemented. Values are percentages.
"""
from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any, Mapping, Sequence

from rlvr.eval.layouts import layout_for, layouts
from rlvr.eval.store import load_results
from rlvr.eval.tables import fmt, group_by, md_table, split_sort
from rlvr.reasons import answered
from rlvr.registry import ReportLayout
from rlvr.task import Task

Record = Mapping[str, Any]


def task_info(task: Task) -> dict[str, Any]:
    """The grouping fields of a task: ``domain`` (its layout's name) and the layout's own fields."""
    layout = layout_for(task.family)
    return {"domain": layout.name, **layout.task_info(task)}


def _sections(records: Sequence[Record]) -> list[tuple[ReportLayout, list[Record]]]:
    """The records of each layout, in layout order (records of an unknown layout are left out)."""
    by_domain = group_by(records, lambda r: r["info"].get("domain"))
    return [(layout, by_domain[layout.name]) for layout in layouts() if layout.name in by_domain]


def summarize(records: Sequence[Record], samples: int) -> dict[str, float]:
    """A flat ``{path: value in %}`` of every table cell (the unit of ``rlvr eval compare``).

    Standard errors are stored under ``<path>_se`` where they exist; task counts under ``<path>_n``.
    """
    out: dict[str, float] = {}
    for layout, recs in _sections(records):
        out.update(layout.summarize(recs, samples))
    return out


def render_report(results: Mapping[str, Any]) -> str:
    """The Markdown report of a results dict (as written to results.json)."""
    records = results.get("tasks", [])
    samples = int(results.get("samples", 1))
    es = results.get("eval_set", {})
    timing = results.get("timing", {})
    lines = [
        "# Evaluation report\n",
        md_table(["field", "value"], [
            ("model", results.get("model") or "—"),
            ("adapter", results.get("adapter") or "—"),
            ("backend", results.get("backend")),
            ("eval set", f"{es.get('version')} ({es.get('n_tasks')} tasks, seed {es.get('seed')})"),
            ("rollouts per task", samples),
            ("max new tokens", (results.get("config") or {}).get("max_new_tokens")),
            ("generation time (s)", timing.get("generation_seconds_total")),
            ("tokens / s", timing.get("tokens_per_second") or "—"),
        ]),
    ]
    notice = answer_notice(records, (results.get("config") or {}).get("max_new_tokens"))
    if notice:
        lines.insert(1, notice)
    lines += [layout.render(recs, samples) for layout, recs in _sections(records)]
    if records:
        lines.append(render_reasons(records))
    return "\n".join(lines)


def answered_share(records: Sequence[Record]) -> float | None:
    """The fraction of rollouts with a readable answer (None without rollouts)."""
    reasons = [r.get("reason") for rec in records for r in rec.get("rollouts", [])]
    return sum(answered(r) for r in reasons) / len(reasons) if reasons else None


def answer_notice(records: Sequence[Record], max_new_tokens: Any = None) -> str:
    """A warning for the top of the report when few or no completions had a readable answer ('' otherwise)."""
    share = answered_share(records)
    if share is None or share >= 0.2:
        return ""
    rollouts = [r for rec in records for r in rec.get("rollouts", [])]
    top = Counter(str(r.get("reason")) for r in rollouts).most_common(3)
    reasons = ", ".join(f"{k} {100.0 * v / len(rollouts):.0f}%" for k, v in top)
    tokens = [r["n_tokens"] for r in rollouts if r.get("n_tokens") is not None]
    cut = ""
    if tokens and max_new_tokens:
        at_limit = sum(t >= int(max_new_tokens) for t in tokens) / len(tokens)
        cut = (f" {100.0 * at_limit:.0f}% of the completions stopped at the {max_new_tokens}-token limit"
               f"{' (raise --max-new-tokens)' if at_limit >= 0.5 else ''}.")
    if share == 0:
        head = f"No completion had a readable answer** ({reasons}): every score below is 0 and no plots are drawn."
    else:
        head = (f"Only {100.0 * share:.0f}% of the completions had a readable answer** ({reasons}): the scores "
                "below mostly measure the answer format.")
    return (f"> **{head}{cut} "
            "Read a few completions in verdicts.jsonl: the model may not follow the answer format "
            "(`<answer>...</answer>`); a model trained with `rlvr sft` or `rlvr train` does.\n")


def render_reasons(records: Sequence[Record], max_columns: int = 8) -> str:
    """Share of verdict reasons per task family (``answered``: :func:`rlvr.reasons.answered`)."""
    total: Counter = Counter(r.get("reason") for rec in records for r in rec["rollouts"])
    reasons = [k for k, _ in total.most_common(max_columns)]
    rows = []
    for fam, recs in sorted(group_by(records, lambda r: r["family"]).items()):
        counts: Counter = Counter(r.get("reason") for rec in recs for r in rec["rollouts"])
        n = sum(counts.values())
        share = 100.0 * sum(v for k, v in counts.items() if answered(k)) / n
        rows.append([fam, n, fmt(share)] + [fmt(100.0 * counts.get(k, 0) / n) for k in reasons])
    return ("### Verdict reasons (% of rollouts)\n\n`answered`: the completion had a readable answer (format "
            "compliance, the same test as the format reward); `ok`: correct.\n\n"
            + md_table(["Task", "rollouts", "answered"] + reasons, rows))


# ---------------------------------------------------------------------------------------------- before / after


def _results_of(result: Any) -> Mapping[str, Any]:
    if hasattr(result, "summary") and hasattr(result, "results"):
        return result.results
    if isinstance(result, Mapping):
        return result
    return load_results(Path(result))


def split_summary(result: Any) -> dict[str, dict[str, float]]:
    """``{split row: {metric: value}}`` of a run (EvalResult, results dict or path), from each layout:
    e.g. stoichiometry EM/JAC/F1/ACC/answered per split group, molecular accuracy per pool split."""
    res = _results_of(result)
    summary = dict(res.get("summary", {}))
    out: dict[str, dict[str, float]] = {}
    for layout in layouts():
        for row, values in layout.split_summary(summary).items():
            out.setdefault(row, {}).update(values)
    return out


def before_after_table(
    before: Any,
    after: Any,
    metrics: Sequence[str] = ("EM", "JAC", "F1", "accuracy", "answered"),
) -> str:
    """A compact Markdown table of two runs (EvalResult, results dict or path), one row per split.

    Columns: for each metric present, before, after and the difference in percentage points.
    """
    a, b = split_summary(before), split_summary(after)
    splits = sorted(set(a) | set(b), key=lambda s: (s.split(" ")[0], split_sort(s.split(" ", 1)[-1])))
    present = [m for m in metrics if any(m in a.get(s, {}) or m in b.get(s, {}) for s in splits)]
    headers = ["Split"] + [f"{m} {w}" for m in present for w in ("before", "after", "Δ")]
    rows = []
    for s in splits:
        row: list[Any] = [s]
        for m in present:
            va, vb = a.get(s, {}).get(m), b.get(s, {}).get(m)
            row += [fmt(va), fmt(vb), f"{vb - va:+.2f}" if va is not None and vb is not None else "–"]
        rows.append(row)
    return md_table(headers, rows)


__all__ = ["before_after_table", "render_reasons", "render_report", "split_summary", "summarize", "task_info"]
