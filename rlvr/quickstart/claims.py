"""One declared test per claim: the primary test a recipe names before its run, a declared family of secondary
tests read after Holm's correction, and every other paired test reported as exploratory (uncorrected).

A recipe declares its primary test (``primary_test``): two stages of the run, the ``reference`` and the
``treated`` arm (say ``control`` and ``rl``: whether RL teaches more than the control at the same step
budget), the eval set it is read on, the test and its level. ``summary.json`` carries it under ``primary``
with the arm that is ahead and a power statement; under ``secondary`` the declared family with Holm-adjusted
p-values:

- the primary comparison on every other held-out split;
- every other arm against the treated arm, on every held-out split (exact McNemar on exact match);
- the measurements that name themselves secondary (pass@1 and pass@k of the arms against the treated arm,
  the retention set before and after each arm, the most-common-answer baseline; :mod:`rlvr.quickstart.measures`);

and under ``exploratory`` everything else (the base model and the warm start against each arm, the reward
tests), uncorrected. Tuning splits (``valid*``, ``train*``: where recipes are chosen) are listed under
``tuning``, never tested. docs/evaluation.md#methods says why.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from typing import Any, Mapping, Sequence

from rlvr.eval.stats import holm, mcnemar_power
from rlvr.eval.suites import SPLIT_GROUPS
from rlvr.quickstart.scores import PRE_ARM_STAGES, test_key

#: the tests a split row carries per comparison: test -> (p-value key, up-count key, down-count key)
TEST_KEYS: dict[str, tuple[str, str, str]] = {
    "mcnemar": ("p_value", "gained", "lost"),
    "wilcoxon": ("reward_p_value", "better", "worse"),
}
TEST_NAMES = {"mcnemar": "exact McNemar on exact match", "wilcoxon": "exact Wilcoxon signed-rank on per-task reward",
              "sign": "exact sign test"}
#: the stages as the report names them
STAGE_LABELS = {"base": "base", "warm": "warm start", "rl": "RL", "control": "SFT control", "rft": "RFT control"}
#: the primary tests recipes declared before arms were data: stage -> (reference, treated)
LEGACY_PRIMARY = {"rl_vs_control": ("control", "rl"), "rl": ("warm", "rl"), "base": ("base", "rl")}
#: the power a declared test's sample is judged at
TARGET_POWER = 0.8


def label(stage: str) -> str:
    """A stage's name in reports (``rl`` -> ``RL``); an arm without a label keeps its name."""
    return STAGE_LABELS.get(stage, stage)


@dataclass(frozen=True)
class PrimaryTest:
    """The one test a run's claim rests on: ``reference`` -> ``treated`` (two stages of the run), on the eval set
    ``split``, with ``test`` (``mcnemar`` on exact match, ``wilcoxon`` on per-task reward) at level ``alpha``."""

    reference: str = "warm"
    treated: str = "rl"
    split: str = "test_in"
    test: str = "mcnemar"
    alpha: float = 0.05

    @property
    def group(self) -> str:
        """The split group the eval records carry (``test_in`` -> ``in``)."""
        return SPLIT_GROUPS.get(self.split, self.split)

    @property
    def key(self) -> str:
        """The comparison's key in a split row's ``tests``."""
        return test_key(self.reference, self.treated)

    @classmethod
    def from_recipe(cls, value: Mapping[str, Any] | None, *, arms: Sequence[str] = ("rl",), has_warm_start: bool,
                    default_split: str = "test_in") -> "PrimaryTest":
        """The recipe's ``primary_test`` mapping (missing keys take the defaults; ``stage`` is the older spelling
        of a pair, e.g. ``rl_vs_control``). Without one: the first arm against ``control`` when the run has a
        control arm, else against the warm start, else against the base model, on ``default_split``.
        ValueError on a bad field."""
        if value is not None and not isinstance(value, Mapping):
            raise ValueError(f"primary_test must be a mapping {{reference, treated, split, test, alpha}}, got {value!r}")
        raw = dict(value or {})
        unknown = set(raw) - {"stage", "reference", "treated", "split", "test", "alpha"}
        if unknown:
            raise ValueError(f"primary_test: unknown key(s) {sorted(unknown)} (use reference, treated, split, test, alpha)")
        if "stage" in raw:
            stage = raw.pop("stage")
            if stage not in LEGACY_PRIMARY:
                raise ValueError(f"primary_test.stage must be one of {sorted(LEGACY_PRIMARY)}, got {stage!r}")
            raw.setdefault("reference", LEGACY_PRIMARY[stage][0])
            raw.setdefault("treated", LEGACY_PRIMARY[stage][1])
        arms = list(arms)
        treated = str(raw.get("treated") or (arms[0] if arms else "rl"))
        others = [a for a in arms if a != treated]
        raw.setdefault("reference", "control" if "control" in others else "warm" if has_warm_start else "base")
        raw.setdefault("split", default_split)
        test = cls(reference=str(raw["reference"]), treated=treated, split=str(raw["split"]),
                   test=str(raw.get("test", "mcnemar")), alpha=_alpha(raw.get("alpha", 0.05)))
        stages = [*PRE_ARM_STAGES[: 2 if has_warm_start else 1], *arms]
        if test.treated not in arms:
            raise ValueError(f"primary_test.treated must be one of the run's arms {arms}, got {test.treated!r}")
        if test.reference not in stages or test.reference == test.treated:
            raise ValueError(f"primary_test.reference must be another stage of the run ({', '.join(s for s in stages if s != test.treated)}), "
                             f"got {test.reference!r}" + ("; 'warm' needs a warm start (sft_steps > 0)" if test.reference == "warm" else ""))
        if test.test not in TEST_KEYS:
            raise ValueError(f"primary_test.test must be one of {sorted(TEST_KEYS)}, got {test.test!r}")
        if is_tuning_split(test.split):
            raise ValueError(f"primary_test.split {test.split!r} is a tuning split; claims are tested on held-out splits")
        return test


