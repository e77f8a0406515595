"""Shared chemistry: formulas, SMILES identity, exact balancing (imported lazily: RDKit loads on first use)."""
from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "Formula": "rlvr.chem.formula", "FormulaError": "rlvr.chem.formula", "hill_formula": "rlvr.chem.formula",
    "parse_formula": "rlvr.chem.formula",
    "SmilesError": "rlvr.chem.smiles", "canonical_smiles": "rlvr.chem.smiles", "parse_smiles": "rlvr.chem.smiles",
    "smiles_formula": "rlvr.chem.smiles",
    "SpeciesError": "rlvr.chem.species", "canonical_species": "rlvr.chem.species", "species_formula": "rlvr.chem.species",
    "balance": "rlvr.chem.balance", "balance_formulas": "rlvr.chem.balance", "conservation_delta": "rlvr.chem.balance",
    "is_balanced": "rlvr.chem.balance",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'rlvr.chem' has no attribute {name!r}")
