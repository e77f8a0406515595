"""SMILES through RDKit: parsing (bounded, never raising on hostile text), formula (implicit
hydrogens and formal charge included), canonical identity and comparison."""
from __future__ import annotations

import re
from collections import Counter
from functools import lru_cache

from rdkit import Chem, RDLogger
from rdkit.Chem.rdMolDescriptors import CalcMolFormula

from rlvr.chem.formula import Formula, FormulaError, parse_formula, plain_formula

RDLogger.DisableLog("rdApp.*")

MAX_SMILES_CHARS = 1_000
#: what ``CalcMolFormula`` writes: element symbols with counts, then an optional net charge
_CALC_FORMULA = re.compile(r"((?:[A-Z][a-z]?\d*)+)(?:([+-])(\d*))?")


class SmilesError(ValueError):
    """The text is not a valid SMILES string (or has no atoms)."""


def mol_from_smiles(text: str) -> Chem.Mol | None:
    """RDKit's ``MolFromSmiles`` for any text: None (never an exception) when it is not a SMILES.

    SMILES are ASCII; other text (lone surrogates included, which RDKit cannot even encode) is
    rejected before RDKit sees it.
    """
    if not isinstance(text, str) or not text.isascii():
        return None
    return Chem.MolFromSmiles(text)


#: parsed molecules kept (about 28 KB of memory each): the species a stream of tasks shares stay,
#: while what the caches of derived values (canonical SMILES, formulas) keep is small
PARSE_CACHE_SIZE = 8192

#: the sanitisation of text that writes no stereo and no hydrogen: all of it but the chirality and
#: atropisomer clean-ups, which act only on stereo such text cannot write
_UNMARKED_SANITIZE = (Chem.SanitizeFlags.SANITIZE_ALL ^ Chem.SanitizeFlags.SANITIZE_CLEANUPCHIRALITY
                      ^ Chem.SanitizeFlags.SANITIZE_CLEANUPATROPISOMERS)


def has_stereo_marks(smiles: str) -> bool:
    """Whether a SMILES string writes any stereo (``@``, ``/``, ``\\``): without, a parse has none."""
    return "@" in smiles or "/" in smiles or "\\" in smiles


def may_write_hydrogen(smiles: str) -> bool:
    """Whether a SMILES string may write a hydrogen (``[H]``, ``[2H]``, ``[nH]``, or by atomic number,
    ``[#1]``): without, its parse holds no hydrogen atom and no hydrogen count written in brackets."""
    return "H" in smiles or "#1" in smiles


def _read_smiles(smiles: str) -> Chem.Mol:
    """A new sanitised molecule from a SMILES string (not cached); raises :class:`SmilesError` with a reason.

    RDKit's ``MolFromSmiles``; for text that writes no stereo and no hydrogen, its parse without
    sanitisation and then ``SanitizeMol`` without the stereo clean-ups, about a quarter quicker:
    what ``MolFromSmiles`` adds, hydrogen removal and stereo perception, has nothing to act on in
    such text. The same molecule and the same failures (``tests/chem/test_smiles.py``).
    """
    if not isinstance(smiles, str):
        raise SmilesError(f"SMILES must be a string, got {type(smiles).__name__}")
    text = smiles.strip()
    if not text:
        raise SmilesError("empty SMILES")
    if len(text) > MAX_SMILES_CHARS:
        raise SmilesError("SMILES too long")
    if not text.isascii():
        mol = None  # SMILES are ASCII (RDKit cannot even encode a lone surrogate)
    elif has_stereo_marks(text) or may_write_hydrogen(text):
        mol = Chem.MolFromSmiles(text)
    else:
        mol = Chem.MolFromSmiles(text, sanitize=False)
        if mol is not None:
            try:
                Chem.SanitizeMol(mol, _UNMARKED_SANITIZE)
            except (ValueError, RuntimeError):  # RDKit's sanitisation errors are ValueErrors
                mol = None
    if mol is None or mol.GetNumAtoms() == 0:
        raise SmilesError(f"invalid SMILES {smiles!r}")
    return mol


