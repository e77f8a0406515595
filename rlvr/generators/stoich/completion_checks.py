"""Checks on a candidate completion of an unbalanced reaction (reaction SMILES data).

- :func:`plausible`: an added organic molecule with two or more carbons must have its carbon
  skeleton (element, aromaticity, connectivity; any bond order) in a molecule of the side it
  comes from: ethanol cannot come from a dimethyl acetal, isobutylene not from THF.
- :func:`has_reductant`: whether the record names a reducing agent, which lets a completion
  consume formal H2 (the usual record of a reduction).
"""
from __future__ import annotations

from functools import lru_cache
from typing import Iterable, Sequence

from rdkit import Chem


@lru_cache(maxsize=256)
def _skeleton(smiles: str) -> Chem.Mol | None:
    """The largest carbon-connected part of a molecule as a query (element and aromaticity, any
    bond), or None when it has fewer than two carbons (CO2, methanol and inorganic molecules)."""
    mol = Chem.MolFromSmiles(smiles)
    if mol is None:
        return None
    carbons = {a.GetIdx() for a in mol.GetAtoms() if a.GetAtomicNum() == 6}
    best: set[int] = set()
    for start in sorted(carbons):
        seen, stack = {start}, [start]
        while stack:
            for n in mol.GetAtomWithIdx(stack.pop()).GetNeighbors():
                if n.GetIdx() in carbons and n.GetIdx() not in seen:
                    seen.add(n.GetIdx())
                    stack.append(n.GetIdx())
        best = max(best, seen, key=len)
    if len(best) < 2:
        return None
    bonds = [b.GetIdx() for b in mol.GetBonds() if b.GetBeginAtomIdx() in best and b.GetEndAtomIdx() in best]
    symbols = ["[#6;a]" if a.GetIsAromatic() else "[#6;A]" for a in mol.GetAtoms()]
    smarts = Chem.MolFragmentToSmiles(mol, atomsToUse=sorted(best), bondsToUse=bonds or None, atomSymbols=symbols,
                                      bondSymbols=["~"] * mol.GetNumBonds(), canonical=False, allBondsExplicit=True)
    return Chem.MolFromSmarts(smarts)


@lru_cache(maxsize=4096)
def _parsed(smiles: str) -> Chem.Mol | None:
    return Chem.MolFromSmiles(smiles)


def plausible(added: Iterable[tuple[str, int]], source: Sequence[str]) -> bool:
    """Whether every added organic molecule's carbon skeleton occurs in a molecule of ``source``."""
    for smiles, _ in added:
        query = _skeleton(smiles)
        if query is None:
            continue
        if not any(m is not None and m.HasSubstructMatch(query) for m in map(_parsed, source)):
            return False
    return True


#: reducing agents whose presence lets a completion consume formal H2 (SMARTS on molecules with explicit H)
_REDUCTANTS = tuple(Chem.MolFromSmarts(p) for p in (
    "[#1][#1]", "[#5,#13,#14,#50]-[#1]", "[#6H1](=O)[OX2H1,OX1-]", "[NX3;H2][NX3;H2]",
))
#: metals that reduce as the element (and tin also as tin(II))
_REDUCING_METALS = frozenset({"Fe", "Zn", "Sn", "Mg", "In", "Li", "Na", "K"})


def _reducing_metal(mol: Chem.Mol) -> bool:
    """An uncharged reducing metal atom alone, or tin(II) (Sn2+, SnCl2)."""
    heavy = [a for a in mol.GetAtoms() if a.GetAtomicNum() > 1]
    if len(heavy) == 1 and heavy[0].GetSymbol() in _REDUCING_METALS and heavy[0].GetFormalCharge() == 0:
        return True
    return any(a.GetSymbol() == "Sn" and (a.GetFormalCharge() == 2 or
               (a.GetDegree() == 2 and all(n.GetSymbol() == "Cl" for n in a.GetNeighbors()))) for a in heavy)


def has_reductant(species: Iterable[str]) -> bool:
    """Whether any of the SMILES is a reducing agent: H2, a B-H/Al-H/Si-H/Sn-H hydride, formic acid
    or formate, hydrazine, or a reducing metal (Fe, Zn, Sn, SnCl2, Mg, In, Li, Na, K)."""
    for smiles in species:
        mol = _parsed(smiles)
        if mol is not None and (_reducing_metal(mol) or any(Chem.AddHs(mol).HasSubstructMatch(p) for p in _REDUCTANTS)):
            return True
    return False
