"""rlvr's SMILES parse is RDKit's ``MolFromSmiles``: the same molecules and the same failures, with the
quicker sanitisation for text that writes no stereo and no hydrogen; kept or not, as documented."""
from __future__ import annotations

import pytest
from rdkit import Chem

from rlvr.chem.rdkit_data import molecule_smiles
from rlvr.chem.smiles import MAX_SMILES_CHARS, SmilesError, parse_smiles, parse_unmarked_smiles, ring_closure_spans

INVALID = ["c1cccc1", "C(C)(C)(C)(C)C", "c1ccnc1", "C1CC", "CC(", "Q", "", "   ", "C" * 1_001, "CCÖ", "\ud800",
           "[Na+].", "*", "C1=CC=CC=C1C(=O)(O)O", "[NH5]", "n1cccc1", "."]
MARKED = ["C[C@H](N)C(=O)O", "F/C=C/F", "[2H]C", "[H]OC", "C[C@@H]1CC[C@H](C)CC1", "[Hg+2]",
          "[#1]C", "C[#1]", "[2#1]C", "[#1][#1]"]  # hydrogen by atomic number
VALID = ["CCO", " CCO ", "c1ccccc1", "[Na+].[Cl-]", "C1CC2(C1)CC1(C2)CC1", "O=[N+]([O-])c1ccccc1", "CN(=O)=O"]


def rdkit_parse(text):
    """RDKit's own parse with rlvr's input checks: the reference."""
    if not isinstance(text, str) or not text.strip() or len(text.strip()) > MAX_SMILES_CHARS:
        return None
    text = text.strip()
    return Chem.MolFromSmiles(text) if text.isascii() else None


def _outcome(parse, text):
    try:
        mol = parse(text)
    except SmilesError:
        return "error"
    return "error" if mol is None or mol.GetNumAtoms() == 0 else Chem.MolToSmiles(mol)


def _same_molecule(a, b):
    assert [at.GetIsAromatic() for at in a.GetAtoms()] == [at.GetIsAromatic() for at in b.GetAtoms()]
    assert [at.GetHybridization() for at in a.GetAtoms()] == [at.GetHybridization() for at in b.GetAtoms()]
    assert [at.GetTotalNumHs() for at in a.GetAtoms()] == [at.GetTotalNumHs() for at in b.GetAtoms()]
    assert [at.GetNumRadicalElectrons() for at in a.GetAtoms()] == [at.GetNumRadicalElectrons() for at in b.GetAtoms()]
    assert a.GetRingInfo().AtomRings() == b.GetRingInfo().AtomRings()


@pytest.mark.parametrize("text", INVALID + MARKED + VALID)
def test_the_parse_gives_rdkits_molecule_or_fails_where_rdkit_does(text):
    reference = _outcome(rdkit_parse, text)
    assert _outcome(parse_unmarked_smiles, text) == reference
    assert _outcome(parse_smiles, text) == reference


def test_the_parse_equals_rdkits_on_pool_molecules():
    pool = molecule_smiles()[::15]
    assert len(pool) > 900
    for text in pool:
        reference = _outcome(rdkit_parse, text)
        assert _outcome(parse_unmarked_smiles, text) == reference == _outcome(parse_smiles, text), text
        if reference != "error":
            _same_molecule(parse_unmarked_smiles(text), rdkit_parse(text))
            _same_molecule(parse_smiles(text), rdkit_parse(text))


def test_an_unmarked_parse_is_new_and_a_marked_one_shared_and_non_strings_fail_cleanly():
    first = parse_unmarked_smiles("CCN")
    assert first is not parse_unmarked_smiles("CCN")  # not kept: the caller owns it
    assert Chem.MolToSmiles(first) == "CCN"
    assert parse_smiles("CCN") is parse_smiles("CCN")  # kept, shared
    assert parse_unmarked_smiles("C[C@H](N)O") is parse_smiles("C[C@H](N)O")  # marked text: the shared parse
    for bad in (None, 42):
        with pytest.raises(SmilesError):
            parse_unmarked_smiles(bad)  # type: ignore[arg-type]
        with pytest.raises(SmilesError):
            parse_smiles(bad)  # type: ignore[arg-type]


def test_ring_closure_spans_skip_bracket_atoms_and_read_percent_labels():
    spans = ring_closure_spans("[13CH3]C1CC%12CC1C%12[2H]")
    assert [label for _, _, label in spans] == [1, 12, 1, 12]
    assert [label for _, _, label in ring_closure_spans("[NH3+]C1CC%(123)C1%(123)")] == [1, 123, 1, 123]
    with pytest.raises(ValueError, match="unclosed bracket"):
        ring_closure_spans("C[NH3+C1")
