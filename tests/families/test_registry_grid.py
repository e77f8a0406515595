"""Every registered family x split x option set of its ``option_grid`` (a few indices each): the oracle
scores 1.0, a perturbed oracle scores below 1, a task round-trips through JSON and ``rlvr.regenerate``,
and another process generates the identical tasks. A new family is covered with no edit here."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

import rlvr
from rlvr.families.conformance import ConformanceError, check_task, generate_cell, grid, perturb
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


def test_the_near_miss_changes_the_answer():
    assert perturb("x <answer>{2}H2O.{1}CO2</answer>") == "x <answer>{3}H2O.{1}CO2</answer>"
    assert perturb('<answer>{"smiles": "CCO"}</answer>') == "<answer></answer>"
    with pytest.raises(ConformanceError, match="no answer block"):
        perturb("no block")


@pytest.mark.parametrize("cell", CELLS, ids=_cell_id)
def test_oracle_near_miss_round_trip_and_regenerate(cell, tasks):
    for task in tasks[_cell_id(cell)]:
        assert task.family == cell[0] and task.meta.get("split", cell[1]) == cell[1]
        check_task(task, cell[2])


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
