"""The SMILES presentation axis: canonical/randomised x aromatic/kekulised, ring-closure renumbering."""
from __future__ import annotations

import random

import pytest
from rdkit import Chem

from rlvr.chem.molecules.features import feature_keys, molecule_features
from rlvr.generators.molecules.presentation import (
    Presentation,
    present,
    renumber_ring_closures,
    write_smiles,
)

MOLECULES = [
    "CC(=O)Oc1ccccc1C(=O)O",  # aspirin
    "Cn1c(=O)c2c(ncn2C)n(C)c1=O",  # caffeine
    "C[C@H](N)C(=O)O",
    "c1ccc2cc3ccccc3cc2c1",
    "O=C1CC[C@@H]2[C@H]1CC/C=C/2",
    "CCCCCCCC",
]


def _canon(smiles: str) -> str:
    return Chem.MolToSmiles(Chem.MolFromSmiles(smiles))


@pytest.mark.parametrize("smiles", MOLECULES)
def test_every_presentation_is_the_same_molecule(smiles):
    canonical = _canon(smiles)
    mol = Chem.MolFromSmiles(canonical)
    for canon in (True, False):
        for kek in (True, False):
            text = write_smiles(mol, canonical=canon, kekulized=kek, rng=random.Random(3))
            assert _canon(text) == canonical
            parsed = Chem.MolFromSmiles(text, sanitize=False)
            assert any(a.GetIsAromatic() for a in parsed.GetAtoms()) == (not kek and "c" in canonical)
    assert write_smiles(mol, canonical=True, kekulized=False) == canonical


def test_kekulized_has_no_aromatic_atoms():
    mol = Chem.MolFromSmiles("Cn1c(=O)c2c(ncn2C)n(C)c1=O")
    text = write_smiles(mol, canonical=False, kekulized=True, rng=random.Random(0))
    parsed = Chem.MolFromSmiles(text, sanitize=False)
    assert not any(a.GetIsAromatic() for a in parsed.GetAtoms())


def test_randomized_is_deterministic_per_rng_and_varies():
    mol = Chem.MolFromSmiles("CC(=O)Oc1ccccc1C(=O)O")
    a = write_smiles(mol, canonical=False, kekulized=False, rng=random.Random(7))
    b = write_smiles(mol, canonical=False, kekulized=False, rng=random.Random(7))
    assert a == b
    variants = {write_smiles(mol, canonical=False, kekulized=False, rng=random.Random(s)) for s in range(20)}
    assert len(variants) > 5
    with pytest.raises(ValueError):
        write_smiles(mol, canonical=False, kekulized=False)


def test_present_probabilities():
    for p_r, p_k in ((0.0, 0.0), (1.0, 0.0), (0.0, 1.0), (1.0, 1.0)):
        text, pres = present(_canon("CC(=O)Oc1ccccc1C(=O)O"), random.Random(1), p_randomized=p_r, p_kekulized=p_k)
        assert pres.canonical == (p_r == 0.0) and pres.kekulized == (p_k == 1.0)
        assert _canon(text) == _canon("CC(=O)Oc1ccccc1C(=O)O")
    names = {present(_canon(MOLECULES[1]), random.Random(s))[1].name for s in range(40)}
    assert names == {"canonical_aromatic", "canonical_kekulized", "randomized_aromatic", "randomized_kekulized"}
    assert Presentation(False, True, True).name == "randomized_kekulized_renumbered"


@pytest.mark.parametrize("smiles", ["c1ccc2cc3ccccc3cc2c1", "C1CC1C1CC1", "O=C1CC[C@@H]2[C@H]1CC/C=C/2",
                                    "C12C3C4C1C5C2C3C45"])
def test_renumbering_keeps_atoms_and_molecule(smiles):
    for seed in range(10):
        out = renumber_ring_closures(smiles, random.Random(seed))
        assert _canon(out) == _canon(smiles)
        strip = lambda s: [a.GetSymbol() for a in Chem.MolFromSmiles(s).GetAtoms()]  # noqa: E731
        assert strip(out) == strip(smiles)
    outs = {renumber_ring_closures(smiles, random.Random(seed)) for seed in range(10)}
    assert len(outs) > 1 and any("%" in o for o in outs)


def test_present_with_renumbering_flag():
    text, pres = present(_canon("c1ccc2ccccc2c1"), random.Random(0), p_randomized=0, p_kekulized=0, p_ring_renumber=1)
    assert pres.ring_renumbered and text != _canon("c1ccc2ccccc2c1") and _canon(text) == _canon("c1ccc2ccccc2c1")
    text, pres = present("CCCCCC", random.Random(0), p_ring_renumber=1)  # nothing to renumber
    assert not pres.ring_renumbered
    assert renumber_ring_closures("CCCC", random.Random(0)) == "CCCC"


@pytest.mark.parametrize("smiles", ["CC(=O)Oc1ccccc1C(=O)O", "Cn1c(=O)c2c(ncn2C)n(C)c1=O", "O=C(C=Cc1ccccn1)c1ccccc1"])
def test_ground_truth_is_invariant_across_presentations(smiles):
    """Counts are identical in every presentation; index answers map onto each other atom by atom."""
    canonical = _canon(smiles)
    ref_mol = Chem.MolFromSmiles(canonical)
    count_keys = [k for k in feature_keys("count") if not k.endswith(("_products", "_success"))]
    index_keys = feature_keys("index")
    ref_counts = molecule_features(canonical, count_keys)
    ref_index = molecule_features(canonical, index_keys)
    for seed in range(6):
        text, _ = present(canonical, random.Random(seed), p_randomized=0.5, p_kekulized=0.5, p_ring_renumber=0.5)
        assert molecule_features(text, count_keys) == ref_counts
        shown = Chem.MolFromSmiles(text)
        match = shown.GetSubstructMatch(ref_mol)  # canonical atom i -> atom match[i] of the shown SMILES
        assert len(match) == ref_mol.GetNumAtoms()
        values = molecule_features(text, index_keys)
        for key in ("hetero_atom_index", "aromatic_ring_index", "hba_index", "carbon_atom_index", "ring_index"):
            assert sorted(match[i] for i in ref_index[key]) == values[key]
