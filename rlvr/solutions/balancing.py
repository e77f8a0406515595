"""Balancing as a readable derivation: conservation equations, substitution, clearing fractions.

Used by the balancing writer and (for the atom totals) by the byproduct writer. Every number written is computed here from the species alone.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from math import gcd, lcm
from typing import Mapping, Sequence

from rlvr.chem.balance import balance_formulas
from rlvr.chem.formula import Formula
from rlvr.solutions.common import SolutionError, frac, join_sum, term, var_names


@dataclass(frozen=True)
class Equation:
    """One conservation law: ``sum(left[v] * v) = sum(right[v] * v)`` for an element or the charge."""

    label: str
    left: tuple[tuple[int, int], ...]  # (variable index, multiplier) on the reactant side
    right: tuple[tuple[int, int], ...]  # on the product side

    def text(self, names: Sequence[str]) -> str:
        lhs = join_sum([term(k, names[i]) for i, k in self.left])
        rhs = join_sum([term(k, names[i]) for i, k in self.right])
        return f"{self.label}: {lhs} = {rhs}"

    def variables(self) -> set[int]:
        return {i for i, _ in self.left} | {i for i, _ in self.right}

    def residual(self, values: dict[int, Fraction]) -> Fraction:
        """left - right with the known values substituted (unknowns ignored)."""
        return sum((k * values[i] for i, k in self.left if i in values), Fraction(0)) - sum(
            (k * values[i] for i, k in self.right if i in values), Fraction(0)
        )

    def coefficient(self, var: int) -> int:
        """Signed multiplier of ``var`` in ``left - right``."""
        return sum(k for i, k in self.left if i == var) - sum(k for i, k in self.right if i == var)


def element_order(formulas: Sequence[Formula]) -> list[str]:
    """Elements by first appearance, with H and O last (the textbook order of balancing)."""
    seen: list[str] = []
    for f in formulas:
        for el, _ in _ordered_counts(f):
            if el not in seen:
                seen.append(el)
    tail = [el for el in ("H", "O") if el in seen]
    return [el for el in seen if el not in ("H", "O")] + tail


def _ordered_counts(f: Formula) -> list[tuple[str, int]]:
    d = f.as_dict()
    if "C" in d:
        order = ["C"] + (["H"] if "H" in d else []) + sorted(e for e in d if e not in ("C", "H"))
    else:
        order = sorted(d)
    return [(el, d[el]) for el in order]


def conservation_equations(reactants: Sequence[Formula], products: Sequence[Formula]) -> list[Equation]:
    """One equation per element (and one for the charge when any species is charged)."""
    n = len(reactants)
    species = list(reactants) + list(products)
    eqs = []
    for el in element_order(species):
        left = tuple((i, f.as_dict()[el]) for i, f in enumerate(reactants) if el in f.as_dict())
        right = tuple((n + j, f.as_dict()[el]) for j, f in enumerate(products) if el in f.as_dict())
        eqs.append(Equation(el, left, right))
    if any(f.charge for f in species):
        left = tuple((i, f.charge) for i, f in enumerate(reactants) if f.charge)
        right = tuple((n + j, f.charge) for j, f in enumerate(products) if f.charge)
        eqs.append(Equation("charge", left, right))
    return eqs


class Lin:
    """A linear expression ``const + coef * t`` with exact rationals."""

    __slots__ = ("const", "coef")

    def __init__(self, const: Fraction | int = 0, coef: Fraction | int = 0) -> None:
        self.const = Fraction(const)
        self.coef = Fraction(coef)

    def __add__(self, other: "Lin") -> "Lin":
        return Lin(self.const + other.const, self.coef + other.coef)

    def __sub__(self, other: "Lin") -> "Lin":
        return Lin(self.const - other.const, self.coef - other.coef)

    def scale(self, k: Fraction | int) -> "Lin":
        return Lin(self.const * k, self.coef * k)

    def text(self) -> str:
        if self.coef == 0:
            return frac(self.const)
        t = term(self.coef, "t") if self.coef > 0 else "-" + term(-self.coef, "t")
        if self.const == 0:
            return t
        return f"{t} + {frac(self.const)}" if self.const > 0 else f"{t} - {frac(-self.const)}"


def _side(eq_terms: Sequence[tuple[int, int]], values: dict[int, Lin], skip: int | None = None) -> Lin:
    total = Lin()
    for i, k in eq_terms:
        if i != skip:
            total = total + values[i].scale(k)
    return total


def _chain(eqs: Sequence[Equation], values: dict[int, Lin], used: set[int]) -> list[tuple[int, int]]:
    """Solve, in order, every equation with a single unknown; returns (equation, variable) steps."""
    steps: list[tuple[int, int]] = []
    progress = True
    while progress:
        progress = False
        for e_idx, eq in enumerate(eqs):
            if e_idx in used:
                continue
            unknown = [v for v in eq.variables() if v not in values]
            if len(unknown) == 1 and eq.coefficient(unknown[0]) != 0:
                var = unknown[0]
                coeff = eq.coefficient(var)
                rest = _side(eq.left, values, var) - _side(eq.right, values, var)
                values[var] = rest.scale(Fraction(-1, 1) / coeff)
                used.add(e_idx)
                steps.append((e_idx, var))
                progress = True
    return steps


def _chain_length(eqs: Sequence[Equation], start: dict[int, Lin]) -> int:
    values = dict(start)
    _chain(eqs, values, set())
    return len(values)


@dataclass(frozen=True)
class Derivation:
    """A balancing derivation: the lines to write and the final integer coefficients."""

    lines: list[tuple[str, bool]]
    coefficients: list[int]


def _step_text(eq: Equation, var: int, names: Sequence[str], values: dict[int, Lin]) -> str:
    coeff = eq.coefficient(var)
    var_side, other_side = (eq.left, eq.right) if coeff > 0 else (eq.right, eq.left)
    k = abs(coeff)
    other = _side(other_side, values)
    same = _side(var_side, values, var)
    rhs = other - same
    k_text = "" if k == 1 else str(k)
    head = eq.text(names)
    value = values[var]
    if k == 1:
        return f"{head} -> {names[var]} = {value.text()}"
    return f"{head} -> {k_text}{names[var]} = {rhs.text()} -> {names[var]} = {value.text()}"


def derive_balance(
    reactants: Sequence[Formula],
    products: Sequence[Formula],
    names: Sequence[str] | None = None,
    *,
    pivot: int | None = None,
) -> Derivation:
    """Write the balancing of ``reactants -> products`` step by step.

    The unique solution (rational null space) is computed exactly first. The written steps set
    ``pivot = 1`` and substitute through equations with a single unknown; when that stalls, one
    remaining coefficient is called ``t``, the chain continues in terms of ``t``, and an unused
    equation fixes ``t``. Finally the denominators are cleared and the common factor divided out.
    """
    n_species = len(reactants) + len(products)
    names = list(names or var_names(n_species))
    try:
        ints = balance_formulas(list(reactants), list(products))
    except ValueError as exc:
        raise SolutionError(f"equation cannot be balanced: {exc}") from exc
    eqs = conservation_equations(reactants, products)
    species = list(reactants) + list(products)
    candidates = [pivot] if pivot is not None else sorted(range(n_species), key=lambda i: (-species[i].n_atoms, i))
    pivot = max(candidates, key=lambda c: (_chain_length(eqs, {c: Lin(1)}), -candidates.index(c)))
    exact = [Fraction(x, ints[pivot]) for x in ints]  # the solution scaled to pivot = 1
    lines: list[tuple[str, bool]] = [(f"Set {names[pivot]} = 1.", False)]
    used: set[int] = set()
    values: dict[int, Lin] = {pivot: Lin(1)}
    for e_idx, var in _chain(eqs, values, used):
        lines.append((_step_text(eqs[e_idx], var, names, values), False))
    rounds = 0
    while len(values) < n_species:
        rounds += 1
        if rounds > n_species:  # pragma: no cover - a 1-D null space always resolves
            raise SolutionError("internal error: balancing derivation did not converge")
        remaining = [i for i in range(n_species) if i not in values]
        free = max(remaining, key=lambda r: (_chain_length(eqs, {**values, r: Lin(0, 1)}), -r))
        values[free] = Lin(0, 1)
        lines.append((f"Let {names[free]} = t.", False))
        for e_idx, var in _chain(eqs, values, used):
            lines.append((_step_text(eqs[e_idx], var, names, values), False))
        # an unused equation whose unknowns are all expressed fixes t
        for e_idx, eq in enumerate(eqs):
            if e_idx in used or not eq.variables() <= set(values):
                continue
            left, right = _side(eq.left, values), _side(eq.right, values)
            diff = left - right
            if diff.coef == 0:
                continue
            t = -diff.const / diff.coef
            used.add(e_idx)
            lines.append((f"{eq.text(names)} -> {left.text()} = {right.text()} -> t = {frac(t)}", False))
            for i in list(values):
                if values[i].coef:
                    values[i] = Lin(values[i].const + values[i].coef * t)
            break
        else:
            if len(values) == n_species:  # pragma: no cover
                raise SolutionError("internal error: no equation fixes the free coefficient")
            continue
        lines.append(("So " + ", ".join(f"{names[i]} = {frac(values[i].const)}" for i in sorted(values)) + ".", True))
    solved = [values[i].const for i in range(n_species)]
    if any(values[i].coef for i in range(n_species)) or solved != exact:  # pragma: no cover
        raise SolutionError("internal error: derivation disagrees with the exact solution")
    checks = [eq.label for e_idx, eq in enumerate(eqs) if e_idx not in used]
    if checks:
        lines.append(("Check " + ", ".join(checks) + " with these values: balanced.", True))
    denom = lcm(*(v.denominator for v in solved))
    scaled = [int(v * denom) for v in solved]
    if denom != 1:
        lines.append((f"Multiply by {denom} to clear fractions: " + ", ".join(
            f"{names[i]} = {scaled[i]}" for i in range(n_species)), False))
    g = gcd(*scaled)
    final = [x // g for x in scaled]
    if g != 1:
        lines.append((f"Divide by the common factor {g}: " + ", ".join(
            f"{names[i]} = {final[i]}" for i in range(n_species)), False))
    if denom == 1 and g == 1:
        lines.append(("Whole numbers with no common factor: " + ", ".join(
            f"{names[i]} = {final[i]}" for i in range(n_species)), False))
    if final != list(ints):  # pragma: no cover - same null-space vector
        raise SolutionError("internal error: derived coefficients differ from the exact balance")
    return Derivation(lines, final)


def totals_text(total: Mapping[str, int], order: Sequence[str]) -> str:
    """``C 2, H 6, charge -1``: the totals of ``order``'s elements present, then the charge if non-zero."""
    parts = [f"{el} {total[el]}" for el in order if total.get(el)]
    if total.get("charge"):
        parts.append(f"charge {total['charge']:+d}")
    return ", ".join(parts) if parts else "nothing"


def composition_text(f: Formula) -> str:
    """``C 2, H 6, O 1`` (Hill order) plus the charge when non-zero."""
    parts = [f"{el} {n}" for el, n in _ordered_counts(f)]
    if f.charge:
        parts.append(f"charge {f.charge:+d}")
    return ", ".join(parts)
