"""Exact balancing: the rational null space of the element + charge matrix (:mod:`rlvr.chem.linalg`),
scaled to the smallest positive integers; conservation checks of sides given as (formula, coefficient) pairs."""
from __future__ import annotations

from collections import Counter
from math import gcd, lcm
from typing import Iterable, Mapping, Sequence

from rlvr.chem.formula import Formula
from rlvr.chem.linalg import composition_rows, null_basis
from rlvr.chem.species import Encoding, looks_like_smiles, species_formula


def composition_matrix(reactants: Sequence[Formula], products: Sequence[Formula]) -> tuple[list[str], list[list[int]]]:
    """Rows: elements (sorted) then charge if any species is charged; columns: reactants then products (negated)."""
    signs = [1] * len(reactants) + [-1] * len(products)
    return composition_rows([*reactants, *products], signs)


def balance_formulas(reactants: Sequence[Formula], products: Sequence[Formula]) -> list[int]:
    """Smallest positive integer coefficients balancing ``reactants -> products`` (elements and charge)."""
    if not reactants or not products:
        raise ValueError("cannot balance: both sides need at least one species")
    _, rows = composition_matrix(reactants, products)
    basis = null_basis(rows, len(reactants) + len(products))
    if not basis:
        raise ValueError("cannot balance: no non-zero combination conserves every element and the charge")
    if len(basis) > 1:
        raise ValueError(
            f"cannot balance uniquely: the solution space is {len(basis)}-dimensional "
            "(the equation combines independent reactions; coefficients are not determined)"
        )
    vec = basis[0]
    if all(v <= 0 for v in vec):
        vec = [-v for v in vec]
    if any(v <= 0 for v in vec):
        n = len(reactants)
        bad = [i for i, v in enumerate(vec) if v <= 0]
        raise ValueError(
            "cannot balance with positive coefficients: species at position(s) "
            f"{[('reactant', i) if i < n else ('product', i - n) for i in bad]} would need a zero or negative coefficient"
        )
    denom = lcm(*(v.denominator for v in vec))
    ints = [int(v * denom) for v in vec]
    g = gcd(*ints)
    return [x // g for x in ints]


def balance(reactants: Sequence[str], products: Sequence[str], encoding: Encoding = "auto") -> list[int]:
    """Balance an equation given as formulas or SMILES; returns coefficients (reactants then products).

    >>> balance(["KMnO4", "HCl"], ["KCl", "MnCl2", "H2O", "Cl2"])
    [2, 16, 2, 2, 8, 5]

    With ``encoding="auto"`` the equation is read as SMILES when any species can only be SMILES
    (``CCO``, ``O=O``), otherwise as formulas. Raises ``ValueError`` naming the reason when the equation is impossible or its solution is
    not unique (solution space not one-dimensional).
    """
    if encoding == "auto":  # one encoding per equation: any SMILES-only species makes it SMILES
        encoding = "smiles" if any(looks_like_smiles(s) for s in [*reactants, *products]) else "formula"
    r = [species_formula(s, encoding) for s in reactants]
    p = [species_formula(s, encoding) for s in products]
    return balance_formulas(r, p)


def side_total(side: Iterable[tuple[Formula, int]]) -> Counter:
    """Total element counts plus ``"charge"`` of a side given as (formula, coefficient) pairs."""
    total: Counter = Counter()
    for formula, k in side:
        for el, n in formula.counts:
            total[el] += n * k
        total["charge"] += formula.charge * k
    return total


def conservation_delta(left: Iterable[tuple[Formula, int]], right: Iterable[tuple[Formula, int]]) -> dict[str, int]:
    """``right - left`` per element (and ``charge``), omitting zeros: empty means balanced."""
    diff = side_total(right)
    diff.subtract(side_total(left))
    return {k: v for k, v in sorted(diff.items()) if v}


def is_balanced(left: Mapping[Formula, int] | Iterable[tuple[Formula, int]], right) -> bool:
    l = left.items() if isinstance(left, Mapping) else left
    r = right.items() if isinstance(right, Mapping) else right
    return not conservation_delta(l, r)
