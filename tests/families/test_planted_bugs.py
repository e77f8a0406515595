"""Five bugs planted in a fresh family (atoms of one element in a formula, a plugin defined here), each of
which an earlier conformance run let through; each now fails the documented run with a message that names
the problem, and the same family without the bug passes every check:

1. a checker that recomputes its truth and disagrees with its generator on a minority of tasks, all with a
   feature (a parenthesised group) that none of the grid's fixed tasks has;
2. a checker that accepts an answer listing several values when any of them is right (a hedge);
3. a checker that takes half a second of wall-clock time on some inputs (asleep: no CPU time);
4. a generator seeded from ``hash()``, stable in one process and different in the next;
5. a family that is not registered, or whose provider fails to import: ``-k <family>`` fails in one line.

The specs sit at the top level of this module, so the other process of the cross-process check rebuilds
them from it.
"""
from __future__ import annotations

import os
import random
import re
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import pytest

import rlvr
from rlvr.answer import extract_answer
from rlvr.chem.formula import parse_formula
from rlvr.families.conformance import ConformanceError, check_family, check_own_hostile, check_task, grid
from rlvr.families.taskset import conformance_tasks
from rlvr.reasons import Reason
from rlvr.registry import FamilySpec, register_family, unregister_family
from rlvr.rng import task_rng
from rlvr.task import Task, Verdict, config_key, task_id

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(Path(__file__).resolve().parent / "fixtures"))
from package_copy import package_with_family  # noqa: E402

#: formulas by split; a few hold a parenthesised group, the feature the buggy recomputation misreads
POOLS = {
    "train": ("C6H12O6", "C2H6O", "C2H4O2", "H2SO4", "NaHCO3", "C9H8O4", "C3H8O3", "CH4", "C2H6", "C3H8", "C4H10",
              "C6H6", "C7H8", "C10H8", "NH3", "H2O2", "HNO3", "H3PO4", "KMnO4", "CaCO3", "NaCl", "C2H5NO2",
              "C3H7NO2", "C5H5N", "Ca(OH)2", "C12H22O11", "Fe(OH)3", "C8H10N4O2", "Al2(SO4)3", "C6H5NO2"),
    "test": ("C4H4N2O2", "C7H6O3", "C6H8O7", "C2H2", "C3H6O", "CH3OH", "C5H12", "C6H14", "C8H18", "HCl", "KNO3",
             "Na2CO3", "MgSO4", "CuSO4", "C4H8O2", "C3H4O4", "C6H7N", "C2H3N", "Mg(NO3)2", "C5H10O5", "(NH4)2SO4",
             "C6H12", "Ca3(PO4)2"),
}
#: the formula on whose right answers the slow checker sleeps
SLOW_FORMULA = "C8H10N4O2"
ELEMENT = re.compile(r"([A-Z][a-z]?)(\d*)")


@dataclass(frozen=True)
class AtomsConfig:
    """``element`` fixes the element asked (None: drawn per task)."""

    element: str | None = None


def _task(name: str, config: AtomsConfig, split: str, seed: int, index: int, rng: random.Random) -> Task:
    formula = rng.choice(POOLS[split])
    counts = parse_formula(formula).as_dict()
    element = config.element or rng.choice(sorted(counts))
    return Task(id=task_id(name, split, seed, index, config_key(config)), family=name,
                prompt=[{"role": "user", "content": f"How many {element} atoms are in {formula}? <answer>N</answer>"}],
                ground_truth={"count": counts.get(element, 0)}, meta={"split": split, "formula": formula,
                                                                       "element": element})


def seeded_generator(name: str) -> Callable[[AtomsConfig, str, int, int], Task]:
    def generate(config: AtomsConfig, split: str, seed: int, index: int) -> Task:
        return _task(name, config, split, seed, index, task_rng(seed, name, split, index))
    return generate


def hash_seeded_generator(name: str) -> Callable[[AtomsConfig, str, int, int], Task]:
    def generate(config: AtomsConfig, split: str, seed: int, index: int) -> Task:
        # the bug: hash() of a string is salted per process
        return _task(name, config, split, seed, index, random.Random(hash((name, split, seed, index))))
    return generate


def read_count(completion: Any) -> int | None:
    text = extract_answer(completion).text
    match = re.fullmatch(r"\s*([0-9]{1,9})\s*", text or "")
    return None if match is None else int(match.group(1))


def _verdict(correct: bool) -> Verdict:
    return Verdict(float(correct), correct, {}, Reason.OK if correct else Reason.WRONG_VALUE)


def exact(task: Task, completion: Any) -> Verdict:
    value = read_count(completion)
    return Verdict.fail(Reason.UNPARSABLE) if value is None else _verdict(value == task.ground_truth["count"])


def naive_count(formula: str, element: str) -> int:
    """Atoms of ``element`` read element by element: a parenthesised group counts once (the bug)."""
    return sum(int(n or 1) for el, n in ELEMENT.findall(formula) if el == element)


def recomputes_the_truth(task: Task, completion: Any) -> Verdict:
    value = read_count(completion)
    if value is None:
        return Verdict.fail(Reason.UNPARSABLE)
    return _verdict(value == naive_count(task.meta["formula"], task.meta["element"]))


def accepts_any_listed_value(task: Task, completion: Any) -> Verdict:
    text = extract_answer(completion).text
    if text is None:
        return Verdict.fail(Reason.UNPARSABLE)
    tokens = [t for t in re.split(r"[\s,;/|]+|\bor\b", text) if t]  # a JSON list is not read
    if not tokens or not all(re.fullmatch(r"[0-9]{1,9}", t) for t in tokens):
        return Verdict.fail(Reason.UNPARSABLE)
    return _verdict(task.ground_truth["count"] in {int(t) for t in tokens})  # the bug: any of them


