"""Difficulty cells of the stoichiometry families, for frontier task selection (:mod:`rlvr.frontier`).

Products (Type 1 and 2): the run multiplier ``k`` of the mixture and the size of the reaction's
largest product coefficient (``1``, ``2-3``, ``4+``): a Type 1 answer is ``k`` times each product
coefficient, so both set how much arithmetic an answer needs. Balance and byproduct: the number of
species in the equation.
"""
from __future__ import annotations

from rlvr.registry import Difficulty
from rlvr.task import Task


def _coefficient_size(value: int) -> str:
    return "1" if value <= 1 else ("2-3" if value <= 3 else "4+")


def products_cell(task: Task) -> str:
    """``k=<factor>,c=<largest product coefficient bucket>`` (``k=mixed`` for per-molecule Type 2 runs)."""
    meta = task.meta
    products = (meta.get("reaction") or {}).get("products") or {}
    largest = max((int(v) for v in products.values()), default=1)
    factor = meta.get("factor")
    k = f"k={int(factor)}" if factor is not None else "k=mixed"
    return f"{k},c={_coefficient_size(largest)}"


def species_cell(task: Task) -> str:
    """``species=<n>`` (reactants and products of the reaction, 6 or more counted together)."""
    reaction = task.meta.get("reaction") or {}
    n = len(reaction.get("reactants") or {}) + len(reaction.get("products") or {})
    return f"species={min(n, 6)}{'+' if n >= 6 else ''}"


PRODUCTS_DIFFICULTY = Difficulty(
    cell=products_cell,
    description="run multiplier k and the reaction's largest product coefficient",
)
SPECIES_DIFFICULTY = Difficulty(cell=species_cell, description="number of species in the equation")
