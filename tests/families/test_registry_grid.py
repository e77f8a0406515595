"""Every registered family, one test per check and family (each test id names its family, so
``-k <family>`` runs all of one family's checks; tests/families/conftest.py fails that run in one line
when no family of that name is registered or its provider failed to import).

On every split x option set of the family's ``option_grid`` (a few indices each): the oracle scores 1.0, no
minimal perturbation of it scores 1.0, no hostile completion makes the checker raise, every hostile value
under the family's own keys gets a clean wrong verdict, a task round-trips through JSON and
``rlvr.regenerate``. On its conformance set (``rlvr.families.taskset``, at least 144 tasks over every split,
option set and difficulty-knob level): the oracle scores 1.0 on every task, the largest answers reject a
one-unit change, no hedged answer is accepted, verdicts stay within the wall-clock budget, and another
process generates the identical tasks.

What a reward and a held-out split promise: the checker is pure (checked first, and again by every test
that verifies, so a stateful checker fails each of them with the same message), every reward of every
conformance task is in [0, 1], the right answer scores 1.0 in every form the family renders it, every item of
a small pool agrees, held-out splits share no item with train, the generator varies, the prompt does not give
its answer away, and every verdict of the family's run is timed against one budget (the last test)."""
from __future__ import annotations

from typing import Iterator

import pytest

import rlvr
from rlvr.families.conformance import (
    ConformanceError, check_agreement, check_hedges, check_largest_answers, check_own_hostile, check_task,
    check_verdict_time, first_of_each_cell, generate_cell, grid, near_misses, purity_tasks,
)
from rlvr.families.crossprocess import compare_elsewhere, generate_elsewhere
from rlvr.families.items import check_every_item, check_splits_disjoint, check_variety
from rlvr.families.leaks import check_prompt_leaks
from rlvr.families.promises import check_pure, check_renderings, check_reward_range
from rlvr.families.taskset import MIN_TASKS, tasks_by_split
from rlvr.families.timing import TOTAL_SECONDS, VerdictClock
from rlvr.registry import REGISTRY, get_family

SEED = 11
INDICES = (0, 1)
FAMILIES = rlvr.list_families()
CELLS = [(name, split, options) for name in FAMILIES for split, options in grid(name)]


def _cell_id(cell: tuple) -> str:
    name, split, options = cell
    return f"{name}@{split}" + "".join(f",{k}={v}" for k, v in sorted(options.items()))


class _Cells(dict):
    """The tasks of each cell, by cell id, generated on first use."""

    def __missing__(self, cell_id: str) -> list:
        cell = next(c for c in CELLS if _cell_id(c) == cell_id)
        self[cell_id] = generate_cell(cell[0], cell[1], cell[2], SEED, INDICES)
        return self[cell_id]


@pytest.fixture(scope="module")
def tasks() -> dict:
    """The tasks of every cell (each generated once)."""
    return _Cells()


@pytest.fixture(scope="module")
def conformance_sets() -> dict:
    """Each family's conformance set by split, generated on first use."""
    return {}


def _conformance(family: str, sets: dict) -> dict:
    if family not in sets:
        sets[family] = tasks_by_split(family, seed=SEED)
    return sets[family]


def _flat(by_split: dict) -> list:
    return [task for split in by_split.values() for task in split]


@pytest.fixture(scope="module")
def clocks() -> dict:
    """One verdict clock per family: every verdict of the family's tests counts toward its run's budget."""
    return {}


@pytest.fixture(scope="module")
def purity() -> dict:
    """Each family's purity finding (None: pure), computed once on fresh tasks."""
    return {}


def _family_of(request: pytest.FixtureRequest) -> str | None:
    params = getattr(getattr(request.node, "callspec", None), "params", {})
    return params.get("family") or (params["cell"][0] if "cell" in params else None)


@pytest.fixture(autouse=True)
def _timed(request: pytest.FixtureRequest, clocks: dict, purity: dict) -> Iterator[None]:
    """A test of one family runs on that family's clock, after the purity check of its checker: a checker that
    changes state fails every test that verifies with the one message that says so."""
    family = _family_of(request)
    if family is None or family not in FAMILIES:
        yield
        return
    clock = clocks.setdefault(family, VerdictClock(family, fail=ConformanceError))
    with clock.active():
        if family not in purity:
            try:
                check_pure(purity_tasks(family, seed=SEED))
                purity[family] = None
            except ConformanceError as exc:
                purity[family] = str(exc)
        if purity[family] is not None:
            raise ConformanceError(purity[family])
        yield


def test_every_family_provider_imports():
    rlvr.list_families()
    assert not REGISTRY.failures(), f"task family providers that failed to import: {REGISTRY.failures()}"


@pytest.mark.parametrize("family", FAMILIES)
def test_the_grid_covers_every_split(family):
    assert {split for fam, split, _ in CELLS if fam == family} == set(get_family(family).splits)


def test_the_default_near_misses_move_each_number_by_one_unit_of_its_last_digit():
    assert near_misses("x <answer>{2}H2O</answer>") == [
        "x <answer>{1}H2O</answer>", "x <answer>{3}H2O</answer>", "x <answer>{2}H1O</answer>", "x <answer>{2}H3O</answer>"]
    assert near_misses("<answer>46.1</answer>") == ["<answer>46.0</answer>", "<answer>46.2</answer>"]
    assert near_misses("<answer>0.0</answer>") == ["<answer>0.1</answer>"]
    assert near_misses('<answer>{"smiles": "CCO"}</answer>') == []
    with pytest.raises(ConformanceError, match="no answer block"):
        near_misses("no block")


