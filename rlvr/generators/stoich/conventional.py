"""Conventional (textbook) spellings of inorganic formulas, for showing species in prompts.

Corpus species in the formula encoding are Hill formulas (their identity keys): ``BrH``, ``BrLi``,
``CMnO3``. Textbooks write HBr, LiBr and MnCO3. :func:`display_formula` maps a Hill formula to the
spelling the classic-equation skeletons use (:mod:`rlvr.generators.stoich.classic`), for species
without carbon-hydrogen bonds (inorganic species, CO2, carbonates, cyanides); organic formulas
stay in Hill order. Only the text shown changes: the checkers read either spelling.
"""
from __future__ import annotations

from functools import lru_cache

from rlvr.chem.formula import FormulaError, parse_formula
from rlvr.generators.stoich.classic import all_equations


@lru_cache(maxsize=1)
def conventional_formulas() -> dict[str, str]:
    """Hill formula -> conventional spelling, for the classic skeletons' inorganic species."""
    out: dict[str, str] = {}
    for eq in all_equations(pool_limit=0):
        for text in (*eq.reactants, *eq.products, *eq.reagents):
            if text.startswith("smiles:"):
                continue
            try:
                formula = parse_formula(text)
            except FormulaError:
                continue
            counts = dict(formula.counts)
            if "C" in counts and "H" in counts:
                continue  # organic: Hill order is the convention
            hill = formula.hill()
            if hill != text:
                out.setdefault(hill, text)
    return out


def display_formula(hill: str) -> str:
    """The conventional spelling of a Hill formula when one is known (``BrH`` -> ``HBr``), else itself."""
    return conventional_formulas().get(hill, hill)
