"""A primary test pooled over several seeds' runs, declared in the recipe before the first of them
(``pooled_test``), with the reaction or molecule as the unit.

Each seed's run (``rlvr quickstart --recipe R --seed N``) scores the same eval tasks; its per-seed tests are in its
own ``summary.json``. The pooled test reads every run's per-task verdicts: per unit (the item a task is about,
:attr:`rlvr.family_spec.FamilySpec.items`: a reaction, a molecule), the mean change from ``reference`` to ``treated``
over the unit's tasks and the seeds; an exact two-sided sign test over the units whose mean change is not zero.
A unit counts once however many tasks or seeds share it.

The declaration::

    pooled_test:
      seeds: [3, 4, 5]
      reference: control
      treated: rl
      split: fresh_out            # an eval set of the recipe
      alpha: 0.05
      secondary:                  # one family, read after Holm's correction
        - {per_seed: true}        # the primary comparison on each seed alone
        - {reference: rft, split: fresh_out}
        - {split: fresh_in}
        - {measure: pass@1}       # pass@1 at temperature on the recipe's pass_at_k set (exact signed-rank test)

A secondary's missing keys are the primary's. ``measure`` is ``em`` (greedy exact match, exact sign test over units)
or ``pass@1`` (each unit's mean change of its share of right samples, exact signed-rank test over units).
:func:`pooled_claims` computes the declared tests from the runs' folders; ``scripts/quickstart_seeds.py`` prints them.
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, Mapping, Sequence

from rlvr.eval.stats import holm, pooled_signed_rank_test, pooled_task_sign_test
from rlvr.eval.store import load_verdict_log
from rlvr.quickstart.claims import is_tuning_split, label
from rlvr.quickstart.scores import PRE_ARM_STAGES, per_task_correct, set_group
from rlvr.registry import get_family
from rlvr.task import load_tasks

MEASURES = ("em", "pass@1")
_KEYS = {"seeds", "reference", "treated", "split", "alpha", "secondary"}
_SECONDARY_KEYS = {"reference", "treated", "split", "measure", "per_seed"}
#: where a run keeps each stage's greedy records, and its eval and pass@k task files
STAGE_FOLDERS = {"base": "eval_before"}
EVAL_TASKS, PASS_TASKS = "eval_tasks.jsonl", "pass_at_k_tasks.jsonl"


@dataclass(frozen=True)
class Comparison:
    """One pooled comparison: ``reference`` -> ``treated`` on the eval set ``split`` by ``measure``; ``per_seed``:
    one test per seed instead of one over the seeds."""

    reference: str
    treated: str
    split: str
    measure: str = "em"
    per_seed: bool = False

    @property
    def name(self) -> str:
        return f"{self.reference}->{self.treated}/{self.measure}/{self.split}" + ("/per seed" if self.per_seed else "")


@dataclass(frozen=True)
class PooledDesign:
    """A recipe's ``pooled_test``: the seeds, the primary comparison, the secondary family and the level."""

    seeds: tuple[int, ...]
    primary: Comparison
    secondary: tuple[Comparison, ...] = ()
    alpha: float = 0.05

    @classmethod
    def from_summary(cls, value: Mapping[str, Any]) -> "PooledDesign":
        """The design a run's ``summary.json`` recorded (``pooled_test``, as :func:`dataclasses.asdict` wrote it)."""
        return cls(seeds=tuple(int(s) for s in value["seeds"]), primary=Comparison(**value["primary"]),
                   secondary=tuple(Comparison(**c) for c in value.get("secondary") or ()), alpha=float(value["alpha"]))

    @classmethod
    def from_recipe(cls, value: Mapping[str, Any] | None, *, eval_sets: Sequence[str], arms: Sequence[str],
                    pass_at_k: str | None = None) -> "PooledDesign | None":
        """The declaration checked against the recipe's eval sets and arms (``pass_at_k``: the set the recipe's
        pass@k samples, None without one); None when there is no declaration; ValueError in one line on a mistake."""
        if not value:
            return None
        if not isinstance(value, Mapping):
            raise ValueError(f"pooled_test must be a mapping {{{', '.join(sorted(_KEYS))}}}, got {value!r}")
        unknown = sorted(set(value) - _KEYS)
        if unknown:
            raise ValueError(f"pooled_test: unknown key(s) {unknown} (allowed: {', '.join(sorted(_KEYS))})")
        try:
            seeds = tuple(int(s) for s in value.get("seeds") or ())
        except (TypeError, ValueError):
            raise ValueError(f"pooled_test.seeds must be a list of integers, got {value.get('seeds')!r}") from None
        if len(seeds) < 2 or len(set(seeds)) != len(seeds):
            raise ValueError(f"pooled_test.seeds: at least two distinct seeds, got {list(seeds)}")
        try:
            alpha = float(value.get("alpha", 0.05))
        except (TypeError, ValueError):
            raise ValueError(f"pooled_test.alpha must be a number in (0, 1), got {value.get('alpha')!r}") from None
        if not 0 < alpha < 1:
            raise ValueError(f"pooled_test.alpha must lie in (0, 1), got {alpha}")
        stages = [*PRE_ARM_STAGES, *arms]
        primary = _comparison(value, None, eval_sets, stages, pass_at_k, "pooled_test")
        if primary.measure != "em" or primary.per_seed:
            raise ValueError("pooled_test: the primary is greedy exact match pooled over the seeds (no measure, no per_seed)")
        items = value.get("secondary") or []
        if not isinstance(items, list):
            raise ValueError(f"pooled_test.secondary must be a list of mappings, got {items!r}")
        secondary = tuple(_comparison(item, primary, eval_sets, stages, pass_at_k, f"pooled_test.secondary[{i}]")
                          for i, item in enumerate(items))
        return cls(seeds=seeds, primary=primary, secondary=secondary, alpha=alpha)


