"""Stoichiometry task records as the checkers read them: the ground truth (canonical bags, balance
coefficients) and the conservation it must satisfy, validated (:class:`rlvr.task.TaskFormatError`
for a malformed record, never for a model's answer)."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from math import gcd, isfinite
from typing import Any, Iterable, Mapping

from rlvr.chem.balance import conservation_delta, side_total
from rlvr.chem.formula import Formula
from rlvr.chem.notation import MAX_COEFFICIENT
from rlvr.chem.species import ENCODINGS, StrictEncoding, looks_like_smiles
from rlvr.checkers.stoich_parse import species_identity, species_parts
from rlvr.task import Task, TaskFormatError


def as_task(task: Task | Mapping[str, Any]) -> Task:
    return Task.from_dict(task) if not isinstance(task, Task) else task


class _Record:
    """What the truth builders read of a task: its id and ``meta["encoding"]``."""

    __slots__ = ("encoding", "id")

    def __init__(self, task_id: str, encoding: Any) -> None:
        self.id = task_id
        self.encoding = encoding


def _task_encoding(task: _Record, species: Iterable[str]) -> StrictEncoding:
    """``meta["encoding"]``; when absent, SMILES if any ground-truth species can only be SMILES."""
    enc = task.encoding
    if enc is None:
        return "smiles" if any(isinstance(s, str) and looks_like_smiles(s) for s in species) else "formula"
    if enc not in ENCODINGS:
        raise TaskFormatError(f"task {task.id!r}: meta['encoding'] must be 'formula' or 'smiles', got {enc!r}")
    return enc


def _int_coefficient(task: _Record | Task, where: str, value: Any) -> int:
    if type(value) is int and 1 <= value <= MAX_COEFFICIENT:
        return value
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not isfinite(value) or int(value) != value:
        raise TaskFormatError(f"task {task.id!r}: {where} must be an integer, got {value!r}")
    value = int(value)
    if value < 1 or value > MAX_COEFFICIENT:
        raise TaskFormatError(f"task {task.id!r}: {where} must be in [1, {MAX_COEFFICIENT}], got {value}")
    return value


def _species_bag(task: _Record | Task, where: str, raw: Any, encoding: StrictEncoding) -> tuple[Counter, dict[str, Formula]]:
    """A ``{species: coefficient}`` record field as a canonical bag (fragments split) plus compositions."""
    if not isinstance(raw, Mapping) or not raw:
        raise TaskFormatError(f"task {task.id!r}: {where} must be a non-empty {{species: coefficient}} dict")
    bag: Counter = Counter()
    formulas: dict[str, Formula] = {}
    for species, k in raw.items():
        k = _int_coefficient(task, f"{where}[{species!r}]", k) if type(k) is not int or not 1 <= k <= MAX_COEFFICIENT else k
        parts = species_parts(species, encoding) if isinstance(species, str) else None
        if parts is None:
            raise TaskFormatError(f"task {task.id!r}: {where} species {species!r} is not a valid {encoding}")
        for part in parts:
            bag[part.key] += k * part.count
            formulas[part.key] = part.formula
    return bag, formulas


def pairs_of(bag: Mapping[str, int], formulas: Mapping[str, Formula]) -> list[tuple[Formula, int]]:
    return [(formulas[key], k) for key, k in bag.items()]


@dataclass(frozen=True)
class BagTruth:
    encoding: StrictEncoding
    bag: Counter
    formulas: dict[str, Formula]
    reference: tuple[tuple[Formula, int], ...]  # what the predicted bag must conserve
    #: element (and ``"charge"``) totals of ``reference``
    reference_total: Mapping[str, int] = field(default_factory=dict)


def _bag_truth(encoding: StrictEncoding, bag: Counter, formulas: dict[str, Formula],
               reference: tuple[tuple[Formula, int], ...]) -> BagTruth:
    return BagTruth(encoding, bag, formulas, reference, dict(side_total(reference)))


def _mapping_key(value: Any) -> tuple | None:
    """``{str: int}`` record field as a hashable key (None: another shape, not cached)."""
    if type(value) is not dict or not value or set(map(type, value)) != {str} or set(map(type, value.values())) != {int}:
        return None
    return tuple(value.items())


def _list_key(value: Any, item: type) -> tuple | None:
    """A list of ``item`` values as a hashable key (None: another shape, not cached)."""
    if type(value) is not list or not value or set(map(type, value)) != {item}:
        return None
    return tuple(value)


def _cache_key(task: Task, *parts: Any) -> tuple | None:
    """The key under which a task's parsed truth is cached: id, ``meta["encoding"]`` and the fields read."""
    if any(p is None for p in parts):
        return None
    encoding = task.meta.get("encoding")
    if encoding is not None and type(encoding) is not str:
        return None
    return (task.id, encoding, *parts)


def _products_truth(record: _Record, raw: Any, inputs: Any) -> BagTruth:
    species = list(raw) if isinstance(raw, Mapping) else []
    encoding = _task_encoding(record, species)
    bag, formulas = _species_bag(record, "ground_truth['products']", raw, encoding)
    if inputs is None:
        raise TaskFormatError(f"task {record.id!r}: meta['inputs'] (the input bag shown to the model) is missing")
    in_bag, in_formulas = _species_bag(record, "meta['inputs']", inputs, encoding)
    return _bag_truth(encoding, bag, formulas, tuple(pairs_of(in_bag, in_formulas)))


