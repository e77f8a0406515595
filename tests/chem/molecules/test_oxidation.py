"""Oxidation numbers: RDKit's CalcOxidationNumbers on a Kekulé structure, chemically possible everywhere."""
from __future__ import annotations

import random

import pytest
from rdkit import Chem, RDLogger

from rlvr.chem.molecules.oxidation import OXIDATION_RANGE, extreme_atoms, oxidation_numbers
from rlvr.generators.molecules.pools import default_pool_rows

RDLogger.DisableLog("rdApp.*")


def _ox(smiles: str) -> list[tuple[str, int]]:
    mol = Chem.MolFromSmiles(smiles)
    return [(a.GetSymbol(), n) for a, n in zip(mol.GetAtoms(), oxidation_numbers(mol))]


@pytest.mark.parametrize("smiles, element, value", [
    ("c1ccoc1", "O", -2),                      # furan (1.5-order bonds gave -3)
    ("c1cc[nH]c1", "N", -3),                   # pyrrole (gave -4)
    ("c1ccsc1", "S", -2),                      # thiophene (gave -3)
    ("c1ccncc1", "N", -3),                     # pyridine
    ("O=c1ccc2ccccc2o1", "O", -2),             # coumarin: both oxygens
    ("CS(C)(=O)=O", "S", 2),
    ("OS(=O)(=O)O", "S", 6),
    ("C[N+](=O)[O-]", "N", 3),
    ("OC=O", "C", 2),
    ("C", "C", -4),
    ("O=C=O", "C", 4),
])
def test_textbook_values(smiles, element, value):
    values = {n for sym, n in _ox(smiles) if sym == element}
    assert values == {value}


def test_bridgehead_nitrogen_of_a_fused_heteroaromatic():
    # imidazo[2,1-b]thiazole ester: the bridgehead N was -4.5 with aromatic bonds as 1.5
    values = dict(enumerate(n for _, n in _ox("CCOC(=O)c1cn2cc(C)sc2n1")))
    assert values[7] == -3 and values[13] == -3 and values[11] == -2


def test_extreme_atoms_and_molecule_untouched():
    mol = Chem.MolFromSmiles("OCC(=O)O")
    numbers = oxidation_numbers(mol)
    assert mol.GetBondWithIdx(0).GetBondType() == Chem.BondType.SINGLE and not mol.GetAtomWithIdx(0).HasProp("OxidationNumber")
    assert extreme_atoms(mol, numbers, "C", "max") == [2]
    assert extreme_atoms(mol, numbers, "C", "min") == [1]
    assert extreme_atoms(mol, numbers, "N", "max") == []


def test_every_value_in_the_embedded_pool_is_chemically_possible():
    """Property over the embedded pool (a fixed sample of 3,000 rows; the whole pool passes too).

    Atoms with unpaired electrons are left out: the pool writes two diaryliodonium salts as a
    neutral divalent iodine radical ``[I]``, which describes no real species.
    """
    rows = [r for r in default_pool_rows() if isinstance(r, str)]
    sample = random.Random(0).sample(rows, 3000)
    checked = 0
    for smiles in sample:
        mol = Chem.MolFromSmiles(smiles)
        if mol is None:
            continue
        for atom, n in zip(mol.GetAtoms(), oxidation_numbers(mol)):
            rng = OXIDATION_RANGE.get(atom.GetSymbol())
            if rng is None or atom.GetNumRadicalElectrons():
                continue
            assert rng[0] <= n <= rng[1], (smiles, atom.GetIdx(), atom.GetSymbol(), n)
            checked += 1
    assert checked > 50_000


def test_symmetry_equivalent_atoms_share_the_average():
    from fractions import Fraction

    from rlvr.chem.molecules.oxidation import symmetric_oxidation_numbers

    mol = Chem.MolFromSmiles("c1ccncc1")
    numbers = symmetric_oxidation_numbers(mol)
    assert numbers[2] == numbers[4] == Fraction(1, 2) and numbers[3] == -3
    assert sorted(oxidation_numbers(mol)[i] for i in (2, 4)) == [0, 1]
