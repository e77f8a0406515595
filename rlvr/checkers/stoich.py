"""Checkers of the stoichiometry tasks: balancing, Type 1/2 product bags and byproducts (task
records: :mod:`rlvr.checkers.stoich_truth`; answer reading: :mod:`rlvr.checkers.stoich_parse`).

Pure functions ``check_*(task, completion, *, reward=...) -> Verdict`` with bounded work, and
oracles ``oracle_*(task) -> str`` that build a full-score completion from the ground truth.
Answer formats, reason codes, metrics and reward modes are documented in ``docs/verification.md``.

- Product and byproduct bags are compared as multisets of canonical species (Hill formula in the
  formula encoding, canonical SMILES in the SMILES encoding) with the ChemAlgebra metrics of
  :mod:`rlvr.checkers.metrics`; atom balance is reported, never rewarded.
- Balance answers are judged by conservation (elements and charge) and minimality, not by string
  equality, so any balanced, minimal, all-positive answer is correct.

A malformed completion always yields a zero-reward verdict with a reason; a malformed task raises
:class:`rlvr.task.TaskFormatError` (use :func:`validate_task` when loading records).

Verdicts are first scored against the task's *written* truth (:mod:`rlvr.checkers.stoich_truth`):
species an answer writes exactly as the task does are known without canonicalising anything, and
formulas are keyed by composition. A SMILES species written any other way sends the verdict to the
canonical truth, so the verdict is the same either way; :func:`check_canonical` always takes the
canonical path (the reference the fast path is tested against).
"""
from __future__ import annotations

from typing import Any, Mapping

from rlvr.checkers.stoich_bag_truth import byproduct_truth, products_truth
from rlvr.checkers.stoich_bags import check_bag, check_byproduct, check_products
from rlvr.checkers.stoich_balance import SHAPED_NOT_MINIMAL, SHAPED_UNBALANCED_MAX, check_balance, check_balance_with
from rlvr.checkers.stoich_balance_truth import balance_truth
from rlvr.checkers.stoich_record import as_task
from rlvr.checkers.stoich_truth import validate_task
from rlvr.checkers.stoich_verdict import FORMAT_CREDIT, METRIC_KEYS, REWARD_MODES, reward_mode
from rlvr.chem.notation import format_bag, format_equation
from rlvr.task import Task, Verdict


def check_canonical(task: Task | Mapping[str, Any], completion: Any, *, reward: str | None = None) -> Verdict:
    """The verdict of the stoichiometry checker for ``task`` computed on canonical identities only.

    The same verdict as :func:`check_balance`, :func:`check_byproduct` or :func:`check_products`
    (picked by the ground truth, like :func:`validate_task`), without the written-species fast path:
    every species is canonicalised. ``reward`` defaults to the checker's own default.
    """
    task = as_task(task)
    gt = task.ground_truth
    if "coefficients" in gt:
        mode = reward_mode(reward or "strict")
        return check_balance_with(task, balance_truth(task), completion, mode)
    if "byproducts" in gt:
        return check_bag(task, byproduct_truth(task), byproduct_truth, completion, reward or "em")
    return check_bag(task, products_truth(task), products_truth, completion, reward or "em")


# ---------------------------------------------------------------------------------------------
# oracles
# ---------------------------------------------------------------------------------------------


def oracle_balance(task: Task | Mapping[str, Any]) -> str:
    """``<answer>{2}H2.{1}O2>>{2}H2O</answer>`` from the ground truth."""
    task = as_task(task)
    balance_truth(task)
    gt = task.ground_truth
    return f"<answer>{format_equation(gt['reactants'], gt['products'], [int(k) for k in gt['coefficients']])}</answer>"


def oracle_products(task: Task | Mapping[str, Any]) -> str:
    """``<answer>{2}CH4.{4}H2O.{2}Ni</answer>`` from ``ground_truth["products"]``."""
    task = as_task(task)
    products_truth(task)
    return f"<answer>{format_bag({s: int(k) for s, k in task.ground_truth['products'].items()})}</answer>"


def oracle_byproduct(task: Task | Mapping[str, Any]) -> str:
    """``<answer>{1}H2O</answer>`` from ``ground_truth["byproducts"]``."""
    task = as_task(task)
    byproduct_truth(task)
    return f"<answer>{format_bag({s: int(k) for s, k in task.ground_truth['byproducts'].items()})}</answer>"


__all__ = [
    "FORMAT_CREDIT", "METRIC_KEYS", "REWARD_MODES", "SHAPED_NOT_MINIMAL", "SHAPED_UNBALANCED_MAX",
    "check_balance", "check_byproduct", "check_canonical", "check_products", "oracle_balance", "oracle_byproduct",
    "oracle_products", "validate_task",
]
