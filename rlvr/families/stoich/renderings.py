"""The right answer of a stoichiometry task in each other form its prompt and ``docs/verification.md`` allow
(``FamilySpec.renderings``): every one scores 1.0.

- bags (``stoich.t1``, ``stoich.t2``, ``stoich.byproduct``): the species in reverse order, plain notation
  (``2 CH4 + 4 H2O + Ni``), a JSON object (``{"CH4": 2, ...}``), and every species spelt another way (a
  formula in another atom order, ``OH2`` for ``H2O``; another SMILES of the molecule);
- equations (``stoich.balance``): plain notation (``2 H2 + O2 -> 2 H2O``), the coefficient list in question
  order (``2, 1, 2``), each side's species in reverse order, and every species spelt another way.
"""
from __future__ import annotations

import json
from typing import Callable, Mapping, Sequence

from rlvr.chem.notation import format_bag, format_plain
from rlvr.families.respell import other_formula, other_smiles
from rlvr.task import Task

Bag = list[tuple[str, int]]


def _answer(body: str) -> str:
    return f"<answer>{body}</answer>"


def _respeller(task: Task) -> Callable[[str], str | None]:
    return other_smiles if task.meta.get("encoding") == "smiles" else other_formula


def _respelt(bag: Bag, respell: Callable[[str], str | None]) -> Bag | None:
    """``bag`` with every species another spelling can be written for spelt that way (None: none can)."""
    out = [(respell(species) or species, k) for species, k in bag]
    return out if out != bag else None


def bag_forms(bag: Bag, respell: Callable[[str], str | None]) -> list[str]:
    """Answer bodies of one bag in every form (module docstring), the stoichiometric notation first."""
    forms = [format_bag(list(reversed(bag))), format_plain(bag)]
    if len({species for species, _ in bag}) == len(bag):
        forms.append(json.dumps(dict(bag)))
    other = _respelt(bag, respell)
    if other is not None:
        forms.append(format_bag(other))
    return forms


def bag_renderings(task: Task) -> list[str]:
    """The renderings of a product or byproduct bag answer."""
    truth = task.ground_truth
    bag = truth.get("products", truth.get("byproducts"))
    if not isinstance(bag, Mapping) or not bag:
        return []
    items = [(str(species), int(k)) for species, k in bag.items()]
    oracle = _answer(format_bag(items))
    return [form for form in dict.fromkeys(_answer(f) for f in bag_forms(items, _respeller(task))) if form != oracle]


def _equation(left: Bag, right: Bag, plain: bool) -> str:
    if plain:
        return f"{format_plain(left)} -> {format_plain(right)}"
    return f"{format_bag(left)}>>{format_bag(right)}"


def balance_renderings(task: Task) -> list[str]:
    """The renderings of a balanced-equation answer."""
    truth = task.ground_truth
    reactants: Sequence[str] = truth.get("reactants", ())
    products: Sequence[str] = truth.get("products", ())
    coefficients = [int(k) for k in truth.get("coefficients", ())]
    if not reactants or not products or len(coefficients) != len(reactants) + len(products):
        return []
    left = list(zip(reactants, coefficients[:len(reactants)]))
    right = list(zip(products, coefficients[len(reactants):]))
    forms = [_equation(left, right, plain=True), ", ".join(map(str, coefficients)),
             _equation(list(reversed(left)), list(reversed(right)), plain=False)]
    respell = _respeller(task)
    other_left, other_right = _respelt(left, respell), _respelt(right, respell)
    if other_left is not None or other_right is not None:
        forms.append(_equation(other_left or left, other_right or right, plain=False))
    return list(dict.fromkeys(_answer(form) for form in forms))


__all__ = ["bag_forms", "bag_renderings", "balance_renderings"]
