"""Brief molecule solutions: one scan of the SMILES as written, shown only when it gives the solver's value."""
from __future__ import annotations

import pytest

import rlvr
from rlvr.chem.molecules.features import molecule_features
from rlvr.solutions import worked_solution
from rlvr.solutions.molecule_brief import BRIEF_KEYS, brief_lines


def _lines(key: str, smiles: str) -> list[str] | None:
    return brief_lines(key, smiles, molecule_features(smiles, [key]))


@pytest.mark.parametrize(("key", "smiles", "first", "value"), [
    ("halogen_atom_count", "FC(F)(F)c1ccc(Cl)cc1", "Halogen atoms as written: F, F, F, Cl; 4 in all.", 4),
    ("halogen_atom_count", "CCO", "No F, Cl, Br or I written: 0 halogen atoms.", 0),
    ("hetero_atom_count", "CC(=O)Oc1ccccc1C(=O)O", "Heavy atoms other than carbon as written: O, O, O, O; 4 in all.", 4),
    ("hetero_atom_count", "[O-][N+](=O)c1ccccc1", "Heavy atoms other than carbon as written: [O-], [N+], O; 3 in all.", 3),
    ("ring_count", "c1ccc2ccccc2c1", "Ring-closure digits as written: 1 2 2 1; 4 digits, 2 ring bonds.", 2),
    # the 3 inside [NH3+] is a hydrogen count, not a ring-closure digit
    ("ring_count", "[NH3+]C1CC1", "Ring-closure digits as written: 1 1; 2 digits, 1 ring bond.", 1),
    ("ring_count", "CCCC", "No ring-closure digits: 0 rings.", 0),
    ("functional_group_carbonyl_count", "CC(=O)Oc1ccccc1C(=O)O", "Double-bonded O written on: C, C; 2 on carbon.", 2),
    # sulfonyl and nitro oxygens are double-bonded but not on a carbon
    ("functional_group_carbonyl_count", "CS(=O)(=O)C", "Double-bonded O written on: S, S; 0 on carbon.", 0),
    ("functional_group_carbonyl_count", "[O-][N+](=O)c1ccccc1", "Double-bonded O written on: [N+]; 0 on carbon.", 0),
])
def test_scan_lists_what_the_smiles_shows(key, smiles, first, value):
    assert _lines(key, smiles) == [first, f"{key} = {value}"]


def test_scan_is_withheld_when_it_disagrees_with_the_solver():
    # cubane: 5 ring-closure bonds, but RDKit's symmetrised ring set has 6 rings
    assert molecule_features("C12C3C4C1C5C2C3C45", ["ring_count"])["ring_count"] == 6
    assert _lines("ring_count", "C12C3C4C1C5C2C3C45") is None
    assert brief_lines("ring_count", "C1CC1", {"ring_count": 7}) is None


def test_keys_without_a_scan_get_none():
    assert "hba_count" not in BRIEF_KEYS
    assert _lines("hba_count", "CCO") is None
    assert brief_lines("ring_count", "C1CC1", {}) is None


@pytest.mark.parametrize("split", ("train", "easy", "hard"))
def test_brief_solutions_verify_and_skip_the_atom_walk(split):
    tasks = list(rlvr.sample("mol.count", n=24, split=split, seed=3, load=1, keys=list(BRIEF_KEYS)))
    scanned = 0
    for task in tasks:
        text = worked_solution(task, "brief")
        verdict = rlvr.verify(task, text)
        assert verdict.correct, (task.id, verdict.reason, text)
        if "(0-based)" not in text and "indexed 0" not in text:
            scanned += 1
    assert scanned >= 20  # a scan that disagrees with the solver falls back to the indexed walk


def test_a_key_without_a_scan_falls_back_to_the_indexed_walk():
    tasks = list(rlvr.sample("mol.count", n=4, split="train", seed=3, load=2, keys=["ring_count", "hba_count"]))
    for task in tasks:
        text = worked_solution(task, "brief")
        assert rlvr.verify(task, text).correct
        assert "indexed 0" in text
