"""Species identity in either encoding: a Hill formula (formula encoding) or canonical SMILES."""
from __future__ import annotations

import re
from typing import Literal

from rlvr.chem.formula import Formula, FormulaError, parse_formula
from rlvr.chem.smiles import SmilesError, canonical_smiles, smiles_formula

#: how species are written: Hill formulas or SMILES (``auto``: decided per string, see :func:`looks_like_smiles`)
Encoding = Literal["formula", "smiles", "auto"]
#: an encoding without ``auto`` (what a task, a corpus view or a checker works in)
StrictEncoding = Literal["formula", "smiles"]
ENCODINGS: tuple[StrictEncoding, ...] = ("formula", "smiles")

#: text only SMILES can be: bond symbols, two lowercase letters, a leading aromatic atom, or an aromatic
#: atom (a lowercase letter that does not end an element symbol such as Cr) after a bracket or branch
_SMILES_ONLY = re.compile(r"[=#@/\\%]|[a-z]{2}|^[cnospb]|[(\[].*[)\]].*(?<![A-Z])[a-z]")


class SpeciesError(ValueError):
    """A species string could not be read in the requested encoding."""


def looks_like_smiles(text: str) -> bool:
    """Heuristic for ``encoding="auto"``: True when ``text`` cannot be a plain formula.

    A string that parses as a formula is read as a formula unless it repeats an element
    symbol with no digits or hydrogens in between (``CCO``), which is how SMILES reads.
    Ambiguous strings such as ``CO`` or ``O`` are read as formulas; pass ``encoding="smiles"``
    to force SMILES.
    """
    if _SMILES_ONLY.search(text):
        return True
    try:
        parse_formula(text)
    except FormulaError:
        return True
    symbols = re.findall(r"[A-Z][a-z]?", text)
    has_counts = any(ch.isdigit() for ch in text) or "H" in symbols
    return len(symbols) != len(set(symbols)) and not has_counts


def resolve_encoding(text: str, encoding: Encoding) -> StrictEncoding:
    """``encoding`` itself, or for ``auto`` the encoding ``text`` reads in."""
    if encoding == "auto":
        return "smiles" if looks_like_smiles(text) else "formula"
    if encoding not in ("formula", "smiles"):
        raise ValueError(f"unknown encoding {encoding!r} (use 'formula', 'smiles' or 'auto')")
    return encoding


def species_formula(text: str, encoding: Encoding = "auto") -> Formula:
    """The composition (element counts + charge) of a species written in ``encoding``."""
    enc = resolve_encoding(text, encoding)
    try:
        return parse_formula(text) if enc == "formula" else smiles_formula(text)
    except (FormulaError, SmilesError) as exc:
        raise SpeciesError(str(exc)) from exc


def canonical_species(text: str, encoding: Encoding) -> str:
    """The identity key of a species: Hill formula (formula encoding) or canonical SMILES.

    The one species canonicalisation of rlvr: checkers, generators, loaders and worked solutions
    all key species by it. Raises :class:`SpeciesError` when ``text`` does not parse.
    """
    enc = resolve_encoding(text, encoding)
    try:
        return parse_formula(text).hill() if enc == "formula" else canonical_smiles(text)
    except (FormulaError, SmilesError) as exc:
        raise SpeciesError(str(exc)) from exc
