"""One declared test per claim: the primary test a recipe names before its run, every other test a
Holm-corrected secondary.

A recipe declares its primary test (``primary_test``); the quickstart's ``summary.json`` carries it under
``primary``, every other paired test on a claim split under ``secondary`` with its Holm-adjusted p-value
(the tests against the most-common-answer baseline among them), and tuning splits (``valid*``,
``train*``: where recipes are chosen) under ``tuning``, untested. docs/evaluation.md#methods says why.

The stages a test compares (each a pair of arms scored on the same greedy tasks):

- ``rl_vs_control``: the control arm's final model (more supervised training from the warm start) ->
  the RL arm's final model: whether RL teaches more than the same budget of SFT;
- ``rl``: warm start -> final, the RL stage alone;
- ``base``: base -> final.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Mapping

from rlvr.eval.stats import holm
from rlvr.eval.suites import SPLIT_GROUPS

#: (stage, test) -> (p-value key, up-count key, down-count key) in a split row of ``build_summary``
TEST_KEYS: dict[tuple[str, str], tuple[str, str, str]] = {
    ("rl_vs_control", "mcnemar"): ("p_value_vs_control", "gained_vs_control", "lost_vs_control"),
    ("rl_vs_control", "wilcoxon"): ("reward_p_value_vs_control", "better_vs_control", "worse_vs_control"),
    ("rl", "mcnemar"): ("p_value_rl", "gained_rl", "lost_rl"),
    ("rl", "wilcoxon"): ("reward_p_value_rl", "better_rl", "worse_rl"),
    ("base", "mcnemar"): ("p_value", "gained", "lost"),
    ("base", "wilcoxon"): ("reward_p_value", "better", "worse"),
}
#: the two arms each stage compares: (reference, treated)
STAGE_ARMS = {"rl_vs_control": ("control", "final"), "rl": ("warm start", "final"), "base": ("base", "final")}
STAGE_NAMES = {"rl_vs_control": "control (more SFT) -> final (RL), the same tasks",
               "rl": "warm start -> final (the RL stage alone)", "base": "base -> final"}
TEST_NAMES = {"mcnemar": "exact McNemar on exact match", "wilcoxon": "exact Wilcoxon signed-rank on per-task reward"}
#: the secondary family's name for the tests against the most-common-answer baseline
CONSTANT_STAGE = "constant"


@dataclass(frozen=True)
class PrimaryTest:
    """The one test a run's claim rests on: ``stage`` (``rl_vs_control``, ``rl`` or ``base``, :data:`STAGE_ARMS`),
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
    def from_recipe(cls, value: Mapping[str, Any] | None, *, has_warm_start: bool, has_control: bool = False,
                    default_split: str = "test_in") -> "PrimaryTest":
        """The recipe's ``primary_test`` mapping (missing keys take the defaults); without one, RL against the
        control on ``default_split`` (the first held-out eval set) when the recipe has a control arm, else the
        RL stage alone when it warm-starts, else base -> final. ValueError on a bad field."""
        if value is not None and not isinstance(value, Mapping):
            raise ValueError(f"primary_test must be a mapping {{stage, split, test, alpha}}, got {value!r}")
        raw = dict(value or {})
        raw.setdefault("split", default_split)
        unknown = set(raw) - {"stage", "split", "test", "alpha"}
        if unknown:
            raise ValueError(f"primary_test: unknown key(s) {sorted(unknown)} (use stage, split, test, alpha)")
        raw.setdefault("stage", "rl_vs_control" if has_control else "rl" if has_warm_start else "base")
        test = cls(**raw)
        if test.stage not in STAGE_NAMES:
            raise ValueError(f"primary_test.stage must be one of {sorted(STAGE_NAMES)}, got {test.stage!r}")
        if test.test not in TEST_NAMES:
            raise ValueError(f"primary_test.test must be one of {sorted(TEST_NAMES)}, got {test.test!r}")
        if test.stage == "rl" and not has_warm_start:
            raise ValueError("primary_test.stage 'rl' needs a warm start (sft_steps > 0); use stage: base")
        if test.stage == "rl_vs_control" and not has_control:
            raise ValueError("primary_test.stage 'rl_vs_control' needs a control arm (control_steps > 0)")
        if not 0.0 < float(test.alpha) < 1.0:
            raise ValueError(f"primary_test.alpha must lie in (0, 1), got {test.alpha!r}")
        if is_tuning_split(test.split):
            raise ValueError(f"primary_test.split {test.split!r} is a tuning split; claims are tested on held-out splits")
        return test


def is_tuning_split(name: str) -> bool:
    """Whether an eval set or split group is for tuning (``valid*``, ``train*``), not for claims."""
    return str(name).startswith(("valid", "train"))


@dataclass(frozen=True)
class TestOutcome:
    """One paired test's result: ``up`` tasks better in the treated arm, ``down`` worse, of ``n``; ``p_holm``
    is its Holm-adjusted p among the secondaries (None for the primary, which is read alone)."""

    name: str
    stage: str
    test: str
    split: str
    n: int
    up: int
    down: int
    p_value: float
    p_holm: float | None = None


