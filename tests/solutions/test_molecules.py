"""Worked solutions of mol.count / mol.index / mol.gen: verified, derived from the prompt, deterministic."""
from __future__ import annotations

import copy
import json
import re
import subprocess
import sys

import pytest

import rlvr
from rlvr.solutions import SolutionError, worked_solution, write_solution

FAMILIES = ("mol.count", "mol.index", "mol.gen")
LOADS = (1, 2, 3, 5)
SPLITS = ("train", "easy", "hard")


def _tasks(family, load, split, n=6, seed=11):
    return list(rlvr.sample(family, n=n, split=split, seed=seed, load=load))


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("load", LOADS)
@pytest.mark.parametrize("split", SPLITS)
def test_every_trace_verifies(family, load, split):
    for task in _tasks(family, load, split):
        for style in ("brief", "terse", "detailed"):
            text = worked_solution(task, style)
            verdict = rlvr.verify(task, text)
            assert verdict.reward == 1.0 and verdict.correct, (task.id, style, verdict.reason)
            assert text.rstrip().endswith("</answer>")
            assert text.count("<answer>") == 1


def _blind(task):
    """The task with every ground-truth value replaced: only what the prompt shows is left."""
    blind = copy.deepcopy(task)
    if task.family == "mol.gen":
        return blind  # constraints are stated in the prompt; nothing else is in the ground truth
    blind.ground_truth = {k: ("?" if isinstance(v, str) else [-1] if isinstance(v, list) else -1)
                          for k, v in task.ground_truth.items()}
    return blind


@pytest.mark.parametrize("family", ("mol.count", "mol.index"))
def test_traces_never_read_the_answer(family):
    for task in _tasks(family, 3, "hard", n=8, seed=5):
        for style in ("brief", "terse", "detailed"):
            assert write_solution(_blind(task), style) == write_solution(task, style)


@pytest.mark.parametrize("family", ("mol.count", "mol.index"))
def test_traces_name_only_the_prompt_molecule_and_asked_keys(family):
    for task in _tasks(family, 3, "train", n=8, seed=7):
        text = worked_solution(task, "detailed")
        reasoning = text[: text.index("<answer>")]
        smiles = task.meta["smiles"]
        assert smiles in task.user_text and smiles in reasoning
        for key in task.ground_truth:
            assert key in task.user_text and f"{key} = " in reasoning
        named = set(re.findall(r"`([a-z0-9_A-Z]+_(?:count|index))`", task.user_text))
        stated = set(re.findall(r"^([a-z0-9_A-Z]+_(?:count|index)) = ", reasoning, re.M))
        assert stated <= named


def test_index_answers_are_listed_atom_by_atom():
    checked = 0
    for task in _tasks("mol.index", 2, "easy", n=12, seed=3):
        text = worked_solution(task, "terse")
        answer = json.loads(text[text.index("<answer>") + 8: text.index("</answer>")])
        reasoning = text[: text.index("<answer>")]
        for key, indices in answer.items():
            assert f"{key} = {json.dumps(sorted(indices))}" in reasoning
            section = reasoning.split(f"{key}:", 1)[1].split(f"{key} = ", 1)[0]
            for i in indices:  # each index appears in the section, as an atom label or inside a ring/bond list
                assert re.search(rf"(?<![\d.]){i}(?![\d.])", section), (task.id, key, i)
                checked += 1
    assert checked > 0


def test_generation_checks_each_constraint_on_the_proposed_molecule():
    for task in _tasks("mol.gen", 3, "train", n=6, seed=2):
        text = worked_solution(task, "terse")
        candidate = json.loads(text[text.index("<answer>") + 8: text.index("</answer>")])["smiles"]
        assert f"Candidate: {candidate}" in text
        for c in task.ground_truth["constraints"]:
            assert c["key"] in task.user_text
            assert re.search(rf"^{re.escape(c['key'])} = .*: yes\)$", text, re.M)


def test_generation_refuses_a_reference_that_misses_a_constraint():
    task = _tasks("mol.gen", 1, "train", n=1)[0]
    broken = copy.deepcopy(task)
    broken.meta["reference_smiles"] = "C"  # methane meets almost nothing
    broken.ground_truth["constraints"] = [{"key": "carbon_atom_count", "op": ">=", "value": 5}]
    with pytest.raises(SolutionError, match="does not meet"):
        write_solution(broken)


def test_missing_smiles_is_a_clear_error():
    task = _tasks("mol.count", 1, "train", n=1)[0]
    broken = copy.deepcopy(task)
    broken.meta["smiles"] = "CCCCCCCCCCCCCCCCCCCCCCCCC"
    with pytest.raises(SolutionError, match="does not appear in the prompt"):
        write_solution(broken)


@pytest.mark.slow
def test_solutions_are_deterministic_across_processes():
    tasks = [t for fam in FAMILIES for t in _tasks(fam, 2, "train", n=2, seed=9)]
    here = [worked_solution(t, "detailed") for t in tasks]
    code = (
        "import json, sys, rlvr\n"
        "from rlvr.solutions import worked_solution\n"
        "out = [worked_solution(t, 'detailed') for fam in ('mol.count', 'mol.index', 'mol.gen')"
        " for t in rlvr.sample(fam, n=2, split='train', seed=9, load=2)]\n"
        "print(json.dumps(out))\n"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         env={"PYTHONHASHSEED": "123", **{k: v for k, v in __import__("os").environ.items()
                                                         if k != "PYTHONHASHSEED"}})
    assert res.returncode == 0, res.stderr[-2000:]
    assert json.loads(res.stdout.strip().splitlines()[-1]) == here
