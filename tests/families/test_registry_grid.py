"""Every registered family x split x option set of its ``option_grid`` (a few indices each): the oracle
scores 1.0, no minimal perturbation of it scores 1.0 (on the family's largest answers too), no hostile
completion makes the checker raise, every hostile value under the family's own keys gets a clean wrong
verdict, a task round-trips through JSON and ``rlvr.regenerate``, and another process generates the
identical tasks. A new family is covered with no edit here; ``-k <family>`` runs one family's checks."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

import rlvr
from rlvr.families.conformance import (
    ConformanceError, check_hostile, check_largest_answers, check_own_hostile, check_task, generate_cell, grid,
    near_misses,
)
from rlvr.registry import REGISTRY, get_family

SEED = 11
INDICES = (0, 1)
CELLS = [(name, split, options) for name in rlvr.list_families() for split, options in grid(name)]


def _cell_id(cell: tuple) -> str:
    name, split, options = cell
    return f"{name}@{split}" + "".join(f",{k}={v}" for k, v in sorted(options.items()))


@pytest.fixture(scope="module")
def tasks() -> dict:
    """The tasks of every cell (generated once)."""
    return {_cell_id(c): generate_cell(c[0], c[1], c[2], SEED, INDICES) for c in CELLS}


def test_the_grid_covers_every_family_and_split():
    for name in rlvr.list_families():
        assert {split for fam, split, _ in CELLS if fam == name} == set(get_family(name).splits)


def test_the_default_near_misses_move_each_number_by_one_unit_of_its_last_digit():
    assert near_misses("x <answer>{2}H2O</answer>") == [
        "x <answer>{1}H2O</answer>", "x <answer>{3}H2O</answer>", "x <answer>{2}H1O</answer>", "x <answer>{2}H3O</answer>"]
    assert near_misses("<answer>46.1</answer>") == ["<answer>46.0</answer>", "<answer>46.2</answer>"]
    assert near_misses("<answer>0.0</answer>") == ["<answer>0.1</answer>"]
    assert near_misses('<answer>{"smiles": "CCO"}</answer>') == []
    with pytest.raises(ConformanceError, match="no answer block"):
        near_misses("no block")


@pytest.mark.parametrize("cell", CELLS, ids=_cell_id)
def test_oracle_minimal_perturbations_round_trip_and_regenerate(cell, tasks):
    for task in tasks[_cell_id(cell)]:
        assert task.family == cell[0] and task.meta.get("split", cell[1]) == cell[1]
        check_task(task, cell[2])


@pytest.mark.parametrize("family", rlvr.list_families())
def test_every_family_has_minimal_perturbations(family, tasks):
    scored = [check_task(t) for c in CELLS if c[0] == family for t in tasks[_cell_id(c)][:1]]
    assert sum(scored) > 0, f"{family}: no perturbation of any oracle answer"


@pytest.mark.parametrize("family", rlvr.list_families())
def test_no_hostile_completion_makes_a_checker_raise(family, tasks):
    for split in get_family(family).splits:
        cell = next(c for c in CELLS if c[0] == family and c[1] == split)
        check_hostile(tasks[_cell_id(cell)][0])


@pytest.mark.parametrize("family", rlvr.list_families())
def test_hostile_values_under_the_familys_own_keys_get_a_clean_wrong_verdict(family, tasks):
    for split in get_family(family).splits:
        cell = next(c for c in CELLS if c[0] == family and c[1] == split)
        assert check_own_hostile(tasks[_cell_id(cell)][0]) > 0


@pytest.mark.parametrize("family", rlvr.list_families())
def test_no_one_unit_change_of_the_largest_answers_is_accepted(family):
    assert len(check_largest_answers(family, seed=SEED)) >= len(get_family(family).splits)


_CHILD = """
import json, sys
import rlvr
from rlvr.families.conformance import generate_cell
cells = json.load(sys.stdin)
known = set(rlvr.list_families())
out = {cell_id: [t.to_dict() for t in generate_cell(*cell)] for cell_id, cell in cells.items() if cell[0] in known}
json.dump(out, sys.stdout)
"""


def test_another_process_generates_the_identical_tasks(tasks):
    cells = {_cell_id(c): [c[0], c[1], c[2], SEED, list(INDICES)] for c in CELLS}
    proc = subprocess.run([sys.executable, "-c", _CHILD], input=json.dumps(cells), capture_output=True, text=True,
                          timeout=300, check=True)
    theirs = json.loads(proc.stdout)
    # a family registered at run time is unknown to a fresh process; every provided family is there
    seen = {c[0] for c in CELLS if _cell_id(c) in theirs}
    assert seen == {c[0] for c in CELLS} - set(REGISTRY.runtime_names())
    for cell_id, records in theirs.items():
        assert records == [t.to_dict() for t in tasks[cell_id]], cell_id
