"""Mistakes planted one at a time in fresh families defined here (plugins, checked with ``check_family`` as the
docs say), each of a class the documented run fails with a message that names it; the families without the
mistake pass every check:

- a held-out split that shares an item with train (a training compound written another way);
- a generator that varies too little (it draws once per block of 100 indices);
- a right answer in a form the prompt allows scored 0 (spaces around the count; a formula in another atom order);
- a prompt that gives its answer away (its format example is the answer; a file label that is the formula);
- a checker that changes state (it writes into the task; its reward decays each time an answer is repeated);
- a reward above 1 only on tasks that are not the first of their split (a bonus for large counts);
- a checker slow only on answers other than the oracle's (a count written as a word), and a run whose verdicts
  together exceed the budget;
- a disagreement confined to one variant of one item of a small pool, which no conformance draw reaches.

As a built-in family, the stateful checker fails every test of ``pytest -k <family>`` with the one message that
says so; a family that declares no renderings is told so once, and passes. The count family's config has no fields (a family with no options of its own). The specs sit at the top level
of this module (and of :mod:`planted_families`), so the other process of the cross-process check can rebuild
them.
"""
from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

import rlvr
from rlvr.families import timing
from rlvr.families.conformance import ConformanceError, check_family, check_verdict_time, first_of_each_cell, grid
from rlvr.families.items import check_every_item
from rlvr.families.promises import ConformanceWarning, check_renderings
from rlvr.families.taskset import conformance_tasks, tasks_by_split
from rlvr.registry import FamilySpec, register_family, unregister_family

FIXTURES = Path(__file__).resolve().parent / "fixtures"
GRID = Path(__file__).resolve().parent / "test_registry_grid.py"
sys.path.insert(0, str(FIXTURES))
import planted_families as planted  # noqa: E402
from package_copy import package_with_family  # noqa: E402


@pytest.fixture
def family(request):
    spec: FamilySpec = request.param
    register_family(spec)
    yield spec.name
    unregister_family(spec.name)


def grid_tasks(name: str) -> list:
    """The fixed tasks of the grid checks (indices 0 and 1 of every split and option set)."""
    return [rlvr.generate(name, split, 11, i, **options) for split, options in grid(name) for i in (0, 1)]


@pytest.mark.parametrize("family", [planted.COUNT, planted.FORMULA], indirect=True, ids=lambda s: s.name)
def test_the_families_without_a_mistake_pass_every_check(family):
    assert check_family(family)


@pytest.mark.parametrize("family", [planted.LEAK], indirect=True, ids=lambda s: s.name)
def test_a_held_out_split_sharing_an_item_with_train_fails(family):
    drawn = [t for t in conformance_tasks(family) if t.meta["formula"] == planted.LEAKED]
    assert drawn and all(t.meta["split"] == "test" for t in drawn)  # the prompts differ: C2H6O in train
    with pytest.raises(ConformanceError, match=r"a held-out split shares an item with train: the formula "
                                               r"'C2H6O' of split 'test' is also drawn by 'train'"):
        check_family(family, cross_process=False)


@pytest.mark.parametrize("family", [planted.BLOCKS], indirect=True, ids=lambda s: s.name)
def test_a_generator_that_ignores_most_of_its_index_fails(family):
    assert len({t.id for t in conformance_tasks(family)}) > 100  # every task has its own id
    with pytest.raises(ConformanceError, match=r"the generator varies too little: 1 distinct formula over indices "
                                               r"0 to 39 of split 'train'"):
        check_family(family, cross_process=False)


@pytest.mark.parametrize("family, form", [
    (planted.RAW_TEXT, r"'<answer> \d+ </answer>' \(the oracle's answer '<answer>\d+</answer>' with spaces around it\)"),
    (planted.STRING_FORMULA, r"'<answer>[A-Z][A-Za-z0-9]*</answer>' \(the oracle's answer '<answer>C\d*H"),
], indirect=["family"], ids=["count-with-spaces", "formula-in-another-atom-order"])
def test_a_right_answer_in_an_allowed_form_scored_0_fails(family, form):
    with pytest.raises(ConformanceError, match=r"a right answer in another form scores reward 0.0 .*" + form):
        check_family(family, cross_process=False)


@pytest.mark.parametrize("family, what", [
    (planted.EXAMPLE_IS_ANSWER, r"copying the (first|last) number of the question as the answer is right on 144 of 144"),
    (planted.LABELLED, r"the right answer as written is in the prompt of 144 of 144"),
], indirect=["family"], ids=["example-is-the-answer", "label-is-the-formula"])
def test_a_prompt_that_gives_its_answer_away_fails(family, what):
    with pytest.raises(ConformanceError, match=r"the prompt gives the answer away: " + what + r" conformance tasks "
                                               r"\(100 %\), more than .* plus 10 points"):
        check_family(family, cross_process=False)


