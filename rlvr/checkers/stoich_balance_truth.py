"""The truth of a balancing task: its species in question order, their compositions and the
reference coefficients; built once per record and cached.

See :mod:`rlvr.checkers.stoich_truth` for the canonical and written builds.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from math import gcd
from typing import Any

from rlvr.checkers.stoich_species import species_identity
from rlvr.checkers.stoich_record import (
    NeedsCanonical,
    Record,
    WrittenKeys,
    cache_key,
    int_coefficient,
    list_key,
    task_encoding,
)
from rlvr.chem.formula import Formula
from rlvr.chem.species import StrictEncoding
from rlvr.task import Task, TaskFormatError


@dataclass(frozen=True)
class BalanceTruth:
    encoding: StrictEncoding
    n_reactants: int
    formulas: tuple[Formula, ...]
    keys: tuple[str, ...]
    coefficients: tuple[int, ...]
    index: dict[tuple[int, str], int]  # (side 0/1, canonical key) -> position in question order
    rows: tuple[str, ...]  # conservation rows: elements present, then "charge" if any species is charged
    #: written build only: each species string of the record -> its key (None: the canonical build)
    written: Mapping[str, Any] | None = None
    #: written build only: whether ``coefficients`` themselves are a correct answer (balanced and minimal)
    exact: bool = False


def build_balance_truth(task: Record, reactants: Any, products: Any, coefficients: Any,
                        written: bool = False) -> BalanceTruth:
    """The balancing truth of a record's fields (``written``: keyed as written; raises
    :class:`~rlvr.checkers.stoich_record.NeedsCanonical` where it cannot be)."""
    for name, value in (("reactants", reactants), ("products", products), ("coefficients", coefficients)):
        if not isinstance(value, list) or not value:
            raise TaskFormatError(f"task {task.id!r}: ground_truth[{name!r}] must be a non-empty list")
    species = list(reactants) + list(products)
    if len(coefficients) != len(species):
        raise TaskFormatError(
            f"task {task.id!r}: {len(coefficients)} coefficients for {len(species)} species in ground_truth"
        )
    encoding = task_encoding(task, species)
    written_keys = WrittenKeys(encoding) if written else None
    formulas, keys, index = [], [], {}
    for i, text in enumerate(species):
        if written_keys is not None:
            ident = written_keys.identity(text)
        else:
            ident = species_identity(text, encoding) if isinstance(text, str) else None
        if ident is None:
            raise TaskFormatError(f"task {task.id!r}: ground_truth species {text!r} is not a valid {encoding}")
        side = 0 if i < len(reactants) else 1
        if (side, ident[0]) in index:
            raise TaskFormatError(f"task {task.id!r}: species {text!r} appears twice on the same side")
        index[(side, ident[0])] = i
        keys.append(ident[0])
        formulas.append(ident[1])
    coefs = tuple(int_coefficient(task, f"ground_truth['coefficients'][{i}]", k) for i, k in enumerate(coefficients))
    elements = sorted({el for f in formulas for el, _ in f.counts})
    rows = tuple(elements) + (("charge",) if any(f.charge for f in formulas) else ())
    if written_keys is None:
        return BalanceTruth(encoding, len(reactants), tuple(formulas), tuple(keys), coefs, index, rows)
    written = {text: parts[0].key for text, parts in written_keys.written().items()}
    exact = not _balance_delta(len(reactants), formulas, coefs) and gcd(*coefs) == 1  # coefficients are at least 1
    return BalanceTruth(encoding, len(reactants), tuple(formulas), tuple(keys), coefs, index, rows, written, exact)


@lru_cache(maxsize=4096)
def _balance_cached(key: tuple) -> BalanceTruth:
    task_id, encoding, reactants, products, coefficients = key
    return build_balance_truth(Record(task_id, encoding), list(reactants), list(products), list(coefficients))


@lru_cache(maxsize=4096)
def _written_balance_cached(key: tuple) -> BalanceTruth:
    task_id, encoding, reactants, products, coefficients = key
    try:
        return build_balance_truth(Record(task_id, encoding), list(reactants), list(products), list(coefficients),
                                   written=True)
    except (NeedsCanonical, TaskFormatError):
        return _balance_cached(key)  # raises for a malformed record


def _balance_fields(task: Task) -> tuple[Any, Any, Any, tuple | None]:
    gt = task.ground_truth
    reactants, products, coefficients = gt.get("reactants"), gt.get("products"), gt.get("coefficients")
    key = cache_key(task, list_key(reactants, str), list_key(products, str), list_key(coefficients, int))
    return reactants, products, coefficients, key


def balance_truth(task: Task) -> BalanceTruth:
    """The balancing truth of a task: species in question order and the reference coefficients (cached per record)."""
    reactants, products, coefficients, key = _balance_fields(task)
    if key is not None:
        return _balance_cached(key)
    return build_balance_truth(Record(task.id, task.meta.get("encoding")), reactants, products, coefficients)


def written_balance_truth(task: Task) -> BalanceTruth:
    """:func:`balance_truth` keyed by the species as written (the canonical truth where it cannot be)."""
    reactants, products, coefficients, key = _balance_fields(task)
    if key is not None:
        return _written_balance_cached(key)
    return build_balance_truth(Record(task.id, task.meta.get("encoding")), reactants, products, coefficients)


def balance_delta(truth: BalanceTruth, coefficients: tuple[int, ...]) -> dict[str, int]:
    """Product side minus reactant side, per element and charge (empty when balanced)."""
    return _balance_delta(truth.n_reactants, truth.formulas, coefficients)


def _balance_delta(n_reactants: int, formulas: Iterable[Formula], coefficients: Iterable[int]) -> dict[str, int]:
    """What ``conservation_delta(reactant pairs, product pairs)`` computes, in one pass."""
    total: dict[str, int] = {}
    charge = 0
    for i, (formula, k) in enumerate(zip(formulas, coefficients)):
        if i < n_reactants:
            k = -k
        for el, n in formula.counts:
            total[el] = total.get(el, 0) + n * k
        charge += formula.charge * k
    total["charge"] = total.get("charge", 0) + charge
    return {key: v for key, v in sorted(total.items()) if v}


__all__ = ["BalanceTruth", "balance_delta", "balance_truth", "build_balance_truth", "written_balance_truth"]
