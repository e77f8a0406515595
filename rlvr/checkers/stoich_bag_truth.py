"""The truth of a product or byproduct bag task: the true bag, the bag it must conserve, and
(written build) the verdict of the exact answer; built once per record and cached.

See :mod:`rlvr.checkers.stoich_truth` for the canonical and written builds.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import Any

from rlvr.checkers.metrics import balance_rates
from rlvr.checkers.stoich_species import SpeciesPart
from rlvr.checkers.stoich_record import (
    NeedsCanonical,
    Record,
    WrittenKeys,
    cache_key,
    mapping_key,
    pairs_of,
    species_bag,
    task_encoding,
)
from rlvr.chem.formula import Formula
from rlvr.chem.species import StrictEncoding
from rlvr.task import Task, TaskFormatError


@dataclass(frozen=True)
class BagTruth:
    encoding: StrictEncoding
    bag: dict[Any, int]  # canonical (or written) key -> coefficient
    formulas: dict[str, Formula]
    reference: tuple[tuple[Formula, int], ...]  # what the predicted bag must conserve
    #: element (and ``"charge"``) totals of ``reference`` (None: computed when first read, :attr:`totals`;
    #: not compared, since ``reference`` determines them)
    reference_total: Mapping[str, int] | None = field(default=None, compare=False)
    #: written build only: each species string of the record -> its parts (None: the canonical build)
    written: Mapping[str, tuple[SpeciesPart, ...]] | None = None
    #: written build only: ``(bag, metrics, element_delta)`` of the exact answer, whose verdict is always the same
    exact: tuple[dict[Any, int], dict[str, Any], dict[str, int]] | None = None

    @cached_property
    def totals(self) -> Mapping[str, int]:
        """:attr:`reference_total`, computed from :attr:`reference` when the build left it out."""
        return self.reference_total if self.reference_total is not None else _totals(self.reference)


def bag_delta(pred: Mapping[Any, int], formulas: Mapping[Any, Formula], reference_total: Mapping[str, int]) -> dict[str, int]:
    """Predicted minus reference element (and ``"charge"``) totals, zeros left out, sorted by key.

    What ``conservation_delta(reference, prediction)`` computes, for a bag ``{key: coefficient}``
    with ``formulas[key]`` the composition of each key.
    """
    total: dict[str, int] = {}
    charge = 0
    for key, k in pred.items():
        formula = formulas[key]
        for el, n in formula.counts:
            total[el] = total.get(el, 0) + n * k
        charge += formula.charge * k
    total["charge"] = total.get("charge", 0) + charge
    for key, n in reference_total.items():
        total[key] = total.get(key, 0) - n
    return {key: v for key, v in sorted(total.items()) if v}


def _totals(pairs: Iterable[tuple[Formula, int]]) -> dict[str, int]:
    """Element and ``"charge"`` totals of (formula, coefficient) pairs, as :func:`rlvr.chem.balance.side_total` counts them."""
    total: dict[str, int] = {}
    charge = 0
    for formula, k in pairs:
        for el, n in formula.counts:
            total[el] = total.get(el, 0) + n * k
        charge += formula.charge * k
    total["charge"] = total.get("charge", 0) + charge
    return total


def exact_metrics(tp: int, delta: Mapping[str, int]) -> dict[str, Any]:
    """The metrics of the exact answer (``bag_metrics`` of a bag with itself, valid, ``tp`` molecules)
    with the balance rates of its element ``delta``: what the bag checker gives it."""
    metrics: dict[str, Any] = {"em": 1.0, "jaccard": 1.0, "f1": 1.0, "tp": tp, "fp": 0, "fn": 0,
                               "mol_em": 1.0, "mol_jaccard": 1.0, "mol_f1": 1.0, "valid": 1.0}
    metrics.update(balance_rates(delta))
    return metrics


def _bag_truth(encoding: StrictEncoding, bag: dict[Any, int], formulas: dict[Any, Formula],
               reference: tuple[tuple[Formula, int], ...], keys: WrittenKeys | None = None) -> BagTruth:
    reference_total = _totals(reference)
    if keys is None:
        return BagTruth(encoding, bag, formulas, reference, reference_total)
    written = keys.written()
    delta = bag_delta(bag, formulas, reference_total)
    metrics = exact_metrics(sum(bag.values()), delta)
    return BagTruth(encoding, bag, formulas, reference, reference_total, written, (bag, metrics, delta))


# --------------------------------------------------------------------------- Type 1/2 products


def build_products_truth(record: Record, raw: Any, inputs: Any, written: bool = False) -> BagTruth:
    """The products truth of a record's fields (``written``: keyed as written; raises
    :class:`NeedsCanonical` where it cannot be)."""
    species = list(raw) if isinstance(raw, Mapping) else []
    encoding = task_encoding(record, species)
    keys = WrittenKeys(encoding) if written else None
    bag, formulas = species_bag(record, "ground_truth['products']", raw, encoding, keys)
    if inputs is None:
        raise TaskFormatError(f"task {record.id!r}: meta['inputs'] (the input bag shown to the model) is missing")
    in_bag, in_formulas = species_bag(record, "meta['inputs']", inputs, encoding, keys)
    return _bag_truth(encoding, bag, formulas, tuple(pairs_of(in_bag, in_formulas)), keys)


@lru_cache(maxsize=4096)
def _products_cached(key: tuple) -> BagTruth:
    task_id, encoding, raw, inputs = key
    return build_products_truth(Record(task_id, encoding), dict(raw), dict(inputs))


@lru_cache(maxsize=4096)
def _written_products_cached(key: tuple) -> BagTruth:
    task_id, encoding, raw, inputs = key
    try:
        return build_products_truth(Record(task_id, encoding), dict(raw), dict(inputs), written=True)
    except (NeedsCanonical, TaskFormatError):
        return _products_cached(key)  # raises for a malformed record


def _products_fields(task: Task) -> tuple[Any, Any, tuple | None]:
    raw = task.ground_truth.get("products")
    inputs = task.meta.get("inputs")
    return raw, inputs, cache_key(task, mapping_key(raw), mapping_key(inputs))


def products_truth(task: Task) -> BagTruth:
    """The Type 1/2 truth of a task: the product bag and the input bag it conserves (cached per record)."""
    raw, inputs, key = _products_fields(task)
    if key is not None:
        return _products_cached(key)
    return build_products_truth(Record(task.id, task.meta.get("encoding")), raw, inputs)


def written_products_truth(task: Task) -> BagTruth:
    """:func:`products_truth` keyed by the species as written (the canonical truth where it cannot be)."""
    raw, inputs, key = _products_fields(task)
    if key is not None:
        return _written_products_cached(key)
    return build_products_truth(Record(task.id, task.meta.get("encoding")), raw, inputs)


# --------------------------------------------------------------------------- byproducts


def build_byproduct_truth(record: Record, raw: Any, written: bool = False) -> BagTruth:
    """The byproduct truth of a record's field (``written`` as in :func:`build_products_truth`)."""
    species = list(raw) if isinstance(raw, Mapping) else []
    encoding = task_encoding(record, species)
    keys = WrittenKeys(encoding) if written else None
    bag, formulas = species_bag(record, "ground_truth['byproducts']", raw, encoding, keys)
    # the shown equation lacks exactly the byproducts' atoms: a prediction conserves iff its
    # element totals equal theirs
    return _bag_truth(encoding, bag, formulas, tuple(pairs_of(bag, formulas)), keys)