def _alpha(value: Any) -> float:
    """The level as a number (YAML reads ``5e-2`` as text); ValueError unless it lies in (0, 1)."""
    try:
        alpha = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"primary_test.alpha must be a number in (0, 1), got {value!r}") from None
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"primary_test.alpha must lie in (0, 1), got {value!r}")
    return alpha


def is_tuning_split(name: str) -> bool:
    """Whether an eval set or split group is for tuning (``valid*``, ``train*``), not for claims."""
    return str(name).startswith(("valid", "train"))


@dataclass(frozen=True)
class TestOutcome:
    """One paired test's result: ``up`` tasks better in the ``treated`` stage than in the ``reference``, ``down``
    worse, of ``n``; ``p_holm`` is its Holm-adjusted p among the secondaries (None outside that family)."""

    __test__ = False  # a result, not a pytest class
    name: str
    reference: str
    treated: str
    test: str
    split: str
    n: int
    up: int
    down: int
    p_value: float
    p_holm: float | None = None

    @property
    def ahead(self) -> str | None:
        """The stage that is ahead (more tasks better in it), None on a tie."""
        return self.treated if self.up > self.down else self.reference if self.down > self.up else None


@dataclass(frozen=True)
class PrimaryOutcome:
    """The declared primary test and its outcome."""

    declared: PrimaryTest
    outcome: TestOutcome

    @property
    def significant(self) -> bool:
        """Whether p is below the declared alpha."""
        return self.outcome.p_value < self.declared.alpha

    def power(self) -> dict[str, Any] | None:
        """For exact McNemar: the discordance rate observed, the smallest difference in exact match these tasks
        detect at 80 % power with it, and the tasks the observed difference would need at 80 % power."""
        o = self.outcome
        if o.test != "mcnemar" or o.n == 0:
            return None
        return mcnemar_power(o.n, o.up, o.down, alpha=self.declared.alpha, power=TARGET_POWER)

    def to_dict(self) -> dict[str, Any]:
        """The ``summary.json`` form: the declaration, both arms, the counts, p, the verdict and the arm ahead."""
        o = self.outcome
        return {**asdict(self.declared), "group": self.declared.group, "arms": [o.reference, o.treated],
                "metric": "exact_match" if o.test == "mcnemar" else "reward", "n": o.n, "up": o.up, "down": o.down,
                "p_value": o.p_value, "significant": self.significant, "ahead": o.ahead, "power": self.power()}


@dataclass(frozen=True)
class Claims:
    """A run's tests: the primary (None where its split was not scored), the Holm-corrected secondaries, the
    exploratory tests (uncorrected), and the tuning split groups (reported, never tested)."""

    declared: PrimaryTest
    primary: PrimaryOutcome | None = None
    secondary: tuple[TestOutcome, ...] = field(default_factory=tuple)
    exploratory: tuple[TestOutcome, ...] = field(default_factory=tuple)
    tuning: tuple[str, ...] = field(default_factory=tuple)

    @property
    def alpha(self) -> float:
        """The declared level, which the secondaries' Holm-adjusted p-values are read at too."""
        return float(self.declared.alpha)

    def to_dict(self) -> dict[str, Any]:
        """``{"primary", "secondary", "exploratory", "tuning"}`` as ``summary.json`` carries them."""
        return {"primary": self.primary.to_dict() if self.primary else None,
                "secondary": [{**asdict(s), "ahead": s.ahead} for s in self.secondary],
                "exploratory": [{**asdict(s), "ahead": s.ahead} for s in self.exploratory],
                "tuning": list(self.tuning)}


