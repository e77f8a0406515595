"""A written species of a stoichiometry answer: its canonical identity and the molecules it stands for.

The key of a species is its Hill formula (with charge) in the formula encoding and RDKit's canonical
SMILES in the SMILES encoding (:func:`species_identity`); :func:`species_parts` splits a dot-separated
SMILES into its molecules, :func:`formula_parts` keys a formula by its composition and
:func:`smiles_written_parts` keys a SMILES by its own string. Every reader is bounded
(:data:`MAX_SPECIES_CHARS`), never raises on model output (None when a species does not parse) and
is cached (bounded LRU), so a species is parsed once per process.
"""
from __future__ import annotations

from collections import Counter
from functools import lru_cache
from typing import Any, NamedTuple

from rlvr.chem.formula import MAX_FORMULA_CHARS, Formula, parse_formula, plain_formula
from rlvr.chem.smiles import smiles_formula
from rlvr.chem.species import SpeciesError, StrictEncoding, canonical_species, species_formula


class SpeciesPart(NamedTuple):
    """One canonical molecule (``key``) with its composition, ``count`` times inside a written species."""

    key: Any
    formula: Formula
    count: int = 1


#: Longer species strings are rejected without parsing or caching (the chemistry parsers cap lower).
MAX_SPECIES_CHARS = 1_000


def species_identity(text: str, encoding: StrictEncoding) -> tuple[str, Formula] | None:
    """``(canonical key, composition)`` of a written species, or None when it does not parse.

    The key is the Hill formula (with charge) in the formula encoding and RDKit's canonical
    SMILES in the SMILES encoding. Results, invalid ones included, are cached (bounded LRU).
    """
    if not isinstance(text, str) or len(text) > MAX_SPECIES_CHARS:
        return None
    return _species_identity(text, encoding)


@lru_cache(maxsize=16384)
def _species_identity(text: str, encoding: StrictEncoding) -> tuple[str, Formula] | None:
    try:
        return canonical_species(text, encoding), species_formula(text, encoding)
    except (SpeciesError, ValueError, RuntimeError):
        return None


def species_parts(text: str, encoding: StrictEncoding) -> tuple[SpeciesPart, ...] | None:
    """The molecules a written species stands for (None when it does not parse).

    In the SMILES encoding a dot-separated species (``[Na+].[Cl-]``, ``CCO.O``) is split into its
    fragments, as in ChemAlgebra's stoichiometric SMILES where every molecule is its own term; so
    ``{1}[Na+].[Cl-]`` and ``{1}[Na+].{1}[Cl-]`` are the same bag. Formulas are never split
    (``CuSO4.5H2O`` is one species).
    """
    if not isinstance(text, str) or len(text) > MAX_SPECIES_CHARS:
        return None
    return _species_parts(text, encoding)


@lru_cache(maxsize=16384)
def _species_parts(text: str, encoding: StrictEncoding) -> tuple[SpeciesPart, ...] | None:
    ident = species_identity(text, encoding)
    if ident is None:
        return None
    key, formula = ident
    if encoding != "smiles" or "." not in key:
        return (SpeciesPart(key, formula, 1),)
    counts: Counter = Counter()
    formulas: dict[str, Formula] = {}
    for fragment in key.split("."):
        sub = species_identity(fragment, "smiles")
        if sub is None:  # a canonical multi-fragment SMILES always splits into valid fragments
            return (SpeciesPart(key, formula, 1),)
        counts[sub[0]] += 1
        formulas[sub[0]] = sub[1]
    return tuple(SpeciesPart(k, formulas[k], n) for k, n in sorted(counts.items()))


#: the key of a species in the formula encoding: its composition as ``(counts, charge)``
FormulaKey = tuple


@lru_cache(maxsize=16384)
def formula_parts(text: str) -> tuple[SpeciesPart, ...] | None:
    """:func:`species_parts` in the formula encoding keyed by composition, or None when ``text`` does not parse.

    The key is the composition as a plain tuple ``(counts, charge)``: two species have the same
    key exactly when their Hill formulas (their canonical keys, :func:`species_identity`) are
    equal, and a plain tuple hashes quicker than a :class:`Formula`.
    """
    if len(text) > MAX_SPECIES_CHARS:
        return None
    formula = plain_formula(text) if len(text) <= MAX_FORMULA_CHARS else None  # what parse_formula tries first
    if formula is None:
        try:
            formula = parse_formula(text)
        except (ValueError, RuntimeError):
            return None
    return (SpeciesPart((formula.counts, formula.charge), formula, 1),)


def formula_key(text: str) -> FormulaKey | None:
    """The key of :func:`formula_parts` (None when ``text`` does not parse)."""
    parts = formula_parts(text)
    return None if parts is None else parts[0].key


@lru_cache(maxsize=16384)
def smiles_written_parts(text: str) -> tuple[SpeciesPart, ...] | None:
    """A SMILES species keyed by its own string, with its composition (no canonicalisation).

    None when the string holds several molecules (a dot) or does not parse. The key stands for
    the canonical SMILES only among strings of different compositions (see
    :mod:`rlvr.checkers.stoich_truth`).
    """
    if len(text) > MAX_SPECIES_CHARS or "." in text:
        return None
    try:
        formula = smiles_formula(text)
    except (ValueError, RuntimeError):  # SmilesError
        return None
    return (SpeciesPart(text, formula, 1),)


__all__ = ["MAX_SPECIES_CHARS", "FormulaKey", "SpeciesPart", "formula_key", "formula_parts", "smiles_written_parts",
           "species_identity", "species_parts"]