def _comparison(raw: Any, primary: Comparison | None, eval_sets: Sequence[str], stages: Sequence[str],
                pass_at_k: str | None, where: str) -> Comparison:
    if not isinstance(raw, Mapping):
        raise ValueError(f"{where} must be a mapping, got {raw!r}")
    allowed = _SECONDARY_KEYS if primary is not None else _KEYS
    unknown = sorted(set(raw) - allowed)
    if unknown:
        raise ValueError(f"{where}: unknown key(s) {unknown} (allowed: {', '.join(sorted(allowed))})")
    base = primary or Comparison("control", "rl", "")
    c = Comparison(reference=str(raw.get("reference", base.reference)), treated=str(raw.get("treated", base.treated)),
                   split=str(raw.get("split", base.split)), measure=str(raw.get("measure", "em")),
                   per_seed=bool(raw.get("per_seed", False)))
    if c.measure not in MEASURES:
        raise ValueError(f"{where}.measure must be one of {list(MEASURES)}, got {c.measure!r}")
    for stage in (c.reference, c.treated):
        if stage not in stages:
            raise ValueError(f"{where}: {stage!r} is not a stage of the run ({', '.join(stages)})")
    if c.reference == c.treated:
        raise ValueError(f"{where}: reference and treated are the same stage {c.reference!r}")
    if c.measure == "pass@1":
        if not pass_at_k:
            raise ValueError(f"{where}: measure pass@1 needs the recipe's pass_at_k set")
        if "split" in raw and str(raw["split"]) != pass_at_k:
            raise ValueError(f"{where}: pass@1 is measured on the pass_at_k set {pass_at_k!r}, not {raw['split']!r}")
        c = replace(c, split=pass_at_k)
    elif c.split not in eval_sets:
        raise ValueError(f"{where}.split must name one of the recipe's eval sets ({', '.join(eval_sets)}), got {c.split!r}")
    elif is_tuning_split(c.split):
        raise ValueError(f"{where}.split {c.split!r} is a tuning set; claims are tested on held-out sets")
    return c


# ------------------------------------------------------------------ reading the runs
def task_units(tasks_file: Path) -> dict[str, str]:
    """``{task id: family|item}`` of a run's task file (the item a task is about: its reaction, its molecule)."""
    return {t.id: f"{t.family}|{get_family(t.family).item_key(t)}" for t in load_tasks(tasks_file)}


def stage_outcomes(folder: Path, stage: str, comparison: Comparison) -> dict[str, float]:
    """``{task id: outcome}`` of one stage of a run: greedy exact match (1/0) on the comparison's eval set, or the
    share of right samples on the pass@k set. ValueError naming the missing file."""
    if comparison.measure == "pass@1":
        path = folder / "pass_at_k" / stage / "verdicts.jsonl"
        if not path.is_file():
            raise ValueError(f"{path} not found: the run did not sample {stage} for pass@k")
        done = load_verdict_log(path, repair=False)
        return {i: sum(bool(r["correct"]) for r in d["rollouts"]) / len(d["rollouts"]) for i, d in done.items() if d["rollouts"]}
    path = folder / STAGE_FOLDERS.get(stage, f"eval_{stage}") / "records.json"
    if not path.is_file():
        raise ValueError(f"{path} not found: the run has no {label(stage)} stage")
    by_group = per_task_correct(json.loads(path.read_text()))
    return {i: float(v) for i, v in by_group.get(set_group(comparison.split), {}).items()}


