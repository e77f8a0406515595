"""One declared test per claim: the primary test a recipe names before its run, and every other test as a
Holm-corrected secondary.

A recipe declares its primary test (``primary_test``); the quickstart's ``summary.json`` carries it under
``primary``, every other paired test on a claim split under ``secondary`` with its Holm-adjusted p-value,
and tuning splits (``valid*``, ``train*``: where recipes are chosen) under ``tuning``, untested.
docs/evaluation.md#methods says why.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Mapping

from rlvr.eval.stats import holm
from rlvr.eval.suites import SPLIT_GROUPS

# (stage, test) -> (p-value key, up-count key, down-count key) in a split row of ``build_summary``
TEST_KEYS: dict[tuple[str, str], tuple[str, str, str]] = {
    ("rl", "mcnemar"): ("p_value_rl", "gained_rl", "lost_rl"),
    ("rl", "wilcoxon"): ("reward_p_value_rl", "better_rl", "worse_rl"),
    ("base", "mcnemar"): ("p_value", "gained", "lost"),
    ("base", "wilcoxon"): ("reward_p_value", "better", "worse"),
}
STAGE_NAMES = {"rl": "warm start -> final (the RL stage alone)", "base": "base -> final"}
TEST_NAMES = {"mcnemar": "exact McNemar on exact match", "wilcoxon": "exact Wilcoxon signed-rank on per-task reward"}


@dataclass(frozen=True)
class PrimaryTest:
    """The one test a run's claim rests on: ``stage`` (``rl``: warm start -> final; ``base``: base -> final),
    the eval set ``split`` it is run on, the ``test`` (``mcnemar`` on exact match, ``wilcoxon`` on per-task
    reward) and its level ``alpha``."""

    stage: str = "rl"
    split: str = "test_in"
    test: str = "mcnemar"
    alpha: float = 0.05

    @property
    def group(self) -> str:
        """The split group the eval records carry (``test_in`` -> ``in``)."""
        return SPLIT_GROUPS.get(self.split, self.split)

    @classmethod
    def from_recipe(cls, value: Mapping[str, Any] | None, *, has_warm_start: bool,
                    default_split: str = "test_in") -> "PrimaryTest":
        """The recipe's ``primary_test`` mapping (missing keys take the defaults); without one, the RL stage's
        McNemar on ``default_split`` (the first held-out eval set) when the recipe warm-starts, else base -> final.
        ValueError on a bad field."""
        if value is not None and not isinstance(value, Mapping):
            raise ValueError(f"primary_test must be a mapping {{stage, split, test, alpha}}, got {value!r}")
        raw = dict(value or {})
        raw.setdefault("split", default_split)
        unknown = set(raw) - {"stage", "split", "test", "alpha"}
        if unknown:
            raise ValueError(f"primary_test: unknown key(s) {sorted(unknown)} (use stage, split, test, alpha)")
        raw.setdefault("stage", "rl" if has_warm_start else "base")
        test = cls(**raw)
        if test.stage not in STAGE_NAMES:
            raise ValueError(f"primary_test.stage must be one of {sorted(STAGE_NAMES)}, got {test.stage!r}")
        if test.test not in TEST_NAMES:
            raise ValueError(f"primary_test.test must be one of {sorted(TEST_NAMES)}, got {test.test!r}")
        if test.stage == "rl" and not has_warm_start:
            raise ValueError("primary_test.stage 'rl' needs a warm start (sft_steps > 0); use stage: base")
        if not 0.0 < float(test.alpha) < 1.0:
            raise ValueError(f"primary_test.alpha must lie in (0, 1), got {test.alpha!r}")
        if is_tuning_split(test.split):
            raise ValueError(f"primary_test.split {test.split!r} is a tuning split; claims are tested on held-out splits")
        return test


def is_tuning_split(name: str) -> bool:
    """Whether an eval set or split group is for tuning (``valid*``, ``train*``), not for claims."""
    return str(name).startswith(("valid", "train"))


def _outcome(row: Mapping[str, Any], stage: str, test: str) -> dict[str, Any] | None:
    p_key, up, down = TEST_KEYS[(stage, test)]
    if p_key not in row:
        return None
    return {"stage": stage, "test": test, "n": row["n"], "up": row[up], "down": row[down], "p_value": row[p_key]}


def declared_tests(splits: Mapping[str, Mapping[str, Any]], primary: PrimaryTest) -> dict[str, Any]:
    """``primary``: the declared test's outcome (None where its split was not scored); ``secondary``: every
    other paired test on a claim split, each with its Holm-adjusted p (``p_holm``) over that whole family;
    ``tuning``: the split groups that are for tuning (reported, never tested for a claim)."""
    tuning = [g for g in splits if is_tuning_split(g)]
    out_primary = None
    row = splits.get(primary.group)
    if row is not None:
        found = _outcome(row, primary.stage, primary.test)
        if found is not None:
            out_primary = {**asdict(primary), "group": primary.group, "metric":
                           "exact_match" if primary.test == "mcnemar" else "reward", **found,
                           "significant": bool(found["p_value"] < primary.alpha)}
    secondary: list[dict[str, Any]] = []
    for group, split_row in splits.items():
        if group in tuning:
            continue
        for stage, test in TEST_KEYS:
            if (group, stage, test) == (primary.group, primary.stage, primary.test):
                continue
            found = _outcome(split_row, stage, test)
            if found is not None:
                secondary.append({"name": f"{stage}/{test}/{group}", "split": group, **found})
    for item, adjusted in zip(secondary, holm([s["p_value"] for s in secondary])):
        item["p_holm"] = adjusted
    return {"primary": out_primary, "secondary": secondary, "tuning": tuning}


def render_claims(claims: Mapping[str, Any]) -> list[str]:
    """Report lines: the primary test first, then the secondaries whose Holm-adjusted p is below 0.05."""
    p = claims.get("primary")
    if p is None:
        return ["primary test: its split was not scored in this run"]
    verdict = "significant" if p["significant"] else "not significant"
    lines = [f"PRIMARY TEST (declared in the recipe): {TEST_NAMES[p['test']]}, {STAGE_NAMES[p['stage']]}, on "
             f"{p['split']}: +{p['up']} / -{p['down']} of {p['n']}, p = {p['p_value']:.3g} -> {verdict} at alpha {p['alpha']:g}"]
    sec = claims.get("secondary") or []
    strong = [s for s in sec if s["p_holm"] < 0.05]
    lines.append(f"secondary tests ({len(sec)}, Holm-corrected): "
                 + (", ".join(f"{s['name']} p_holm = {s['p_holm']:.2g}" for s in strong) if strong else "none below 0.05"))
    if claims.get("tuning"):
        lines.append(f"tuning splits (recipe choices are made here, no test): {', '.join(claims['tuning'])}")
    return lines
