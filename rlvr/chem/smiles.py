"""SMILES through RDKit: formula (implicit hydrogens and formal charge included) and canonical identity."""
from __future__ import annotations

from collections import Counter
from functools import lru_cache

from rdkit import Chem, RDLogger

from rlvr.chem.formula import Formula

RDLogger.DisableLog("rdApp.*")

MAX_SMILES_CHARS = 1_000


class SmilesError(ValueError):
    """The text is not a valid SMILES string (or has no atoms)."""


@lru_cache(maxsize=65536)
def parse_smiles(smiles: str) -> Chem.Mol:
    """Parse and sanitise a SMILES string; raises :class:`SmilesError` with a reason."""
    if not isinstance(smiles, str):
        raise SmilesError(f"SMILES must be a string, got {type(smiles).__name__}")
    text = smiles.strip()
    if not text:
        raise SmilesError("empty SMILES")
    if len(text) > MAX_SMILES_CHARS:
        raise SmilesError("SMILES too long")
    mol = Chem.MolFromSmiles(text)
    if mol is None or mol.GetNumAtoms() == 0:
        raise SmilesError(f"invalid SMILES {smiles!r}")
    return mol


def mol_formula(mol: Chem.Mol) -> Formula:
    """Element counts (explicit, implicit and explicit-H atoms) and net formal charge of a molecule."""
    counts: Counter = Counter()
    for atom in mol.GetAtoms():
        symbol = atom.GetSymbol()
        if atom.GetAtomicNum() == 0:
            raise SmilesError("dummy atoms (*) have no formula")
        counts[symbol] += 1
        counts["H"] += atom.GetTotalNumHs()
    return Formula.of(counts, Chem.GetFormalCharge(mol))


@lru_cache(maxsize=65536)
def smiles_formula(smiles: str) -> Formula:
    """The :class:`Formula` of a SMILES string."""
    return mol_formula(parse_smiles(smiles))


@lru_cache(maxsize=65536)
def canonical_smiles(smiles: str) -> str:
    """RDKit canonical isomeric SMILES (the species identity in the SMILES encoding)."""
    return Chem.MolToSmiles(parse_smiles(smiles))