@pytest.mark.parametrize("family", FAMILIES)
def test_the_checker_is_pure(family):
    """The autouse fixture ran the check (verdicts twice, the task deep-compared, again after the others)."""
    assert len(purity_tasks(family, seed=SEED)) >= len(get_family(family).splits)


@pytest.mark.parametrize("cell", CELLS, ids=_cell_id)
def test_oracle_minimal_perturbations_round_trip_and_regenerate(cell, tasks):
    for task in tasks[_cell_id(cell)]:
        assert task.family == cell[0] and task.meta.get("split", cell[1]) == cell[1]
        check_task(task, cell[2])


@pytest.mark.parametrize("family", FAMILIES)
def test_every_family_has_minimal_perturbations(family, tasks):
    scored = [check_task(t) for c in CELLS if c[0] == family for t in tasks[_cell_id(c)][:1]]
    assert sum(scored) > 0, f"{family}: no perturbation of any oracle answer"


@pytest.mark.parametrize("family", FAMILIES)
def test_verdicts_stay_within_the_wall_clock_budget(family, conformance_sets):
    """Before the other checks of the conformance set: each input's first verdict is timed."""
    by_split = _conformance(family, conformance_sets)
    tasks = [task for split in by_split.values() for task in split]
    assert check_verdict_time(tasks, first_of_each_cell(family, by_split)) > len(tasks)


@pytest.mark.parametrize("family", FAMILIES)
def test_every_reward_of_every_task_is_in_0_1(family, conformance_sets):
    """The oracle answer (once, repeated, after reasoning), the hedged answers and the hostile corpus, on every
    task of the conformance set; no hostile completion makes the checker raise."""
    tasks = _flat(_conformance(family, conformance_sets))
    assert check_reward_range(tasks) > 100 * len(tasks)


@pytest.mark.parametrize("family", FAMILIES)
def test_hostile_values_under_the_familys_own_keys_get_a_clean_wrong_verdict(family, tasks):
    for split in get_family(family).splits:
        cell = next(c for c in CELLS if c[0] == family and c[1] == split)
        assert check_own_hostile(tasks[_cell_id(cell)][0]) > 0


@pytest.mark.parametrize("family", FAMILIES)
def test_the_oracle_scores_1_on_every_task_of_the_conformance_set(family, conformance_sets):
    tasks = [task for split in _conformance(family, conformance_sets).values() for task in split]
    assert check_agreement(family, tasks) >= MIN_TASKS


@pytest.mark.parametrize("family", FAMILIES)
def test_every_item_of_a_small_pool_agrees(family):
    """Where a cell's pool is small enough (``rlvr.families.items.EXHAUSTIVE_ITEMS``), every item of it; larger
    or unknown pools are sampled by the conformance set."""
    for split, options, items, draws in check_every_item(family, seed=SEED):
        assert items >= 1 and draws >= items, (split, options)


@pytest.mark.parametrize("family", FAMILIES)
def test_no_one_unit_change_of_the_largest_answers_is_accepted(family, conformance_sets):
    by_split = _conformance(family, conformance_sets)
    assert len(check_largest_answers(family, seed=SEED, by_split=by_split)) >= len(get_family(family).splits)


@pytest.mark.parametrize("family", FAMILIES)
def test_no_hedged_answer_is_accepted(family, conformance_sets):
    sample = first_of_each_cell(family, _conformance(family, conformance_sets))
    assert sum(check_hedges(task) for task in sample) > 0


@pytest.mark.parametrize("family", FAMILIES)
def test_right_answers_in_every_allowed_form_score_1(family, conformance_sets):
    tasks = _flat(_conformance(family, conformance_sets))
    assert check_renderings(family, tasks) >= len(tasks)


@pytest.mark.parametrize("family", FAMILIES)
def test_held_out_splits_share_no_item_with_train(family, conformance_sets):
    check_splits_disjoint(family, _conformance(family, conformance_sets), seed=SEED)


@pytest.mark.parametrize("family", FAMILIES)
def test_the_generator_varies(family):
    assert check_variety(family, seed=SEED) > 0


@pytest.mark.parametrize("family", FAMILIES)
def test_the_prompt_gives_no_answer_away(family, conformance_sets):
    check_prompt_leaks(family, _flat(_conformance(family, conformance_sets)))


@pytest.fixture(scope="module")
def elsewhere(request) -> dict:
    """The tasks another process generates, for every family whose cross-process test this session runs
    (one process for all of them)."""
    wanted = [item.callspec.params["family"] for item in request.session.items
              if getattr(item, "originalname", "") == "test_another_process_generates_the_identical_tasks"
              and hasattr(item, "callspec")]
    return generate_elsewhere(wanted, seed=SEED)


@pytest.mark.parametrize("family", FAMILIES)
def test_another_process_generates_the_identical_tasks(family, elsewhere):
    theirs = elsewhere.get(family) or generate_elsewhere([family], seed=SEED)[family]
    assert compare_elsewhere(family, theirs, seed=SEED, fail=ConformanceError) > 0


@pytest.mark.parametrize("family", FAMILIES)
def test_the_whole_run_stays_within_its_verdict_budget(family, clocks):
    """Last: every verdict of this family's tests together (each one is held to its own budget as it runs)."""
    clock = clocks[family]
    assert clock.total <= TOTAL_SECONDS, f"{family}: {len(clock.times.seconds)} verdicts took {clock.total:.1f} s"