def slow_on_some_inputs(task: Task, completion: Any) -> Verdict:
    verdict = exact(task, completion)
    if verdict.correct and task.meta["formula"] == SLOW_FORMULA:
        time.sleep(0.5)  # the bug: a wait on some inputs (no CPU time)
    return verdict


def oracle(task: Task) -> str:
    return f"<answer>{task.ground_truth['count']}</answer>"


def build(name: str, check: Callable[..., Verdict] = exact,
          generator: Callable[[str], Callable[..., Task]] = seeded_generator) -> FamilySpec:
    return FamilySpec(name=name, config_cls=AtomsConfig, generator=generator(name), check=check, oracle=oracle,
                      splits=tuple(POOLS), description="Count the atoms of one element in a molecular formula.")


EXACT = build("plant.exact")
RECOMPUTES = build("plant.recompute", recomputes_the_truth)
HEDGES = build("plant.anyof", accepts_any_listed_value)
SLOW = build("plant.slow", slow_on_some_inputs)
HASH_SEEDED = build("plant.hashseed", generator=hash_seeded_generator)


@pytest.fixture
def family(request):
    spec = request.param
    register_family(spec)
    yield spec.name
    unregister_family(spec.name)


def grid_tasks(name: str) -> list[Task]:
    """The fixed tasks of the grid checks (indices 0 and 1 of every split and option set)."""
    return [rlvr.generate(name, split, 11, i, **options) for split, options in grid(name) for i in (0, 1)]


@pytest.mark.parametrize("family", [EXACT], indirect=True)
def test_the_family_without_a_bug_passes_every_check(family):
    assert len(check_family(family)) == len(grid_tasks(family))


@pytest.mark.parametrize("family", [RECOMPUTES], indirect=True)
def test_a_checker_that_disagrees_with_its_generator_on_a_few_tasks_fails(family):
    for task in grid_tasks(family):  # no fixed task has a group, so the grid checks pass
        assert "(" not in task.meta["formula"]
        check_task(task)
    tasks = conformance_tasks(family)
    wrong = sum(not rlvr.verify(t, oracle(t)).correct for t in tasks)
    assert 0.04 <= wrong / len(tasks) <= 0.12 and len(tasks) >= 144
    with pytest.raises(ConformanceError, match=rf"generator and the checker disagree on {wrong} of {len(tasks)} "
                                               r"conformance tasks .*\(.*\).*on plant\.recompute:"):
        check_family(family)


@pytest.mark.parametrize("family", [HEDGES], indirect=True)
def test_a_checker_that_accepts_any_listed_value_fails(family):
    for task in grid_tasks(family):  # one unit off, hostile values and a JSON list [wrong, right] are all rejected
        check_task(task)
        check_own_hostile(task)
    with pytest.raises(ConformanceError, match=r"accepts a hedged answer, several candidates joined by ' ' .*"
                                               r"'<answer>\d+ \d+</answer>' and '<answer>\d+ \d+</answer>' both score"):
        check_family(family)


@pytest.mark.parametrize("family", [SLOW], indirect=True)
def test_a_checker_that_is_slow_on_some_inputs_fails(family, cpu_seconds):
    slow = [t for t in conformance_tasks(family) if t.meta["formula"] == SLOW_FORMULA]
    assert slow and not any(t.meta["formula"] == SLOW_FORMULA for t in grid_tasks(family))
    verdict, seconds = cpu_seconds(rlvr.verify, slow[0], oracle(slow[0]))
    assert verdict.correct and seconds < 0.1  # asleep: CPU time does not see it
    with pytest.raises(ConformanceError, match=r"a verdict took 0\.\d\d s of wall-clock time, twice .*"
                                               r"on '<answer>\d+</answer>': the checker is slow on this input") as raised:
        check_family(family)
    assert any(str(raised.value).startswith(f"{t.id}: ") for t in slow)  # the slowest input's task


@pytest.mark.parametrize("family", [HASH_SEEDED], indirect=True)
def test_a_generator_seeded_from_hash_fails(family):
    for task in grid_tasks(family):  # stable in this process: regenerate rebuilds every task
        check_task(task)
    with pytest.raises(ConformanceError, match=r"another process \(another hash seed\) generates a different task "
                                               r".*hash\(\)"):
        check_family(family)


def test_a_family_that_is_not_registered_fails_in_one_line():
    with pytest.raises(ConformanceError, match=r"unknown task family 'plant\.absent'.*pass --plugin") as raised:
        check_family("plant.absent")
    assert "\n" not in str(raised.value)


def test_the_documented_run_of_a_missing_or_broken_family_fails_in_one_line(tmp_path):
    root = package_with_family(tmp_path, "toy_broken", "raise ImportError('a missing dependency')\n", "toy.broken")
    test_file = str(REPO / "tests" / "families" / "test_registry_grid.py")
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", test_file,
                           "-k", "toy.broken or plant.absent"], cwd=root, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(root)})
    output = proc.stdout + proc.stderr
    errors = [line for line in output.splitlines() if line.startswith("ERROR:")]
    assert proc.returncode not in (0, 5) and "deselected" not in output, output[-3000:]
    assert len(errors) == 1, output[-3000:]
    assert "'toy.broken'" in errors[0] and "rlvr.families.toy_broken (ImportError: a missing dependency)" in errors[0]
    assert "unknown task family 'plant.absent'" in errors[0]
