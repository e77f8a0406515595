"""Brief worked solutions of molecule counts: one scan of the SMILES text as written, no atom indices.

A small model copies short lists far more faithfully than it copies numbered atom walks, so the
brief style answers the counts that can be read straight off the string with one line that lists
what was found, in written order, and its number:

- ``halogen_atom_count``: the halogen tokens (``F``, ``Cl``, ``Br``, ``I``, bracketed ones too);
- ``hetero_atom_count``: every heavy-atom token that is not a carbon;
- ``ring_count``: the ring-closure digits (each ring bond is opened and closed by one digit pair,
  so the count is half the digits; bracket atoms such as ``[NH3+]`` carry no closure digits);
- ``functional_group_carbonyl_count``: the atoms each double-bonded oxygen is written on, then the
  number of those that are carbons.

Every line is recomputed on the SMILES of the prompt and shown only when its number equals the
feature solver's value; otherwise :func:`brief_lines` returns None and the caller writes the terse
section instead.
"""
from __future__ import annotations

from typing import Any, Callable

from rdkit import Chem

from rlvr.chem.smiles import parse_smiles, ring_closure_spans
from rlvr.solutions.common import plural
from rlvr.solutions.smiles_walk import walk

HALOGENS = frozenset({"F", "Cl", "Br", "I", "At"})


def _listing(items: list[str]) -> str:
    return ", ".join(items)


def _halogens(smiles: str) -> tuple[str, int]:
    found = [a.token for a in walk(smiles) if a.symbol in HALOGENS]
    if not found:
        return "No F, Cl, Br or I written: 0 halogen atoms.", 0
    return f"Halogen atoms as written: {_listing(found)}; {len(found)} in all.", len(found)


def _hetero(smiles: str) -> tuple[str, int]:
    found = [a.token for a in walk(smiles) if a.symbol != "C"]
    if not found:
        return "Every heavy atom is a carbon: 0 other atoms.", 0
    return f"Heavy atoms other than carbon as written: {_listing(found)}; {len(found)} in all.", len(found)


def _rings(smiles: str) -> tuple[str, int]:
    digits = [smiles[start:end] for start, end, _ in ring_closure_spans(smiles)]
    if not digits:
        return "No ring-closure digits: 0 rings.", 0
    n = len(digits) // 2
    return f"Ring-closure digits as written: {' '.join(digits)}; {len(digits)} digits, {plural(n, 'ring bond')}.", n


def _carbonyls(smiles: str) -> tuple[str, int]:
    mol = parse_smiles(smiles)
    by_idx = {a.rdkit_idx: a for a in walk(smiles)}
    partners: list[str] = []
    on_carbon = 0
    for atom in mol.GetAtoms():  # written order
        if atom.GetAtomicNum() != 8:
            continue
        for bond in atom.GetBonds():
            if bond.GetBondType() != Chem.BondType.DOUBLE:
                continue
            other = bond.GetOtherAtom(atom)
            token = by_idx[other.GetIdx()].token if other.GetIdx() in by_idx else other.GetSymbol()
            partners.append(token)
            on_carbon += other.GetAtomicNum() == 6
    if not partners:
        return "No double-bonded O written: 0 C=O.", 0
    return f"Double-bonded O written on: {_listing(partners)}; {on_carbon} on carbon.", on_carbon


_SCANS: dict[str, Callable[[str], tuple[str, int]]] = {
    "halogen_atom_count": _halogens,
    "hetero_atom_count": _hetero,
    "ring_count": _rings,
    "functional_group_carbonyl_count": _carbonyls,
}

#: the count keys with a brief scan
BRIEF_KEYS: tuple[str, ...] = tuple(_SCANS)


def brief_lines(key: str, smiles: str, values: dict[str, Any]) -> list[str] | None:
    """The brief scan of ``key`` (its line, then ``key = value``), or None when the key has no scan or
    the scan's number differs from the feature solver's value on this SMILES."""
    scan = _SCANS.get(key)
    if scan is None or key not in values:
        return None
    try:
        line, n = scan(smiles)
    except ValueError:
        return None
    if n != values[key]:
        return None
    return [line, f"{key} = {n}"]


__all__ = ["BRIEF_KEYS", "HALOGENS", "brief_lines"]