@lru_cache(maxsize=4096)
def _products_truth_cached(key: tuple) -> BagTruth:
    task_id, encoding, raw, inputs = key
    return _products_truth(_Record(task_id, encoding), dict(raw), dict(inputs))


def products_truth(task: Task) -> BagTruth:
    """The Type 1/2 truth of a task: the product bag and the input bag it conserves (cached per record)."""
    raw = task.ground_truth.get("products")
    inputs = task.meta.get("inputs")
    key = _cache_key(task, _mapping_key(raw), _mapping_key(inputs))
    if key is not None:
        return _products_truth_cached(key)
    return _products_truth(_Record(task.id, task.meta.get("encoding")), raw, inputs)


def _byproduct_truth(record: _Record, raw: Any) -> BagTruth:
    species = list(raw) if isinstance(raw, Mapping) else []
    encoding = _task_encoding(record, species)
    bag, formulas = _species_bag(record, "ground_truth['byproducts']", raw, encoding)
    # the shown equation lacks exactly the byproducts' atoms: a prediction conserves iff its
    # element totals equal theirs
    return _bag_truth(encoding, bag, formulas, tuple(pairs_of(bag, formulas)))


@lru_cache(maxsize=4096)
def _byproduct_truth_cached(key: tuple) -> BagTruth:
    task_id, encoding, raw = key
    return _byproduct_truth(_Record(task_id, encoding), dict(raw))


def byproduct_truth(task: Task) -> BagTruth:
    """The byproduct truth of a task (cached per record)."""
    raw = task.ground_truth.get("byproducts")
    key = _cache_key(task, _mapping_key(raw))
    if key is not None:
        return _byproduct_truth_cached(key)
    return _byproduct_truth(_Record(task.id, task.meta.get("encoding")), raw)


@dataclass(frozen=True)
class BalanceTruth:
    encoding: StrictEncoding
    n_reactants: int
    formulas: tuple[Formula, ...]
    keys: tuple[str, ...]
    coefficients: tuple[int, ...]
    index: dict[tuple[int, str], int]  # (side 0/1, canonical key) -> position in question order
    rows: tuple[str, ...]  # conservation rows: elements present, then "charge" if any species is charged


def _balance_truth(task: _Record, reactants: Any, products: Any, coefficients: Any) -> BalanceTruth:
    for name, value in (("reactants", reactants), ("products", products), ("coefficients", coefficients)):
        if not isinstance(value, list) or not value:
            raise TaskFormatError(f"task {task.id!r}: ground_truth[{name!r}] must be a non-empty list")
    species = list(reactants) + list(products)
    if len(coefficients) != len(species):
        raise TaskFormatError(
            f"task {task.id!r}: {len(coefficients)} coefficients for {len(species)} species in ground_truth"
        )
    encoding = _task_encoding(task, species)
    formulas, keys, index = [], [], {}
    for i, text in enumerate(species):
        ident = species_identity(text, encoding) if isinstance(text, str) else None
        if ident is None:
            raise TaskFormatError(f"task {task.id!r}: ground_truth species {text!r} is not a valid {encoding}")
        side = 0 if i < len(reactants) else 1
        if (side, ident[0]) in index:
            raise TaskFormatError(f"task {task.id!r}: species {text!r} appears twice on the same side")
        index[(side, ident[0])] = i
        keys.append(ident[0])
        formulas.append(ident[1])
    coefs = tuple(_int_coefficient(task, f"ground_truth['coefficients'][{i}]", k) for i, k in enumerate(coefficients))
    elements = sorted({el for f in formulas for el, _ in f.counts})
    rows = tuple(elements) + (("charge",) if any(f.charge for f in formulas) else ())
    return BalanceTruth(encoding, len(reactants), tuple(formulas), tuple(keys), coefs, index, rows)


@lru_cache(maxsize=4096)
def _balance_truth_cached(key: tuple) -> BalanceTruth:
    task_id, encoding, reactants, products, coefficients = key
    return _balance_truth(_Record(task_id, encoding), list(reactants), list(products), list(coefficients))


def balance_truth(task: Task) -> BalanceTruth:
    """The balancing truth of a task: species in question order and the reference coefficients (cached per record)."""
    gt = task.ground_truth
    reactants, products, coefficients = gt.get("reactants"), gt.get("products"), gt.get("coefficients")
    key = _cache_key(task, _list_key(reactants, str), _list_key(products, str), _list_key(coefficients, int))
    if key is not None:
        return _balance_truth_cached(key)
    return _balance_truth(_Record(task.id, task.meta.get("encoding")), reactants, products, coefficients)


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
        bag, formulas = _species_bag(task, f"meta['reaction'][{side!r}]", raw, truth.encoding)
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


def balance_delta(truth: BalanceTruth, coefficients: tuple[int, ...]) -> dict[str, int]:
    """Product side minus reactant side, per element and charge (empty when balanced)."""
    n = truth.n_reactants
    pairs = list(zip(truth.formulas, coefficients))
    return conservation_delta(pairs[:n], pairs[n:])


__all__ = [
    "BagTruth", "BalanceTruth", "as_task", "balance_delta", "balance_truth", "byproduct_truth", "pairs_of",
    "products_truth", "validate_task",
]
