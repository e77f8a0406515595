"""Generation verdicts on atom-count constraints skip the feature solvers and give the same values."""
from __future__ import annotations

import rlvr
from rlvr.checkers.molecules import check
from rlvr.chem.molecules.counts import COMPOSITION_KEYS, count_values
from rlvr.chem.molecules.features import molecule_features_for
from rlvr.chem.smiles import parse_smiles
from rlvr.generators.molecules.splits import load_split_pool
from rlvr.task import Task

ODD = ["[2H]C([2H])([2H])c1ccccc1", "[H]OC(=O)c1ccc(Cl)cc1Br", "C[N+](C)(C)CC(=O)[O-]", "[NH4+].CC(=O)[O-]",
       "FC(F)(F)I", "O=[N+]([O-])c1ccc2[nH]ccc2c1", "C[Si](C)(C)OC[C@H](O)CO", "[13CH3]C(=O)OP(=O)(O)O"]


def test_composition_values_equal_the_solvers():
    keys = tuple(sorted(COMPOSITION_KEYS))
    pool = load_split_pool()
    for smiles in list(pool.smiles[::150]) + ODD:
        assert count_values(parse_smiles(smiles), keys) == molecule_features_for(smiles, keys), smiles


def test_an_atom_count_verdict_matches_the_full_one():
    constraints = [{"key": "carbon_atom_count", "op": ">=", "value": 6},
                   {"key": "molecular_formula_count", "op": "==", "value": "C7H5ClO2"}]
    task = Task(id="t", family="mol.gen", prompt=[], ground_truth={"constraints": constraints},
                meta={"task_type": "gen"})
    good = check(task, '<answer>{"smiles": "OC(=O)c1ccc(Cl)cc1"}</answer>')
    assert good.correct and [c["actual"] for c in good.metrics["constraints"]] == [7, "C7H5ClO2"]
    bad = check(task, '<answer>{"smiles": "OC(=O)c1ccccc1"}</answer>')
    assert not bad.correct and [c["satisfied"] for c in bad.metrics["constraints"]] == [True, False]
    assert rlvr.verify(task, '<answer>{"smiles": "C1CC1.CC"}</answer>').reward == 0.0