@lru_cache(maxsize=4096)
def _byproduct_cached(key: tuple) -> BagTruth:
    task_id, encoding, raw = key
    return build_byproduct_truth(Record(task_id, encoding), dict(raw))


@lru_cache(maxsize=4096)
def _written_byproduct_cached(key: tuple) -> BagTruth:
    task_id, encoding, raw = key
    try:
        return build_byproduct_truth(Record(task_id, encoding), dict(raw), written=True)
    except (NeedsCanonical, TaskFormatError):
        return _byproduct_cached(key)  # raises for a malformed record


def byproduct_truth(task: Task) -> BagTruth:
    """The byproduct truth of a task (cached per record)."""
    raw = task.ground_truth.get("byproducts")
    key = cache_key(task, mapping_key(raw))
    if key is not None:
        return _byproduct_cached(key)
    return build_byproduct_truth(Record(task.id, task.meta.get("encoding")), raw)


def written_byproduct_truth(task: Task) -> BagTruth:
    """:func:`byproduct_truth` keyed by the species as written (the canonical truth where it cannot be)."""
    raw = task.ground_truth.get("byproducts")
    key = cache_key(task, mapping_key(raw))
    if key is not None:
        return _written_byproduct_cached(key)
    return build_byproduct_truth(Record(task.id, task.meta.get("encoding")), raw)


__all__ = [
    "BagTruth", "bag_delta", "build_byproduct_truth", "build_products_truth", "byproduct_truth", "exact_metrics",
    "products_truth", "written_byproduct_truth", "written_products_truth",
]
