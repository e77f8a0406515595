"""Stoichiometry task records as the checkers read them: the ground truth (canonical bags, balance
coefficients) and the conservation it must satisfy, validated (:class:`rlvr.task.TaskFormatError`
for a malformed record, never for a model's answer).

Each truth comes in two builds that give the same verdicts (built by one builder per kind of task,
:mod:`rlvr.checkers.stoich_bag_truth` and :mod:`rlvr.checkers.stoich_balance_truth`, from the
record fields as :mod:`rlvr.checkers.stoich_record` reads them):

- **canonical** (:func:`products_truth`, :func:`byproduct_truth`, :func:`balance_truth`): species
  keyed by their canonical identity (Hill formula, RDKit canonical SMILES);
- **written** (:func:`written_products_truth`, ...): the same record without canonicalising it.
  In the formula encoding the key is the parsed composition (equal exactly when the Hill
  formulas are equal). In the SMILES encoding the key is the species as the record writes it,
  which stands for its canonical SMILES when no two different strings of the record have the same
  composition (same molecule implies same composition); otherwise, or for a species with a dot
  or one that does not parse, the written build is the canonical one. ``truth.written`` maps each
  string of the record to its key, so an answer naming species exactly as the task writes them
  is scored without RDKit canonicalisation; any other SMILES string in an answer sends the
  verdict to the canonical truth (see :mod:`rlvr.checkers.stoich`).
"""
from __future__ import annotations

from collections.abc import Mapping
from math import gcd
from typing import Any

from rlvr.checkers.stoich_bag_truth import (
    BagTruth,
    bag_delta,
    byproduct_truth,
    exact_metrics,
    products_truth,
    written_byproduct_truth,
    written_products_truth,
)
from rlvr.checkers.stoich_balance_truth import BalanceTruth, balance_delta, balance_truth, written_balance_truth
from rlvr.checkers.stoich_record import as_task, pairs_of, species_bag
from rlvr.chem.balance import conservation_delta
from rlvr.task import Task, TaskFormatError


def validate_task(task: Task | Mapping[str, Any]) -> None:
    """Raise :class:`TaskFormatError` unless ``task`` is a well-formed stoichiometry record.

    The kind of task is read from its ground truth (``coefficients``: balancing; ``byproducts``;
    ``products``: Type 1/2). Beyond the fields the checkers need, this verifies the chemistry of
    the ground truth: balance
    coefficients conserve every element and the charge and are minimal; product bags conserve the
    input bag; byproducts close the shown equation when ``meta["reaction"]`` is present.
    """
    task = as_task(task)
    gt = task.ground_truth
    if "coefficients" in gt:
        balance = balance_truth(task)
        delta = balance_delta(balance, balance.coefficients)
        if delta:
            raise TaskFormatError(f"task {task.id!r}: ground-truth coefficients are unbalanced: {delta}")
        if gcd(*balance.coefficients) != 1:
            raise TaskFormatError(f"task {task.id!r}: ground-truth coefficients are not minimal")
    elif "byproducts" in gt:
        truth = byproduct_truth(task)
        reaction = task.meta.get("reaction")
        if reaction is not None:
            _validate_byproduct_reaction(task, truth, reaction)
    elif "products" in gt:
        truth = products_truth(task)
        delta = conservation_delta(truth.reference, pairs_of(truth.bag, truth.formulas))
        if delta:
            raise TaskFormatError(f"task {task.id!r}: ground-truth products do not conserve the input: {delta}")
    else:
        raise TaskFormatError(f"task {task.id!r}: not a stoichiometry task (its ground truth has no "
                              "'coefficients', 'byproducts' or 'products')")


def _validate_byproduct_reaction(task: Task, truth: BagTruth, reaction: Any) -> None:
    """The reference reaction either already contains the byproducts (balanced) or lacks exactly them."""
    if not isinstance(reaction, Mapping):
        raise TaskFormatError(f"task {task.id!r}: meta['reaction'] must be a dict")
    sides, bags = [], []
    for side in ("reactants", "products"):
        raw = reaction.get(side)
        bag, formulas = species_bag(task, f"meta['reaction'][{side!r}]", raw, truth.encoding)
        sides.append(pairs_of(bag, formulas))
        bags.append(bag)
    imbalance = conservation_delta(sides[0], sides[1])  # products - reactants (reagents cancel)
    if not imbalance:  # the full reference reaction: its products must include the byproducts
        short = {key: k for key, k in truth.bag.items() if bags[1].get(key, 0) < k}
        if short:
            raise TaskFormatError(
                f"task {task.id!r}: ground-truth byproducts {sorted(short)} are not among the reaction's products"
            )
        return
    completed = conservation_delta(sides[0], sides[1] + list(truth.reference))
    if completed:
        raise TaskFormatError(
            f"task {task.id!r}: ground-truth byproducts do not close the reaction (left over: {completed})"
        )


__all__ = [
    "BagTruth", "BalanceTruth", "as_task", "bag_delta", "balance_delta", "balance_truth", "byproduct_truth",
    "exact_metrics", "pairs_of", "products_truth", "validate_task", "written_balance_truth",
    "written_byproduct_truth", "written_products_truth",
]
