"""Walking a SMILES string as shown: heavy-atom tokens in order, with their 0-based indices.

RDKit numbers the atoms of a parsed SMILES in the order they are written, so the n-th atom token
of the string is atom n (hydrogens written as ``[H]`` are not heavy atoms and get no index). The
walk is used to write traces that name atoms exactly as the model sees them (``c`` stays
lower-case, ``[C@@H]`` keeps its brackets).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from rdkit import Chem

from rlvr.chem.smiles import parse_smiles

_ATOM_TOKEN = re.compile(r"\[[^\]]*\]|Br|Cl|B|C|N|O|P|S|F|I|b|c|n|o|p|s|\*")
_BRACKET_H = re.compile(r"^\[(\d*)H[+-]?\d*\]$")


@dataclass(frozen=True)
class AtomToken:
    """Heavy atom ``index`` (position among the written heavy atoms) written as ``token``.

    ``symbol`` is its element and ``rdkit_idx`` its index in RDKit's parse of the same string
    (they differ only after an explicit ``[H]`` atom that RDKit keeps).
    """

    index: int
    token: str
    symbol: str
    rdkit_idx: int

    def label(self) -> str:
        return f"{self.index} {self.token}"


@lru_cache(maxsize=4096)
def walk(smiles: str) -> tuple[AtomToken, ...]:
    """The heavy atoms of ``smiles`` in written order, each with its 0-based index and written token.

    Falls back to RDKit's element symbols when the written tokens cannot be matched one to one
    with the parsed atoms (unusual inputs); the indices are always RDKit's.
    """
    mol = parse_smiles(smiles)
    atoms = list(mol.GetAtoms())
    written = _ATOM_TOKEN.findall(_strip_ring_bond_digits(smiles))
    tokens: list[str] = []
    pos = 0
    for atom in atoms:  # align written tokens with parsed atoms, skipping removed [H] tokens
        while pos < len(written) and not _token_matches(written[pos], atom) and _BRACKET_H.match(written[pos]):
            pos += 1
        if pos >= len(written) or not _token_matches(written[pos], atom):
            tokens = []
            break
        tokens.append(written[pos])
        pos += 1
    if len(tokens) != len(atoms):
        tokens = [a.GetSymbol().lower() if a.GetIsAromatic() else a.GetSymbol() for a in atoms]
    out: list[AtomToken] = []
    for t, a in zip(tokens, atoms):
        if a.GetAtomicNum() == 1 and a.GetIsotope() == 0:
            continue  # a plain hydrogen RDKit kept: not a heavy atom, no index
        out.append(AtomToken(len(out), t, a.GetSymbol(), a.GetIdx()))
    return tuple(out)


def positions(smiles: str) -> dict[int, int]:
    """RDKit atom index -> written heavy-atom index (plain hydrogens absent)."""
    return {a.rdkit_idx: a.index for a in walk(smiles)}


def _strip_ring_bond_digits(smiles: str) -> str:
    """Remove ``%nn`` ring-closure labels so ``%12`` is never read as atoms."""
    return re.sub(r"%\d\d", "", smiles)


def _token_matches(token: str, atom: Chem.Atom) -> bool:
    body = token.strip("[]")
    m = re.match(r"^\d*([A-Za-z][a-z]?)", body)
    if not m:
        return token == "*" and atom.GetAtomicNum() == 0
    sym = m.group(1)
    if token.startswith("["):
        # bracket atoms: element symbol possibly followed by chirality/H/charge
        for cand in (sym, sym[:1]):
            if cand.capitalize() == atom.GetSymbol():
                return True
        return False
    return sym.capitalize() == atom.GetSymbol()


def labels(atoms: list[AtomToken] | tuple[AtomToken, ...], limit: int | None = None) -> str:
    """``0 C, 3 c, 7 [nH]`` (truncated with ``...`` beyond ``limit``)."""
    items = [a.label() for a in atoms]
    if limit is not None and len(items) > limit:
        items = items[:limit] + ["..."]
    return ", ".join(items) if items else "none"