def outcome(row: Mapping[str, Any], group: str, reference: str, treated: str, test: str) -> TestOutcome | None:
    """The ``test`` of ``reference -> treated`` in a split row of :func:`~rlvr.quickstart.scores.build_summary`
    (None where the row does not have it)."""
    found = (row.get("tests") or {}).get(test_key(reference, treated))
    p_key, up, down = TEST_KEYS[test]
    if not found or found.get(p_key) is None:
        return None
    return TestOutcome(name=f"{test_key(reference, treated)}/{test}/{group}", reference=reference, treated=treated,
                       test=test, split=group, n=int(row["n"]), up=int(found[up]), down=int(found[down]),
                       p_value=float(found[p_key]))


def _is_secondary(o: TestOutcome, primary: PrimaryTest) -> bool:
    """Whether a split test belongs to the declared family: the primary comparison on another split, or another
    arm against the treated arm, both with the primary's test."""
    if o.test != primary.test:
        return False
    same_pair = (o.reference, o.treated) == (primary.reference, primary.treated)
    arm_vs_treated = o.treated == primary.treated and o.reference not in PRE_ARM_STAGES
    return (same_pair and o.split != primary.group) or (arm_vs_treated and not same_pair)


def declared_tests(splits: Mapping[str, Mapping[str, Any]], primary: PrimaryTest,
                   measured: Sequence[TestOutcome] = ()) -> Claims:
    """The primary test's outcome on its split; the declared secondaries with Holm-adjusted p over that family
    (``measured``: the secondaries measurements add, e.g. pass@k and retention); every other test on a claim
    split as exploratory."""
    tuning = tuple(g for g in splits if is_tuning_split(g))
    row = splits.get(primary.group) or {}
    found = outcome(row, primary.group, primary.reference, primary.treated, primary.test) if row else None
    secondary: list[TestOutcome] = list(measured)
    exploratory: list[TestOutcome] = []
    for group, split_row in splits.items():
        if group in tuning:
            continue
        for tested in split_row.get("tests", {}).values():
            for test in TEST_KEYS:
                o = outcome(split_row, group, tested["reference"], tested["treated"], test)
                if o is None or (found is not None and o.name == found.name):
                    continue
                (secondary if _is_secondary(o, primary) else exploratory).append(o)
    adjusted = holm([s.p_value for s in secondary])
    secondary = [replace(s, p_holm=p) for s, p in zip(secondary, adjusted)]
    return Claims(declared=primary, primary=PrimaryOutcome(primary, found) if found else None,
                  secondary=tuple(secondary), exploratory=tuple(exploratory), tuning=tuning)


def verdict(o: TestOutcome, p: float, alpha: float) -> str:
    """``significant at alpha 0.05: RL ahead`` / ``not significant ...``: the reading of one test, with its
    direction."""
    ahead = o.ahead
    side = f"{label(ahead)} ahead by {abs(o.up - o.down)} tasks" if ahead else "a tie"
    return f"{'significant' if p < alpha else 'not significant'} at alpha {alpha:g} ({side})"


def power_line(power: Mapping[str, Any] | None) -> str | None:
    """The primary test's power statement in words (None where it has none)."""
    if not power:
        return None
    need = power.get("tasks_needed")
    need_text = (f"the observed difference ({100 * power['observed_difference']:+.1f} points) would need about "
                 f"{need:,} tasks at this discordance" if need else "the observed difference is zero")
    found = power.get("detectable_difference")
    detect = (f"at 80 % power these tasks detect a difference of {100 * found:.1f} points or more in exact match "
              f"(alpha {power['alpha']:g})" if found is not None else "at this discordance no difference is detectable "
              "with 80 % power on these tasks")
    return f"power: {100 * power['discordance']:.0f} % of the {power['n']} tasks are discordant; {detect}; {need_text}"


def render_claims(claims: Claims) -> list[str]:
    """Report lines: the primary test first, with its direction and power, then the secondaries below the
    declared alpha after Holm's correction."""
    if claims.primary is None:
        return ["primary test: its split was not scored in this run"]
    p, o = claims.primary.declared, claims.primary.outcome
    lines = [f"PRIMARY TEST (declared in the recipe): {TEST_NAMES[p.test]}, {label(o.reference)} -> {label(o.treated)} "
             f"on {p.split}: +{o.up} / -{o.down} of {o.n} ({label(o.treated)} better / worse), p = {o.p_value:.3g} -> "
             f"{verdict(o, o.p_value, p.alpha)}"]
    power = power_line(claims.primary.power())
    lines += [f"  {power}"] if power else []
    strong = [s for s in claims.secondary if s.p_holm is not None and s.p_holm < claims.alpha]
    lines.append(f"secondary tests ({len(claims.secondary)}, Holm-corrected): "
                 + ("; ".join(f"{s.name} p_holm = {s.p_holm:.2g}, {label(s.ahead) if s.ahead else 'tie'} ahead" for s in strong)
                    if strong else f"none below {claims.alpha:g}"))
    if claims.tuning:
        lines.append(f"tuning splits (recipe choices are made here, no test): {', '.join(claims.tuning)}")
    return lines
