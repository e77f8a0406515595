"""Shared chemistry: formulas, SMILES identity, exact balancing."""
from rlvr.chem.balance import balance, balance_formulas, conservation_delta, is_balanced
from rlvr.chem.formula import Formula, FormulaError, hill_formula, parse_formula
from rlvr.chem.smiles import SmilesError, canonical_smiles, parse_smiles, smiles_formula
from rlvr.chem.species import SpeciesError, canonical_species, species_formula

__all__ = [
    "Formula", "FormulaError", "SmilesError", "SpeciesError", "balance", "balance_formulas",
    "canonical_smiles", "canonical_species", "conservation_delta", "hill_formula", "is_balanced",
    "parse_formula", "parse_smiles", "smiles_formula", "species_formula",
]
