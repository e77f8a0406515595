"""Difficulty cells of the stoichiometry families, for frontier task selection (:mod:`rlvr.frontier`).

Products (Type 1 and 2): the run multiplier ``k`` of the mixture and the size of the reaction's
largest product coefficient (``1``, ``2-3``, ``4+``): a Type 1 answer is ``k`` times each product
coefficient, so both set how much arithmetic an answer needs. Balance and byproduct: the number of
species in the equation.

Knobs (options a framework's curriculum steps through, easiest first): the products' coefficient range
``coef_in`` (the factor ``k`` of every split that draws from S_in; its upper end grows from 1 to 5), the
byproduct ``scale`` (the shown reaction times 1 up to 1-5) and, for balancing, ``unit_share`` (the share
of all-ones equations, from half the tasks to none).
"""
from __future__ import annotations

from rlvr.registry import Difficulty, Knob
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
    knobs=(Knob("coef_in", (1, 2, 3, 4, 5), span=True, description="run multipliers k of S_in, 1 up to the level"),),
)
BALANCE_DIFFICULTY = Difficulty(
    cell=species_cell, description="number of species in the equation",
    knobs=(Knob("unit_share", (0.5, 0.25, 0.1, 0.0), description="share of equations whose coefficients are all 1"),),
)
BYPRODUCT_DIFFICULTY = Difficulty(
    cell=species_cell, description="number of species in the equation",
    knobs=(Knob("scale", (1, 2, 3, 4, 5), span=True, description="the shown reaction times 1 up to the level"),),
)
