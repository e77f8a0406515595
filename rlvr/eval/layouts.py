"""Which report layout tabulates which family: each group's ``FamilyGroup.report`` hook, else
:class:`FamilyLayout` (accuracy, answered rate and reward per family and split)."""
from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any, Mapping, Sequence

from rlvr.eval.tables import fmt, group_by, md_table, pct, put, split_sort, task_answered, task_metric
from rlvr.registry import ReportLayout, get_family, list_groups
from rlvr.task import Task, answer_key

Record = Mapping[str, Any]


class FamilyLayout:
    """The layout of families whose group has none: accuracy, answered rate and reward per family and split."""

    name = "tasks"
    #: what exact match and format mean in a report (a layout's optional ``metric_note``; see :func:`metric_note`)
    metric_note = ("format ok = the completion has an answer block that parses; exact match = the verifier calls "
                   "the whole answer correct")

    def task_info(self, task: Task) -> dict[str, Any]:
        return {}

    def summarize(self, records: Sequence[Record], samples: int) -> dict[str, float]:
        out: dict[str, float] = {}
        for (family, group), recs in group_by(records, lambda r: (r["family"], r["split_group"])).items():
            put(out, f"tasks/{family}/{group}/accuracy", pct(task_metric(r, "correct") for r in recs), se=True)
            put(out, f"tasks/{family}/{group}/answered", pct(task_answered(r) for r in recs))
            put(out, f"tasks/{family}/{group}/reward", pct(_mean_reward(r) for r in recs))
        return out

    def split_summary(self, summary: Mapping[str, float]) -> dict[str, dict[str, float]]:
        out: dict[str, dict[str, float]] = {}
        for key, value in summary.items():
            parts = key.split("/")
            if not key.endswith(("_se", "_n")) and parts[0] == "tasks" and len(parts) == 4:
                out.setdefault(f"{parts[1]} {parts[2]}", {})[parts[3]] = value
        return out

    def render(self, records: Sequence[Record], samples: int) -> str:
        rows = []
        cells = group_by(records, lambda r: (r["family"], r["split_group"]))
        for (family, group), recs in sorted(cells.items(), key=lambda kv: (kv[0][0], split_sort(kv[0][1]))):
            acc = pct(task_metric(r, "correct") for r in recs)
            rows.append([family, group, len(recs), fmt(acc[0], acc[1]), fmt(pct(task_answered(r) for r in recs)[0]),
                         fmt(pct(_mean_reward(r) for r in recs)[0])])
        return ("## Tasks\n\nAccuracy: mean over rollouts, ± standard error across tasks; reward: the verifier's.\n\n"
                + md_table(["Task", "Split", "n", "accuracy", "answered", "reward"], rows))

    def plots(self, plt: Any, summary: Mapping[str, float], folder: Path) -> list[Path]:
        return []


def _mean_reward(record: Record) -> float:
    rollouts = record["rollouts"]
    return sum(float(r.get("reward", 0.0) or 0.0) for r in rollouts) / len(rollouts)


#: the layout of families whose group brings none
GENERIC_LAYOUT = FamilyLayout()


def layout_for(family: str) -> ReportLayout:
    """The report layout of ``family`` (its group's, else :data:`GENERIC_LAYOUT`)."""
    group = get_family(family).group
    return group.report if group is not None and group.report is not None else GENERIC_LAYOUT


def metric_note(family: str) -> str:
    """One line saying what "format ok" and "exact match" mean for ``family``: its report layout's
    ``metric_note`` (an optional attribute of a layout), else the generic layout's."""
    note = getattr(layout_for(family), "metric_note", None)
    return str(note) if note else GENERIC_LAYOUT.metric_note


def task_group(task: Task) -> str | None:
    """The kind of question ``task`` is (a molecule task's asked feature), from its report layout's optional
    ``task_group`` hook; None where the layout has none."""
    hook = getattr(layout_for(task.family), "task_group", None)
    return str(hook(task)) if hook is not None else None


def accuracy_by_group(tasks: Sequence[Task], correct: Mapping[str, bool]) -> dict[str, tuple[int, int]]:
    """``{question kind: (right, scored)}`` over ``tasks`` whose id is in ``correct`` (``{task id: correct}``),
    largest kinds first; empty where the tasks' layouts name no kinds (:func:`task_group`)."""
    counts: dict[str, list[int]] = {}
    for task in tasks:
        group = task_group(task)
        if group is None or task.id not in correct:
            continue
        cell = counts.setdefault(group, [0, 0])
        cell[0] += bool(correct[task.id])
        cell[1] += 1
    return {g: (c[0], c[1]) for g, c in sorted(counts.items(), key=lambda kv: (-kv[1][1], kv[0]))}


def _answers_by_group(tasks: Sequence[Task]) -> dict[str, Counter]:
    answers: dict[str, Counter] = {}
    for task in tasks:
        group = task_group(task)
        if group is not None:
            answers.setdefault(group, Counter())[answer_key(task)] += 1
    return answers


def common_answers(tasks: Sequence[Task]) -> dict[str, str]:
    """``{question kind: its most common true answer among tasks}`` (an :func:`rlvr.task.answer_key`; the first
    met wins a tie); empty where the tasks' layouts name no kinds."""
    return {g: c.most_common(1)[0][0] for g, c in _answers_by_group(tasks).items()}


def constant_answer_by_group(tasks: Sequence[Task]) -> dict[str, tuple[int, int]]:
    """``{question kind: (right, scored)}`` of the best constant answer per kind: each kind's most common true
    answer among ``tasks`` (:func:`common_answers`), counted on the same tasks (an optimistic baseline: what a
    model that reads nothing but the question's kind scores). Empty where the tasks' layouts name no kinds."""
    return {g: (c.most_common(1)[0][1], sum(c.values())) for g, c in _answers_by_group(tasks).items()}


def against_common_answers(tasks: Sequence[Task], correct: Mapping[str, bool]) -> tuple[int, int]:
    """A model against the most-common-answer baseline, task by task over the ``tasks`` that have a kind and a
    verdict in ``correct``: ``(up, down)``, up where the model is right and the kind's most common true answer
    (:func:`common_answers`, the baseline's answer) is not, down where the baseline is right and the model is not."""
    common = common_answers(tasks)
    up = down = 0
    for task in tasks:
        kind = task_group(task)
        if kind is None or task.id not in correct:
            continue
        modal = answer_key(task) == common[kind]
        up += bool(correct[task.id]) and not modal
        down += modal and not correct[task.id]
    return up, down


def layouts() -> list[ReportLayout]:
    """Every layout of the registered groups, then the generic one."""
    found = {g.report.name: g.report for g in list_groups() if g.report is not None}
    return [*found.values(), GENERIC_LAYOUT]
