"""Per-split scores of each evaluated model (a *stage*: ``base``, ``warm``, then one per arm), and the paired
tests between them.

Every stage of ``rlvr quickstart`` scores the same greedy tasks, so each pair of stages is compared task by
task. A split row of :func:`build_summary` holds ``n``, ``stages`` (per stage: ``em`` with its standard error
``em_se``, ``reward``, ``f1``, ``format``) and ``tests`` keyed ``"reference->treated"``: the exact McNemar test on
exact match (``gained``, ``lost``, ``p_value``) and the exact Wilcoxon signed-rank test on per-task reward
(``better``, ``worse``, ``reward_diff``, ``reward_p_value``). Which pairs are tested: :func:`comparisons` (the
recipe declares ONE as its primary test, :mod:`rlvr.quickstart.claims`).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from rlvr.eval.stats import (
    mean_se, paired_exact_test, paired_signed_rank_test, pooled_signed_rank_test, pooled_task_sign_test,
)
from rlvr.eval.suites import SPLIT_GROUPS
from rlvr.eval.tables import metric_value
from rlvr.reasons import format_ok

#: the stages every run may have before its arms: the base model and the warm start
PRE_ARM_STAGES = ("base", "warm")
#: the stage names summaries written before arms were data used, and the old key suffix of each
LEGACY_STAGES = {"base": "before", "warm": "warm", "control": "control", "rl": "after"}
#: the old test-key suffix of each legacy comparison, reference -> rl
LEGACY_TESTS = {"base": "", "warm": "_rl", "control": "_vs_control"}
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


def set_group(name: str) -> str:
    """The group an eval set's records are scored under: the split group of a set named after its split
    (``test_in`` -> ``in``), else the set's own name, so two sets on one split (``fresh_out`` at coefficients
    6-10, ``fresh_far`` at 11-20) stay apart."""
    return SPLIT_GROUPS.get(name, name)


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


def test_key(reference: str, treated: str) -> str:
    """The key of a comparison in a split row's ``tests``: ``"reference->treated"``."""
    return f"{reference}->{treated}"


def comparisons(stages: Sequence[str], treated: str | None = None) -> list[tuple[str, str]]:
    """The (reference, treated) pairs a run tests: the base model and the warm start against every arm, and
    every other arm against ``treated`` (default: the first arm). ``stages`` in run order, arms after
    :data:`PRE_ARM_STAGES`."""
    arms = [s for s in stages if s not in PRE_ARM_STAGES]
    pairs: list[tuple[str, str]] = []
    for arm in arms:
        pairs += [(ref, arm) for ref in PRE_ARM_STAGES if ref in stages]
    treated = treated or (arms[0] if arms else None)
    pairs += [(arm, treated) for arm in arms if arm != treated and treated is not None]
    return pairs


def _stage_values(right: Sequence[bool], score: SplitScore | None) -> dict[str, Any]:
    """A stage's exact match (with its standard error), reward, F1 and format share on one split."""
    em, se, _ = mean_se(float(x) for x in right)
    return {"em": em, "em_se": se, "reward": score.reward if score else None, "f1": score.f1 if score else None,
            "format": score.format_ok if score else None}


def _paired_tests(ref: tuple[dict, dict], treated: tuple[dict, dict], units: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The exact McNemar test on exact match and the Wilcoxon signed-rank test on reward, ``ref`` -> ``treated``
    (each a pair of ``{task id: correct}`` and ``{task id: reward}`` maps of one split). With ``units`` (task id
    -> its reaction or molecule) where some unit has several tasks, both count units: each unit's mean change is
    its one outcome (the sign test on exact match, the signed-rank test on reward), so tasks that share a reaction
    are not counted as independent."""
    if units:
        em_units = pooled_task_sign_test([ref[0]], [treated[0]], units)
        rank_units = pooled_signed_rank_test([ref[1]], [treated[1]], units)
        return {"gained": em_units.improved, "lost": em_units.worsened, "p_value": em_units.p_value,
                "better": rank_units.improved, "worse": rank_units.worsened, "reward_diff": rank_units.mean_change,
                "reward_p_value": rank_units.p_value}
    em = paired_exact_test(*_paired(ref[0], treated[0]))
    rank = paired_signed_rank_test(*_paired(ref[1], treated[1]))
    return {"gained": em.gained, "lost": em.lost, "p_value": em.p_value, "better": rank.better, "worse": rank.worse,
            "reward_diff": rank.mean_diff, "reward_p_value": rank.p_value}


def build_summary(stages: Mapping[str, StageResult], pairs: Sequence[tuple[str, str]] | None = None,
                  units: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Per split (``in``, ``cross``, ``out``, ...): ``n``, every stage's scores on the tasks all stages share, and
    the paired tests of ``pairs`` (default :func:`comparisons` of the stages, in their order).

    ``units`` (task id -> ``family|item``, as the eval set was written): each row gives ``n_units``, the distinct
    reactions or molecules of its ``n`` tasks, and where a unit has several tasks the tests count units
    (``unit_level`` true; :func:`_paired_tests`)."""
    correct = {name: per_task(stage.records) for name, stage in stages.items()}
    reward = {name: per_task(stage.records, "reward") for name, stage in stages.items()}
    pairs = comparisons(list(stages)) if pairs is None else pairs
    splits: dict[str, Any] = {}
    for split in order_splits(list(dict.fromkeys(s for by_split in correct.values() for s in by_split))):
        shared = set.intersection(*(set(c.get(split, {})) for c in correct.values()))
        row: dict[str, Any] = {"n": len(shared), "stages": {}, "tests": {}}
        split_units = {i: units.get(i, i) for i in shared} if units else {}
        clustered = len(set(split_units.values())) < len(shared) if split_units else False
        if split_units:
            row.update(n_units=len(set(split_units.values())), unit_level=clustered)
        for name, stage in stages.items():
            right = [v for i, v in correct[name].get(split, {}).items() if i in shared]
            row["stages"][name] = _stage_values(right, stage.scores.get(split))
        for ref, treated in pairs:
            maps = [(correct[n].get(split, {}), reward[n].get(split, {})) for n in (ref, treated)]
            row["tests"][test_key(ref, treated)] = {"reference": ref, "treated": treated,
                                                    **_paired_tests(*maps, split_units if clustered else None)}
        splits[split] = row
    return splits


def from_legacy(row: Mapping[str, Any]) -> dict[str, Any]:
    """A split row of a summary written before arms were data (``em_before``, ``p_value_vs_control``, ...) in
    today's shape (``stages``, ``tests``); a row already in it is returned as it is."""
    if "stages" in row:
        return dict(row)
    out: dict[str, Any] = {"n": row.get("n"), "stages": {}, "tests": {}}
    for stage, suffix in LEGACY_STAGES.items():
        if f"em_{suffix}" in row:
            out["stages"][stage] = {key: row.get(f"{old}_{suffix}") for key, old in
                                    (("em", "em"), ("em_se", "em_se"), ("reward", "reward"), ("f1", "f1"), ("format", "format"))}
    for ref, suffix in LEGACY_TESTS.items():
        if f"p_value{suffix}" in row:
            out["tests"][test_key(ref, "rl")] = {
                "reference": ref, "treated": "rl", **{key: row.get(f"{key}{suffix}") for key in
                                                      ("gained", "lost", "p_value", "better", "worse", "reward_diff", "reward_p_value")}}
    return out
