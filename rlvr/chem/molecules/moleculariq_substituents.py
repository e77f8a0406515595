"""The MolecularIQ benchmark's procedural substituent detectors (ethyl, allyl, propargyl, benzyl,
isopropyl, isobutyl, sec-butyl, tert-butyl), re-implemented from moleculariq-core (MIT licence)
for ``convention="moleculariq"``.

Each detector returns the instances it finds as lists of atom indices, in the benchmark's order
and with its rules (for example its benzyl is any CH2 or CH3 on an aromatic carbon, and its ethyl
accepts a CH3-CH2 whose other neighbour is not a plain chain CH2).
"""
from __future__ import annotations

from typing import Callable

from rdkit import Chem

def _c(atom: Chem.Atom) -> bool:
    return atom.GetSymbol() == "C"


def _methyl(atom: Chem.Atom) -> bool:
    return _c(atom) and atom.GetDegree() == 1 and atom.GetTotalNumHs() >= 3


def _sp3(atom: Chem.Atom) -> bool:
    return atom.GetHybridization() == Chem.HybridizationType.SP3


def _ethyl(mol: Chem.Mol) -> list[list[int]]:
    out = []
    for a in mol.GetAtoms():
        if not _methyl(a):
            continue
        nbr = a.GetNeighbors()[0]
        if not _c(nbr) or nbr.GetTotalNumHs() < 2 or nbr.GetDegree() < 2:
            continue
        for anchor in nbr.GetNeighbors():
            if anchor.GetIdx() == a.GetIdx():
                continue
            if (not _c(anchor) or not _sp3(anchor) or anchor.GetDegree() != 2 or anchor.GetIsAromatic()
                    or anchor.IsInRing()):
                out.append([a.GetIdx(), nbr.GetIdx()])
                break
    return out


def _unsaturated_arm(mol: Chem.Mol, order: Chem.BondType, min_h: int) -> list[list[int]]:
    """Allyl (R-CH2-CH=CH2) and propargyl (R-CH2-C#CH) detectors."""
    out = []
    for ch2 in mol.GetAtoms():
        if not _c(ch2) or ch2.GetTotalNumHs() < 2 or ch2.GetDegree() < 2:
            continue
        for v1 in ch2.GetNeighbors():
            b = mol.GetBondBetweenAtoms(ch2.GetIdx(), v1.GetIdx())
            if not _c(v1) or b.GetBondType() != Chem.BondType.SINGLE:
                continue
            for v2 in v1.GetNeighbors():
                if v2.GetIdx() == ch2.GetIdx() or not _c(v2):
                    continue
                if mol.GetBondBetweenAtoms(v1.GetIdx(), v2.GetIdx()).GetBondType() != order:
                    continue
                if v2.GetTotalNumHs() >= min_h and v2.GetDegree() == 1:
                    out.append([ch2.GetIdx(), v1.GetIdx(), v2.GetIdx()])
    return out


def _benzyl(mol: Chem.Mol) -> list[list[int]]:
    out = []
    for ch2 in mol.GetAtoms():
        if not _c(ch2) or ch2.GetTotalNumHs() < 2:
            continue
        for nb in ch2.GetNeighbors():
            if nb.GetIsAromatic() and _c(nb):
                out.append([nb.GetIdx(), ch2.GetIdx()])
                break
    return out


def _isopropyl(mol: Chem.Mol) -> list[list[int]]:
    out = []
    for c in mol.GetAtoms():
        if not _c(c) or not _sp3(c) or c.GetDegree() != 3:
            continue
        methyls, anchor = [], None
        for nb in c.GetNeighbors():
            if not _c(nb):
                anchor = nb
            elif nb.GetDegree() == 1 and nb.GetTotalNumHs() >= 3:
                methyls.append(nb)
            elif anchor is None:
                anchor = nb
        if len(methyls) == 2 and anchor is not None:
            out.append([c.GetIdx(), methyls[0].GetIdx(), methyls[1].GetIdx()])
    return out


def _tert_butyl(mol: Chem.Mol) -> list[list[int]]:
    out = []
    for c in mol.GetAtoms():
        if not _c(c) or not _sp3(c) or c.GetDegree() != 4:
            continue
        methyls = [nb for nb in c.GetNeighbors() if _methyl(nb)]
        if len(methyls) == 3:
            out.append([c.GetIdx()] + [m.GetIdx() for m in methyls])
    return out


def _isobutyl(mol: Chem.Mol) -> list[list[int]]:
    out = []
    for ch2 in mol.GetAtoms():
        if not _c(ch2) or not _sp3(ch2) or ch2.GetDegree() < 2 or ch2.GetTotalNumHs() < 2:
            continue
        for center in ch2.GetNeighbors():
            if not _c(center) or not _sp3(center) or center.GetDegree() != 3:
                continue
            methyls = [nb for nb in center.GetNeighbors() if nb.GetIdx() != ch2.GetIdx() and _methyl(nb)]
            if len(methyls) == 2:
                out.append([ch2.GetIdx(), center.GetIdx(), methyls[0].GetIdx(), methyls[1].GetIdx()])
    return out


def _sec_butyl(mol: Chem.Mol) -> list[list[int]]:
    out = []
    for sec in mol.GetAtoms():
        if not _c(sec) or not _sp3(sec) or sec.GetDegree() != 3:
            continue
        carbons = [nb for nb in sec.GetNeighbors() if _c(nb)]
        if len(carbons) < 2:
            continue
        methyl = chain = None
        for nb in carbons:
            if nb.GetDegree() == 1 and nb.GetTotalNumHs() >= 3:
                methyl = nb
            else:
                chain = nb
        if methyl is None or chain is None or not _sp3(chain) or chain.GetDegree() != 2 or chain.GetTotalNumHs() < 2:
            continue
        term = next((nb for nb in chain.GetNeighbors() if nb.GetIdx() != sec.GetIdx() and _methyl(nb)), None)
        if term is not None:
            out.append([sec.GetIdx(), methyl.GetIdx(), chain.GetIdx(), term.GetIdx()])
    return out


#: group name -> detector returning the instances (atom-index lists) it finds
PROCEDURES: dict[str, Callable[[Chem.Mol], list[list[int]]]] = {
    "ethyl": _ethyl,
    "allyl": lambda m: _unsaturated_arm(m, Chem.BondType.DOUBLE, 2),
    "propargyl": lambda m: _unsaturated_arm(m, Chem.BondType.TRIPLE, 1),
    "benzyl": _benzyl,
    "isopropyl": _isopropyl,
    "isobutyl": _isobutyl,
    "sec_butyl": _sec_butyl,
    "tert_butyl": _tert_butyl,
}
