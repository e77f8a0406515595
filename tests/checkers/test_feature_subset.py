"""Features computed for some keys only (what a generation verdict needs) equal the full computation."""
from __future__ import annotations

import random

import pytest

from rlvr.chem.molecules.features import molecule_features, molecule_features_for
from rlvr.chem.molecules.solvers import solver_group
from rlvr.chem.molecules.specs import feature_keys

MOLECULES = [
    "CC(=O)Oc1ccccc1C(=O)O",
    "C[C@H](N)C(=O)O",
    "C/C=C/C(Cl)Br",
    "O=[N+]([O-])c1ccc(cc1)S(=O)(=O)NCCO",
    "C1CC2CCC1C2",
    "CCCCCCCCCC(C)(C)CCBr",
    "[H]OC([H])([H])C1=CC=CC=C1",
    "c1ccc2c(c1)[nH]c1ccccc12",
    "OC1C2CC3CC1CC(C2)C3I",
    "C#CCN(C)C(=O)c1ccncc1F",
]


@pytest.mark.parametrize("smiles", MOLECULES)
def test_each_solver_group_alone_gives_the_full_values(smiles: str) -> None:
    full = molecule_features(smiles)
    groups: dict[str, list[str]] = {}
    for key in full:
        groups.setdefault(solver_group(key), []).append(key)
    assert len(groups) > 5
    for group, keys in groups.items():
        assert molecule_features_for(smiles, keys) == {k: full[k] for k in keys}, group


def test_random_key_subsets_match() -> None:
    rng = random.Random(3)
    keys = list(feature_keys())
    for smiles in MOLECULES:
        full = molecule_features(smiles)
        for _ in range(5):
            chosen = rng.sample(keys, 4)
            assert molecule_features_for(smiles, chosen) == {k: full[k] for k in chosen}


def test_unknown_key_is_a_key_error() -> None:
    with pytest.raises(KeyError):
        molecule_features_for("CCO", ["no_such_feature_count"])