@lru_cache(maxsize=PARSE_CACHE_SIZE)
def parse_smiles(smiles: str) -> Chem.Mol:
    """Parse and sanitise a SMILES string; raises :class:`SmilesError` with a reason.

    Cached (:data:`PARSE_CACHE_SIZE` molecules, shared: callers must not modify the result).
    """
    return _read_smiles(smiles)


def parse_unmarked_smiles(smiles: str) -> Chem.Mol:
    """:func:`parse_smiles` without keeping the molecule, for text that writes no stereo (``@``, ``/``,
    ``\\``) and no hydrogen (:func:`may_write_hydrogen`): a new molecule on every call, for a caller
    that keeps only what it computes from it. Other text gives the cached, shared parse of
    :func:`parse_smiles`, which the caller must not modify. Raises :class:`SmilesError` as it does.
    """
    if not isinstance(smiles, str) or has_stereo_marks(smiles) or may_write_hydrogen(smiles):
        return parse_smiles(smiles)
    return _read_smiles(smiles)


def mol_formula(mol: Chem.Mol) -> Formula:
    """Element counts (explicit, implicit and explicit-H atoms) and net formal charge of a molecule.

    Read from RDKit's ``CalcMolFormula`` (hydrogen isotopes counted as H, one C++ call) when that
    string parses; molecules with dummy atoms, or whose string does not parse, are counted atom
    by atom (the same counts: each atom's element plus its hydrogens).
    """
    text = CalcMolFormula(mol, False, False)  # separateIsotopes=False, abbreviateHIsotopes=False
    m = _CALC_FORMULA.fullmatch(text)
    if m is not None:  # Hill-order symbols and counts, then the net charge: +, -, +2, -3
        sign, magnitude = m.group(2), m.group(3)
        charge = 0 if not sign else (int(magnitude) if magnitude else 1) * (1 if sign == "+" else -1)
        formula = plain_formula(m.group(1), charge)
        if formula is not None:
            return formula
    if "*" not in text:
        try:
            return parse_formula(text)
        except FormulaError:
            pass
    return _counted_formula(mol)


def _counted_formula(mol: Chem.Mol) -> Formula:
    """:func:`mol_formula` atom by atom (raises :class:`SmilesError` on dummy atoms)."""
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


def stable_smiles(smiles: str) -> str | None:
    """Canonical SMILES that is a fixed point of canonicalisation (None when it is not, or invalid)."""
    mol = mol_from_smiles(smiles)
    if mol is None:
        return None
    once = Chem.MolToSmiles(mol)
    if once == smiles:
        return once
    again = Chem.MolFromSmiles(once)
    if again is None:
        return None
    return once if Chem.MolToSmiles(again) == once else None


def same_smiles(a: str, b: str, *, max_chars: int = MAX_SMILES_CHARS) -> bool:
    """Whether two SMILES strings name the same molecule (identical text, or equal canonical SMILES).

    Empty strings, text longer than ``max_chars`` and invalid SMILES are never equal to anything
    but their identical twin.
    """
    if a.strip() == b.strip():
        return True
    if not a.strip() or not b.strip() or len(a) > max_chars:
        return False
    try:
        return canonical_smiles(a.strip()) == canonical_smiles(b.strip())
    except ValueError:  # SmilesError
        return False


_RING_LABEL = re.compile(r"%\((\d+)\)|%(\d\d)|(\d)")


def ring_closure_spans(smiles: str) -> list[tuple[int, int, int]]:
    """``(start, end, label)`` of every ring-closure label in ``smiles`` (bracket atoms skipped)."""
    spans: list[tuple[int, int, int]] = []
    i, n = 0, len(smiles)
    while i < n:
        ch = smiles[i]
        if ch == "[":
            close = smiles.find("]", i)
            if close < 0:
                raise ValueError(f"unclosed bracket atom in {smiles!r}")
            i = close + 1
            continue
        if ch == "%" or ch.isdigit():
            m = _RING_LABEL.match(smiles, i)
            if m is None:
                raise ValueError(f"bad ring-closure label at {i} in {smiles!r}")
            label = int(next(g for g in m.groups() if g is not None))
            spans.append((m.start(), m.end(), label))
            i = m.end()
            continue
        i += 1
    return spans
