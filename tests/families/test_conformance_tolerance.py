"""The minimal-perturbation check also runs on a task with large answers: a checker that accepts a
10 % relative error fails conformance even when every drawn answer is below 10, where 10 % of the
answer never reaches one unit; and on the family's own tasks with the largest true values, so the same
checker fails where it recomputes the truth from the task's molecule instead of reading the ground
truth (the scaled task cannot catch it there). The family is a plugin defined here (heteroatoms of
small molecules, each split drawing from its own)."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable

import pytest
from rdkit import Chem

import rlvr

from rlvr.answer import extract_answer
from rlvr.families.conformance import (
    SCALE, ConformanceError, check_family, check_large_answers, check_task, largest_tasks, scaled_task,
)
from rlvr.reasons import Reason
from rlvr.registry import FamilySpec, Items, register_family, unregister_family
from rlvr.rng import task_rng
from rlvr.task import Task, Verdict, config_key, task_id

#: the molecules of each split
POOLS = {"train": ("CCO", "CC(=O)O", "OCC(O)CO", "NCC(=O)O", "CCN(CC)CC"), "test": ("ClC(Cl)Cl", "CS(C)=O", "C=CC#N")}
MOLECULES = POOLS["train"] + POOLS["test"]
#: two molecules with more than ten heteroatoms, drawn now and then beside the small ones (one per split)
LARGE = ("OCC(O)C(O)C(O)C(O)C(O)C(O)C(O)C(O)C(O)CO", "FC(F)(F)C(F)(F)C(F)(F)C(F)(F)C(F)(F)F")
WITH_LARGE = {"train": POOLS["train"] * 3 + LARGE[:1], "test": POOLS["test"] * 3 + LARGE[1:]}
Pools = dict[str, tuple[str, ...]]
#: the indices the grid checks run on
INDICES = range(4)


@dataclass(frozen=True)
class HeteroConfig:
    """No option besides the prompt options."""

    units: str = "atoms"


def heteroatoms(smiles: str) -> int:
    return sum(atom.GetSymbol() not in ("C", "H") for atom in Chem.MolFromSmiles(smiles).GetAtoms())


def make_generator(name: str, pools: Pools = POOLS) -> Callable[[HeteroConfig, str, int, int], Task]:
    def generate(config: HeteroConfig, split: str, seed: int, index: int) -> Task:
        smiles = task_rng(seed, name, split, index).choice(pools[split])
        return Task(id=task_id(name, split, seed, index, config_key(config)), family=name,
                    prompt=[{"role": "user", "content": f"How many heteroatoms has {smiles}? <answer>N</answer>"}],
                    ground_truth={"count": heteroatoms(smiles)}, meta={"split": split, "smiles": smiles})
    return generate


def read_count(completion: Any) -> int | None:
    text = extract_answer(completion).text
    match = re.fullmatch(r"\s*([0-9]{1,12})\s*", text or "")
    return int(match.group(1)) if match else None


def exact(task: Task, completion: Any) -> Verdict:
    value = read_count(completion)
    if value is None:
        return Verdict.fail(Reason.UNPARSABLE)
    correct = value == task.ground_truth["count"]
    return Verdict(float(correct), correct, {}, Reason.OK if correct else Reason.WRONG_VALUE)


def ten_percent_off_is_fine(task: Task, completion: Any) -> Verdict:
    value = read_count(completion)
    if value is None:
        return Verdict.fail(Reason.UNPARSABLE)
    truth = task.ground_truth["count"]
    correct = abs(value - truth) <= 0.1 * abs(truth)  # the bug: a relative tolerance on a count
    return Verdict(float(correct), correct, {}, Reason.OK if correct else Reason.WRONG_VALUE)


def recomputes_with_a_tolerance(task: Task, completion: Any) -> Verdict:
    value = read_count(completion)
    if value is None:
        return Verdict.fail(Reason.UNPARSABLE)
    truth = heteroatoms(task.meta["smiles"])  # the truth recomputed from the molecule, not read from ground_truth
    correct = abs(value - truth) <= 0.1 * abs(truth)  # the bug: a relative tolerance on a count
    return Verdict(float(correct), correct, {}, Reason.OK if correct else Reason.WRONG_VALUE)


def oracle(task: Task) -> str:
    return f"<answer>{task.ground_truth['count']}</answer>"


def build(name: str, check: Callable[..., Verdict], pools: Pools = POOLS) -> FamilySpec:
    return FamilySpec(name=name, config_cls=HeteroConfig, generator=make_generator(name, pools), check=check,
                      oracle=oracle, splits=tuple(pools), description="Heteroatoms of a small molecule.",
                      items=Items("molecule", lambda task: task.meta["smiles"],
                                  lambda config, split: len(set(pools[split]))))


@pytest.fixture
def family(request):
    spec = build(*request.param)
    register_family(spec)
    yield spec.name
    unregister_family(spec.name)


def test_every_drawn_answer_is_below_ten():
    assert max(heteroatoms(s) for s in MOLECULES) < 10


@pytest.mark.parametrize("family", [("test.hetero", exact)], indirect=True)
def test_an_exact_checker_passes_with_large_answers(family):
    tasks = check_family(family, indices=range(4), cross_process=False)
    large = [scaled_task(t) for t in tasks if t.ground_truth["count"]]
    assert large and all(t.ground_truth["count"] % SCALE == 0 and t.ground_truth["count"] >= SCALE for t in large)
    assert sum(check_large_answers(t) for t in tasks) >= 2 * len(large)


@pytest.mark.parametrize("family", [("test.hetero10", ten_percent_off_is_fine)], indirect=True)
def test_a_checker_with_a_relative_tolerance_fails_conformance(family):
    with pytest.raises(ConformanceError, match="large answers"):
        check_family(family, indices=range(4), cross_process=False)


@pytest.mark.parametrize("family", [("test.hetero_rc", recomputes_with_a_tolerance, WITH_LARGE)],
                         indirect=True)
def test_a_tolerant_checker_that_recomputes_the_truth_fails_on_the_largest_answers(family):
    grid_tasks = [task for split in ("train", "test") for task in
                  (rlvr.generate(family, split, 11, i) for i in INDICES)]
    assert max(t.ground_truth["count"] for t in grid_tasks) < 10  # every answer of the grid cells is small
    for task in grid_tasks:  # so the checks on the grid cells pass, the scaled task included (its oracle fails)
        check_task(task)
        assert check_large_answers(task) == 0
    assert max(t.ground_truth["count"] for t in largest_tasks(family)) > 10
    with pytest.raises(ConformanceError, match="largest answers"):
        check_family(family, indices=INDICES, cross_process=False)


@pytest.mark.parametrize("family", [("test.hetero_big", exact, WITH_LARGE)], indirect=True)
def test_an_exact_checker_passes_on_the_largest_answers(family):
    check_family(family, indices=INDICES, cross_process=False)
