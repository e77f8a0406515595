"""Count values computed key by key equal the feature solvers' values, whatever the SMILES presentation."""
from __future__ import annotations

import random

import pytest
from rdkit import Chem

from rlvr.chem.molecules import counts
from rlvr.chem.molecules.features import molecule_features
from rlvr.chem.molecules.specs import KEY_TO_SPEC, LAZY_KEYS
from rlvr.chem.smiles import parse_smiles, parse_unmarked_smiles
from rlvr.generators.molecules.splits import load_split_pool

#: molecules that exercise stereo, charges, isotopes, bridges, spiro centres, long chains and odd aromatics
ODD = [
    "C[C@H](N)C(=O)O", "C[C@@H]1CC[C@H](C)CC1", "F/C=C/F", "F/C=C\\Cl", "CC=CC", "C1CC2CCC1C2", "C1CCC2(CC1)CCC2",
    "C12C3C4C1C5C2C3C45", "CCCCCCCCCCCCCCCCCCCC", "C[N+](C)(C)CC(=O)[O-]", "[NH4+].CC(=O)[O-]", "c1ccc2[nH]ccc2c1",
    "O=[N+]([O-])c1ccc2[nH]ccc2c1", "Cc1ccccn1", "c1ccoc1", "c1ccsc1", "O=c1ccc2ccccc2o1", "O=S(=O)(O)c1ccccc1",
    "CP(=O)(O)O", "C[Si](C)(C)OC[C@H](O)CO", "N#CC(C#N)=C(C#N)C#N", "[13CH3]C(=O)OP(=O)(O)O", "C[S+]([O-])C",
    "OC1=CC=CC=C1", "C1=CC=CC=C1C(=O)Cl", "CC(C)(C)c1ccc(O)cc1", "C=CC(=O)OC", "OCC(O)CO", "CC#N", "[Na+].[Cl-]",
    "C1CC1C1CC1", "c1ccc2c(c1)ccc1ccccc12", "C1CC2(C1)CC1(C2)CC1",
]


def presentations(smiles: str, rng: random.Random) -> list[str]:
    """The SMILES as given, a random atom order, and a kekulised one."""
    mol = Chem.MolFromSmiles(smiles)
    out = [smiles]
    for kekule in (False, True):
        order = list(range(mol.GetNumAtoms()))
        rng.shuffle(order)
        shuffled = Chem.RenumberAtoms(mol, order)
        if kekule:
            Chem.Kekulize(shuffled, clearAromaticFlags=True)
        out.append(Chem.MolToSmiles(shuffled, canonical=False, kekuleSmiles=kekule))
    return out


def count_keys() -> list[str]:
    keys = sorted({s.count_key for s in KEY_TO_SPEC.values() if s.count_key} | {"murcko_scaffold_value"})
    return [k for k in keys if counts.supported(k)]


def test_most_count_keys_are_computed_here():
    supported = count_keys()
    assert len(supported) > 200
    assert not counts.supported("brics_decomposition_count") and not counts.supported("ring_index")
    assert all(k not in LAZY_KEYS for k in supported)


@pytest.mark.slow
def test_counts_equal_the_solvers_on_pool_molecules_in_every_presentation():
    rng = random.Random(7)
    keys = count_keys()
    pool = load_split_pool()
    molecules = list(pool.smiles[::50]) + ODD
    checked = 0
    for smiles in molecules:
        for text in presentations(smiles, rng):
            mol = parse_smiles(text)
            if counts.has_explicit_hydrogens(mol):
                continue
            truth = molecule_features(text, keys)
            fast = counts.count_values(mol, keys, smiles=text)
            assert fast == counts.count_values(mol, keys)  # with or without the stereo shortcut
            assert fast == counts.count_values(parse_unmarked_smiles(text), keys, smiles=text)  # the checker's parse
            assert set(fast) <= set(keys)
            missing = set(keys) - set(fast)
            assert missing <= {"longest_carbon_chain_count"}, (text, missing)
            wrong = {k: (fast[k], truth[k]) for k in fast if fast[k] != truth[k]}
            assert not wrong, (text, wrong)
            checked += 1
    assert checked > 300


def test_count_values_leave_the_molecule_unchanged():
    mol = parse_smiles("C[C@H](N)C(=O)O")
    before = Chem.MolToSmiles(mol)
    counts.count_values(mol, count_keys())
    assert Chem.MolToSmiles(mol) == before


@pytest.mark.parametrize("text", ["[2H]C", "C[C@H](Cl)[2H]", "[2H]C([2H])([2H])Br", "[H][H]", "[3H]O[3H]",
                                  "[13CH3][2H]", "[2H]c1ccccc1Cl"])
def test_composition_counts_of_molecules_with_hydrogen_atoms_equal_the_solvers(text):
    mol = parse_smiles(text)
    assert counts.has_explicit_hydrogens(mol)
    keys = sorted(counts.COMPOSITION_KEYS)
    fast = counts.count_values(mol, keys, smiles=text)
    assert set(fast) == set(keys)  # computed here even with hydrogen atoms in the graph
    assert fast == molecule_features(text, keys)
