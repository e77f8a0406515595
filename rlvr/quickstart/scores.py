"""Per-split scores of each evaluated model, and the paired tests between them.

Every stage of ``rlvr quickstart`` scores the same greedy tasks, so each pair of stages is compared task by
task. Per split, against the final (RL) model (the recipe declares ONE of these as its primary test,
:mod:`rlvr.quickstart.claims`; the rest are secondary and reported with Holm-adjusted p-values):

- ``p_value`` / ``gained`` / ``lost``: base -> final, exact McNemar test on exact match;
  ``reward_p_value`` / ``better`` / ``worse`` / ``reward_diff``: exact Wilcoxon signed-rank test on per-task reward;
- the same keys with ``_rl``: warm start -> final (the RL stage's own contribution);
- the same keys with ``_vs_control``: the control arm (more SFT from the warm start) -> final;
- ``em_*``, ``reward_*``, ``f1_*``, ``format_*`` at every stage (``before``, ``warm``, ``control``, ``after``),
  with standard errors of exact match.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from rlvr.eval.stats import mean_se, paired_exact_test, paired_signed_rank_test
from rlvr.eval.tables import metric_value
from rlvr.reasons import format_ok

#: the key suffix of each stage's scores in a split row
STAGE_KEYS = {"base": "before", "warm": "warm", "control": "control", "final": "after"}
#: the key suffix of each stage's paired tests against the final model
TEST_SUFFIX = {"base": "", "warm": "_rl", "control": "_vs_control"}
#: the split groups' display order
_SPLIT_ORDER = {"in": 0, "cross": 1, "out": 2}


@dataclass
class SplitScore:
    """Scores of one model on one eval split."""

    split: str
    n: int
    format_ok: float
    valid: float
    exact_match: float
    f1: float
    reward: float

    def row(self) -> list[str]:
        return [f"{100 * v:.1f}" for v in (self.format_ok, self.valid, self.exact_match, self.f1, self.reward)]


@dataclass
class StageResult:
    """One evaluated model: per-split scores and the slim per-task records the paired tests read."""

    scores: dict[str, SplitScore]
    records: list[dict[str, Any]]


def reward_metric(reward_mode: str) -> str:
    """The verdict metric that is the training reward's scoring mode (``f1``, ``jaccard`` or ``em``)."""
    return {"f1": "f1", "shaped": "f1", "jaccard": "jaccard"}.get(reward_mode, "em")


def score_records(records: Sequence[dict[str, Any]], reward_mode: str = "f1") -> dict[str, SplitScore]:
    """Per-split scores from ``rlvr.eval`` task records (first rollout of each task).

    ``reward`` is the training reward's scoring mode re-applied: the mean of the metric named
    ``reward_mode`` (``f1``, ``jaccard`` or ``em``).
    """
    by_split: dict[str, list[dict[str, Any]]] = {}
    for rec in records:
        by_split.setdefault(rec.get("split_group") or rec["split"], []).append(rec["rollouts"][0])
    key = reward_metric(reward_mode)
    out = {}
    for split, rolls in by_split.items():
        n = len(rolls)
        metric = lambda name: sum(metric_value(r, name) for r in rolls) / n  # noqa: E731 - absent: 1 when correct
        out[split] = SplitScore(split=split, n=n, format_ok=sum(format_ok(r["reason"]) for r in rolls) / n,
                                valid=metric("valid"), exact_match=sum(bool(r["correct"]) for r in rolls) / n,
                                f1=metric("f1"), reward=metric(key))
    return out


def slim_records(records: Sequence[dict[str, Any]], reward_mode: str = "f1") -> list[dict[str, Any]]:
    """What the paired tests need of eval records: id, split group and the first rollout's verdict and
    per-task reward (the checker's metric of the recipe's reward mode, as :func:`score_records` reads it)."""
    key = reward_metric(reward_mode)
    out = []
    for r in records:
        roll = r["rollouts"][0]
        metrics = roll.get("metrics") or {}
        reward = float(metrics.get(key, 0.0) or 0.0) if key != "em" else float(bool(roll["correct"]))
        out.append({"id": r["id"], "split": r["split"], "split_group": r.get("split_group"),
                    "rollouts": [{"correct": bool(roll["correct"]), "reason": roll["reason"], "reward": reward}]})
    return out


