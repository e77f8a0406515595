"""Another spelling of the same species, for the families' renderings: a formula in another atom order, a
molecule's SMILES from another atom. Each returns None where it can write no other spelling."""
from __future__ import annotations

from rdkit import Chem

from rlvr.chem.formula import FormulaError, parse_formula
from rlvr.chem.smiles import mol_from_smiles

#: the seed of the random SMILES (a rendering is a pure function of the task)
SMILES_SEED = 7


def other_formula(formula: str) -> str | None:
    """``formula`` with its elements in the reverse of Hill order (``C2H6O`` -> ``OH6C2``, ``MnO4-`` ->
    ``O4Mn-``); None when it does not parse or has one element."""
    try:
        parsed = parse_formula(formula)
    except FormulaError:
        return None
    counts = parsed.as_dict()
    if len(counts) < 2:
        return None
    first = [el for el in ("C", "H") if el in counts] if "C" in counts else []
    order = list(reversed(first + sorted(el for el in counts if el not in first)))  # Hill order, reversed
    text = "".join(el + (str(counts[el]) if counts[el] != 1 else "") for el in order)
    if parsed.charge:
        text += ("+" if parsed.charge > 0 else "-") + (str(abs(parsed.charge)) if abs(parsed.charge) != 1 else "")
    return text if text != formula else None


def other_smiles(smiles: str) -> str | None:
    """Another SMILES of the same molecule (RDKit's random SMILES with a fixed seed, kekulised when that is
    what differs); None when ``smiles`` does not parse or has no other spelling."""
    mol = mol_from_smiles(smiles)
    if mol is None or mol.GetNumAtoms() == 0:
        return None
    for text in Chem.MolToRandomSmilesVect(mol, 4, randomSeed=SMILES_SEED):
        if text != smiles:
            return text
    kekule = Chem.Mol(mol)
    try:
        Chem.Kekulize(kekule, clearAromaticFlags=True)
    except Exception:  # noqa: BLE001 - RDKit raises its own errors; no kekulé form is no other spelling
        return None
    text = Chem.MolToSmiles(kekule, kekuleSmiles=True)
    return text if text != smiles else None


__all__ = ["SMILES_SEED", "other_formula", "other_smiles"]
