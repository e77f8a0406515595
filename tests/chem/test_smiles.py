"""The quick parse of stereo- and hydrogen-free SMILES is RDKit's full parse: same molecules, same failures."""
from __future__ import annotations

import pytest
from rdkit import Chem

from rlvr.chem.rdkit_data import molecule_smiles
from rlvr.chem.smiles import SmilesError, parse_smiles, parse_unmarked_smiles

INVALID = ["c1cccc1", "C(C)(C)(C)(C)C", "c1ccnc1", "C1CC", "CC(", "Q", "", "   ", "C" * 1_001, "CCÖ", "\ud800",
           "[Na+].", "*", "C1=CC=CC=C1C(=O)(O)O", "[NH5]", "n1cccc1"]
MARKED = ["C[C@H](N)C(=O)O", "F/C=C/F", "[2H]C", "[H]OC", "C[C@@H]1CC[C@H](C)CC1", "[Hg+2]",
          "[#1]C", "C[#1]", "[2#1]C", "[#1][#1]"]  # hydrogen by atomic number


def _outcome(parse, text):
    try:
        return Chem.MolToSmiles(parse(text))
    except SmilesError:
        return "error"


@pytest.mark.parametrize("text", INVALID + MARKED + ["CCO", " CCO ", "c1ccccc1", "[Na+].[Cl-]", "C1CC2(C1)CC1(C2)CC1"])
def test_quick_parse_gives_the_full_parse_or_its_error(text):
    assert _outcome(parse_unmarked_smiles, text) == _outcome(parse_smiles, text)


def test_quick_parse_equals_the_full_parse_on_pool_molecules():
    pool = molecule_smiles()[::15]
    assert len(pool) > 900
    for text in pool:
        quick = _outcome(parse_unmarked_smiles, text)
        assert quick == _outcome(parse_smiles, text), text
        if quick != "error":
            a, b = parse_unmarked_smiles(text), parse_smiles(text)
            assert [at.GetIsAromatic() for at in a.GetAtoms()] == [at.GetIsAromatic() for at in b.GetAtoms()]
            assert [at.GetHybridization() for at in a.GetAtoms()] == [at.GetHybridization() for at in b.GetAtoms()]
            assert a.GetRingInfo().AtomRings() == b.GetRingInfo().AtomRings()


def test_quick_parse_gives_a_new_molecule_and_non_strings_fail_cleanly():
    first = parse_unmarked_smiles("CCN")
    assert first is not parse_unmarked_smiles("CCN")  # not kept: the caller owns it
    assert Chem.MolToSmiles(first) == "CCN"
    assert parse_unmarked_smiles("C[C@H](N)O") is parse_smiles("C[C@H](N)O")  # marked text: the shared full parse
    with pytest.raises(SmilesError):
        parse_unmarked_smiles(None)  # type: ignore[arg-type]