@dataclass(frozen=True)
class PrimaryOutcome:
    """The declared primary test and its outcome."""

    declared: PrimaryTest
    outcome: TestOutcome

    @property
    def significant(self) -> bool:
        """Whether p is below the declared alpha."""
        return self.outcome.p_value < self.declared.alpha

    def to_dict(self) -> dict[str, Any]:
        """The ``summary.json`` form: the declaration, both arms, the counts, p and the verdict."""
        o = self.outcome
        return {**asdict(self.declared), "group": self.declared.group, "arms": list(STAGE_ARMS[o.stage]),
                "metric": "exact_match" if o.test == "mcnemar" else "reward", "n": o.n, "up": o.up, "down": o.down,
                "p_value": o.p_value, "significant": self.significant}


@dataclass(frozen=True)
class Claims:
    """A run's tests: the primary (None where its split was not scored), the Holm-corrected secondaries, and
    the tuning split groups (reported, never tested)."""

    declared: PrimaryTest
    primary: PrimaryOutcome | None = None
    secondary: tuple[TestOutcome, ...] = field(default_factory=tuple)
    tuning: tuple[str, ...] = field(default_factory=tuple)

    @property
    def alpha(self) -> float:
        """The declared level, which the secondaries' Holm-adjusted p-values are read at too."""
        return float(self.declared.alpha)

    def to_dict(self) -> dict[str, Any]:
        """``{"primary", "secondary", "tuning"}`` as ``summary.json`` carries them."""
        return {"primary": self.primary.to_dict() if self.primary else None,
                "secondary": [{k: v for k, v in asdict(s).items()} for s in self.secondary],
                "tuning": list(self.tuning)}


def _outcome(row: Mapping[str, Any], group: str, stage: str, test: str) -> TestOutcome | None:
    p_key, up, down = TEST_KEYS[(stage, test)]
    if p_key not in row:
        return None
    return TestOutcome(name=f"{stage}/{test}/{group}", stage=stage, test=test, split=group, n=int(row["n"]),
                       up=int(row[up]), down=int(row[down]), p_value=float(row[p_key]))


def declared_tests(splits: Mapping[str, Mapping[str, Any]], primary: PrimaryTest,
                   versus_common: Mapping[str, Mapping[str, Any]] | None = None) -> Claims:
    """The primary test's outcome on its split, and every other paired test on a claim split as a secondary
    with its Holm-adjusted p over that whole family. ``versus_common`` (stage -> ``{up, down, p, n}``, the
    held-out tasks against the most-common-answer baseline) adds one secondary per stage."""
    tuning = tuple(g for g in splits if is_tuning_split(g))
    found = _outcome(splits.get(primary.group) or {}, primary.group, primary.stage, primary.test) \
        if primary.group in splits else None
    secondary: list[TestOutcome] = []
    for group, split_row in splits.items():
        if group in tuning:
            continue
        for stage, test in TEST_KEYS:
            if (group, stage, test) != (primary.group, primary.stage, primary.test):
                outcome = _outcome(split_row, group, stage, test)
                secondary += [outcome] if outcome is not None else []
    for stage, row in (versus_common or {}).items():
        secondary.append(TestOutcome(name=f"{CONSTANT_STAGE}/sign/{stage}", stage=CONSTANT_STAGE, test="sign",
                                     split="held-out", n=int(row.get("n", row["up"] + row["down"])), up=int(row["up"]),
                                     down=int(row["down"]), p_value=float(row["p"])))
    adjusted = holm([s.p_value for s in secondary])
    secondary = [TestOutcome(**{**asdict(s), "p_holm": p}) for s, p in zip(secondary, adjusted)]
    return Claims(declared=primary, primary=PrimaryOutcome(primary, found) if found else None,
                  secondary=tuple(secondary), tuning=tuning)


def render_claims(claims: Claims) -> list[str]:
    """Report lines: the primary test first, then the secondaries whose Holm-adjusted p is below the declared alpha."""
    if claims.primary is None:
        return ["primary test: its split was not scored in this run"]
    p, o = claims.primary.declared, claims.primary.outcome
    verdict = "significant" if claims.primary.significant else "not significant"
    lines = [f"PRIMARY TEST (declared in the recipe): {TEST_NAMES[p.test]}, {STAGE_NAMES[p.stage]}, on "
             f"{p.split}: +{o.up} / -{o.down} of {o.n}, p = {o.p_value:.3g} -> {verdict} at alpha {p.alpha:g}"]
    strong = [s for s in claims.secondary if (s.p_holm or 1.0) < claims.alpha]
    lines.append(f"secondary tests ({len(claims.secondary)}, Holm-corrected): "
                 + (", ".join(f"{s.name} p_holm = {s.p_holm:.2g}" for s in strong) if strong
                    else f"none below {claims.alpha:g}"))
    if claims.tuning:
        lines.append(f"tuning splits (recipe choices are made here, no test): {', '.join(claims.tuning)}")
    return lines