def order_splits(splits: Sequence[str]) -> list[str]:
    """``in``, ``cross``, ``out`` first, the rest by name."""
    return sorted(splits, key=lambda s: (_SPLIT_ORDER.get(s, 9), s))


def per_task(records: Sequence[dict[str, Any]], what: str = "correct") -> dict[str, dict[str, Any]]:
    """``{split: {task id: value}}`` of the first rollout of each task record: ``correct`` (bool) or
    ``reward`` (the per-task reward kept by the quickstart's slim records)."""
    out: dict[str, dict[str, Any]] = {}
    for rec in records:
        split = rec.get("split_group") or rec["split"]
        roll = rec["rollouts"][0]
        if what == "correct":
            value = bool(roll["correct"])
        else:  # the slim records' reward, else the verdict's F1, else exact match
            metrics = roll.get("metrics") or {}
            value = float(roll.get("reward", metrics.get("f1", float(bool(roll["correct"])))) or 0.0)
        out.setdefault(split, {})[rec["id"]] = value
    return out


def per_task_correct(records: Sequence[dict[str, Any]]) -> dict[str, dict[str, bool]]:
    """``{split: {task id: correct}}`` of the first rollout of each task record."""
    return per_task(records, "correct")


def _paired(ref: dict[str, Any], treated: dict[str, Any]) -> tuple[list[Any], list[Any]]:
    ids = [i for i in ref if i in treated]
    return [ref[i] for i in ids], [treated[i] for i in ids]


def _stage_values(stage: str, right: Sequence[bool], score: SplitScore | None) -> dict[str, Any]:
    """A stage's exact match (with its standard error), reward, F1 and format share on one split."""
    name = STAGE_KEYS[stage]
    em, se, _ = mean_se(float(x) for x in right)
    return {f"em_{name}": em, f"em_se_{name}": se, f"reward_{name}": score.reward if score else None,
            f"f1_{name}": score.f1 if score else None, f"format_{name}": score.format_ok if score else None}


def _paired_tests(suffix: str, ref: tuple[dict, dict], final: tuple[dict, dict]) -> dict[str, Any]:
    """The exact McNemar test on exact match and the Wilcoxon signed-rank test on reward, ``ref`` -> ``final``
    (each a pair of ``{task id: correct}`` and ``{task id: reward}`` maps of one split)."""
    em = paired_exact_test(*_paired(ref[0], final[0]))
    rank = paired_signed_rank_test(*_paired(ref[1], final[1]))
    return {f"gained{suffix}": em.gained, f"lost{suffix}": em.lost, f"p_value{suffix}": em.p_value,
            f"better{suffix}": rank.better, f"worse{suffix}": rank.worse, f"reward_diff{suffix}": rank.mean_diff,
            f"reward_p_value{suffix}": rank.p_value}


def build_summary(stages: Mapping[str, StageResult]) -> dict[str, Any]:
    """Per split (``in``, ``cross``, ``out``, ...): n, each stage's exact match (with standard errors), reward,
    F1 and format share (fractions in [0, 1]), and the paired tests of every other stage against ``final``
    (``base`` is required; ``warm`` and ``control`` are optional)."""
    correct = {name: per_task(stage.records) for name, stage in stages.items()}
    reward = {name: per_task(stage.records, "reward") for name, stage in stages.items()}
    final = "final"
    splits: dict[str, Any] = {}
    for split in order_splits(list(dict.fromkeys([*correct["base"], *correct[final]]))):
        final_maps = (correct[final].get(split, {}), reward[final].get(split, {}))
        base_right, _ = _paired(correct["base"].get(split, {}), final_maps[0])
        row: dict[str, Any] = {"n": len(base_right)}
        for name, stage in stages.items():
            ref_right, _ = _paired(correct[name].get(split, {}), final_maps[0])
            row.update(_stage_values(name, ref_right, stage.scores.get(split)))
            if name in TEST_SUFFIX:
                row.update(_paired_tests(TEST_SUFFIX[name], (correct[name].get(split, {}), reward[name].get(split, {})),
                                         final_maps))
        splits[split] = row
    return splits