@pytest.mark.parametrize("family, what", [
    (planted.WRITES_TASK, r"modified the task \(meta.checked: missing -> 1\)"),
    (planted.DECAYS, r"scored reward 1.0 \(ok\), then reward 0.5 \(ok\) when verified again"),
], indirect=["family"], ids=["writes-into-the-task", "reward-decays-on-repeats"])
def test_a_checker_that_changes_state_fails_with_that_message(family, what):
    with pytest.raises(ConformanceError, match=r"the checker changed state: .*" + what) as raised:
        check_family(family, cross_process=False)
    assert "\n" not in str(raised.value)


@pytest.mark.parametrize("family", [planted.BONUS], indirect=True, ids=lambda s: s.name)
def test_a_reward_above_1_on_a_task_that_is_not_first_fails(family):
    first = [tasks[0] for tasks in tasks_by_split(family).values()] + grid_tasks(family)
    assert all(t.ground_truth["count"] <= planted.BONUS_FROM for t in first)  # the first tasks never show it
    with pytest.raises(ConformanceError, match=r"reward 1\.\d+ outside \[0, 1\] for '<answer>\d+</answer>' "
                                               r"\(the oracle answer\)"):
        check_family(family, cross_process=False)


@pytest.mark.parametrize("family", [planted.SLOW_WORDS], indirect=True, ids=lambda s: s.name)
def test_a_checker_slow_only_on_answers_other_than_the_oracles_fails(family):
    by_split = tasks_by_split(family)
    tasks = [t for split in by_split.values() for t in split]
    check_verdict_time(tasks, first_of_each_cell(family, by_split))  # oracle answers, perturbations, hedges: fast
    with pytest.raises(ConformanceError, match=r"a verdict took 0\.\d\d s of wall-clock time, twice .* on "
                                               r"'<answer>[a-z]+</answer>': the checker is slow on this input"):
        check_family(family, cross_process=False)


@pytest.mark.parametrize("family", [planted.SLOW_EVERYWHERE], indirect=True, ids=lambda s: s.name)
def test_a_run_whose_verdicts_exceed_the_budget_together_fails(family, monkeypatch):
    monkeypatch.setattr(timing, "TOTAL_SECONDS", 1.5)  # the stated budget, lowered so the test stays short
    start = time.perf_counter()
    with pytest.raises(ConformanceError, match=r"the run's verdicts are too slow: \d+ verdicts took 1\.\d s of "
                                               r"wall-clock time in all \(budget 1.5 s"):
        check_family(family, cross_process=False)
    assert time.perf_counter() - start < 30


@pytest.mark.parametrize("family", [planted.ONE_VARIANT], indirect=True, ids=lambda s: s.name)
def test_a_disagreement_on_one_variant_of_a_small_pool_fails(family):
    drawn = {(t.meta["formula"], t.meta["element"]) for t in conformance_tasks(family) if t.meta["split"] == "test"}
    variants = {(f, el) for f in planted.COUNT_POOLS["test"] for el in planted.elements(f)}
    missed = sorted(variants - drawn)
    assert missed  # the conformance set misses some variants of the test pool
    planted.MISREAD[family] = missed[0]
    try:
        with pytest.raises(ConformanceError, match=rf"the generator and the checker disagree on the formula "
                                                   rf"'{missed[0][0]}' of split 'test', whose pool of 10 is checked "
                                                   r"item by item"):
            check_every_item(family, seed=11)
        with pytest.raises(ConformanceError, match=r"disagree on the formula"):
            check_family(family, cross_process=False)
    finally:
        planted.MISREAD.pop(family, None)


def test_the_documented_run_of_a_stateful_built_in_family_names_the_class_in_every_finding(tmp_path):
    """As a built-in family (a module and a provider line), ``pytest -k <family>``: every test that fails says
    the checker changed state (no test reports a regeneration, an agreement or a bare KeyError instead)."""
    root = package_with_family(tmp_path, "planted_decays", "from planted_families import DECAYS\n\nFAMILIES = [DECAYS]\n",
                               "planted.decays")
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--tb=line", str(GRID),
                           "-k", "planted.decays"], cwd=root, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join([str(root), str(FIXTURES)]),
                               "COLUMNS": "1000"})
    output = proc.stdout + proc.stderr
    findings = [line for line in output.splitlines() if "Error" in line and "planted.decays" in line]
    assert proc.returncode not in (0, 5) and len(findings) >= 10, output[-3000:]
    assert all("the checker changed state" in line for line in findings), output[-3000:]


def test_a_family_that_declares_no_renderings_is_told_once_and_passes():
    spec = dataclasses.replace(planted.count_family("planted.plain"), renderings=None)
    register_family(spec)
    try:
        tasks = conformance_tasks(spec.name)
        with pytest.warns(ConformanceWarning, match=r"planted\.plain: declares no renderings") as record:
            assert check_renderings(spec.name, tasks) == 3 * len(tasks)  # the oracle's own form, three ways
            check_renderings(spec.name, tasks)
        assert sum(issubclass(w.category, ConformanceWarning) for w in record) == 1
    finally:
        unregister_family(spec.name)
