"""Per kind of question (a molecule task's asked feature): what each stage gets right, and whether a model
reads the question beyond its kind, against answering each kind's most common true value.

Both are empty for a family whose report layout names no kinds (stoichiometry).
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from rlvr.eval.layouts import accuracy_by_group, against_common_answers, constant_answer_by_group
from rlvr.eval.stats import sign_test_p_value
from rlvr.quickstart.claims import TestOutcome, is_tuning_split
from rlvr.task import Task

#: the baseline column of the per-kind table: each kind's most common true answer, given to every task of it
CONSTANT = "most common answer"
Stages = Mapping[str, Sequence[dict[str, Any]] | None]


def held_out(tasks: Sequence[Task]) -> list[Task]:
    """The eval tasks a claim may rest on (tuning sets left out)."""
    return [t for t in tasks if not is_tuning_split(str(t.meta.get("split", "")))]


def _correct(records: Sequence[dict[str, Any]]) -> dict[str, bool]:
    return {rec["id"]: bool(rec["rollouts"][0]["correct"]) for rec in records}


def accuracy_by_kind(tasks: Sequence[Task], stages: Stages) -> dict[str, dict[str, list[int]]]:
    """Per kind of question (a layout's ``task_group``) and stage, ``[right, scored]`` over the held-out eval
    tasks, plus :data:`CONSTANT`: what each kind's most common true answer scores on the same tasks (an
    optimistic baseline); empty where the family names no kinds."""
    held = held_out(tasks)
    out: dict[str, dict[str, list[int]]] = {}
    for stage, records in stages.items():
        if records is None:
            continue
        for kind, (right, n) in accuracy_by_group(held, _correct(records)).items():
            out.setdefault(kind, {})[stage] = [right, n]
    if out:
        for kind, (right, n) in constant_answer_by_group(held).items():
            out.setdefault(kind, {})[CONSTANT] = [right, n]
    return out


def versus_common_answers(tasks: Sequence[Task], stages: Stages) -> dict[str, dict[str, Any]]:
    """Per stage, the model against the most-common-answer baseline task by task over the held-out eval tasks
    (:func:`rlvr.eval.layouts.against_common_answers`): ``{"up", "down", "p", "n"}`` with the exact sign test's
    two-sided p on the tasks where exactly one of the two is right. Whether a model reads the question beyond
    its kind: base -> final alone would pass for one that answers each kind's common value. Empty where the
    family names no kinds."""
    held = held_out(tasks)
    out: dict[str, dict[str, Any]] = {}
    if not constant_answer_by_group(held):  # no kinds
        return out
    for stage, records in stages.items():
        if records is None:
            continue
        up, down = against_common_answers(held, _correct(records))
        out[stage] = {"up": up, "down": down, "p": sign_test_p_value(up, down), "n": len(held)}
    return out


def constant_tests(versus_common: Mapping[str, Mapping[str, Any]], arms: Sequence[str]) -> list[TestOutcome]:
    """The declared secondaries of :func:`versus_common_answers`: each arm (by its label) against the
    most-common-answer baseline, task by task (the base model and the warm start stay descriptive)."""
    return [TestOutcome(name=f"{CONSTANT}->{stage}/sign/held-out", reference=CONSTANT, treated=stage, test="sign",
                        split="held-out", n=int(row.get("n", row["up"] + row["down"])), up=int(row["up"]),
                        down=int(row["down"]), p_value=float(row["p"]))
            for stage, row in versus_common.items() if stage in arms]


def render_by_kind(by_kind: dict[str, dict[str, list[int]]]) -> str:
    """A Markdown table: right / scored per kind of question at each stage."""
    stages = list(dict.fromkeys(s for cells in by_kind.values() for s in cells))
    lines = ["| question | " + " | ".join(stages) + " |", "|---" * (len(stages) + 1) + "|"]
    for kind, cells in by_kind.items():
        lines.append(f"| {kind} | " + " | ".join(f"{cells[s][0]}/{cells[s][1]}" if s in cells else "–" for s in stages) + " |")
    return "\n".join(lines)