@dataclass(frozen=True)
class PooledOutcome:
    """One pooled test: ``improved`` / ``worsened`` units (of ``n_units``, over ``n_tasks`` tasks and ``runs``
    runs), the mean change per unit, p, and its Holm-adjusted p within the secondaries (None for the primary)."""

    name: str
    reference: str
    treated: str
    split: str
    measure: str
    runs: int
    n_tasks: int
    n_units: int
    improved: int
    worsened: int
    mean_change: float
    p_value: float
    p_holm: float | None = None

    @property
    def ahead(self) -> str | None:
        return self.treated if self.improved > self.worsened else self.reference if self.worsened > self.improved else None


def pooled_outcome(comparison: Comparison, folders: Sequence[Path], name: str | None = None) -> PooledOutcome:
    """The comparison over ``folders`` (one run each), units read from each run's task file."""
    tasks = PASS_TASKS if comparison.measure == "pass@1" else EVAL_TASKS
    units: dict[str, str] = {}
    for folder in folders:
        units.update(task_units(folder / tasks))
    before = [stage_outcomes(f, comparison.reference, comparison) for f in folders]
    after = [stage_outcomes(f, comparison.treated, comparison) for f in folders]
    test = pooled_task_sign_test if comparison.measure == "em" else pooled_signed_rank_test
    t = test(before, after, units)
    return PooledOutcome(name=name or comparison.name, reference=comparison.reference, treated=comparison.treated,
                         split=comparison.split, measure=comparison.measure, runs=t.runs, n_tasks=t.n_tasks,
                         n_units=t.n_units, improved=t.improved, worsened=t.worsened, mean_change=t.mean_change,
                         p_value=t.p_value)


def run_seed(folder: Path) -> int | None:
    """The seed a run's ``summary.json`` records (None without one)."""
    path = folder / "summary.json"
    if not path.is_file():
        return None
    seed = json.loads(path.read_text()).get("seed")
    return None if seed is None else int(seed)


def pooled_claims(design: PooledDesign, folders: Sequence[Path]) -> dict[str, Any]:
    """The declared pooled primary and its secondaries (Holm-adjusted) over the runs in ``folders``. Runs of seeds
    the design does not name are refused; while some declared seed is missing, ``complete`` is false and the
    primary is not yet the declared test (it is reported over the seeds there are)."""
    seeds = [run_seed(f) for f in folders]
    stray = [f"{f} (seed {s})" for f, s in zip(folders, seeds) if s not in design.seeds]
    if stray:
        raise ValueError(f"runs of seeds the pooled test does not declare ({list(design.seeds)}): {', '.join(stray)}")
    if len(set(seeds)) != len(seeds):
        raise ValueError(f"one run per seed, got seeds {seeds}")
    primary = pooled_outcome(design.primary, folders)
    secondary: list[PooledOutcome] = []
    for c in design.secondary:
        if c.per_seed:
            secondary += [pooled_outcome(replace(c, per_seed=False), [f], f"{c.name[:-len('/per seed')]}/seed {s}")
                          for f, s in zip(folders, seeds)]
        else:
            secondary.append(pooled_outcome(c, folders))
    adjusted = holm([s.p_value for s in secondary])
    secondary = [replace(s, p_holm=p) for s, p in zip(secondary, adjusted)]
    return {"seeds": list(design.seeds), "runs": seeds, "complete": sorted(seeds) == sorted(design.seeds),
            "alpha": design.alpha, "primary": {**asdict(primary), "ahead": primary.ahead,
                                                "significant": primary.p_value < design.alpha},
            "secondary": [{**asdict(s), "ahead": s.ahead} for s in secondary]}


def render_pooled(claims: Mapping[str, Any]) -> list[str]:
    """Report lines: the pooled primary with its direction, then every secondary with its Holm p."""
    p = claims["primary"]
    state = ("" if claims["complete"] else
             f" -- INCOMPLETE: seeds {claims['runs']} of the declared {claims['seeds']}; not yet the declared test")
    ahead = label(p["ahead"]) + " ahead" if p["ahead"] else "a tie"
    verdict = "significant" if p["significant"] else "not significant"
    lines = [f"POOLED PRIMARY (declared in the recipe): {label(p['reference'])} -> {label(p['treated'])} on {p['split']}, "
             f"{p['runs']} seeds, {p['n_units']} units ({p['n_tasks']} tasks): {p['improved']} units better with "
             f"{label(p['treated'])}, {p['worsened']} worse, mean change {100 * p['mean_change']:+.1f} points, exact sign "
             f"test p = {p['p_value']:.3g} -> {verdict} at alpha {claims['alpha']:g} ({ahead}){state}"]
    for s in claims["secondary"]:
        lines.append(f"  secondary {s['name']}: +{s['improved']} / -{s['worsened']} of {s['n_units']} units, "
                     f"p = {s['p_value']:.3g}, Holm p = {s['p_holm']:.3g} ({label(s['ahead']) + ' ahead' if s['ahead'] else 'tie'})")
    return lines
