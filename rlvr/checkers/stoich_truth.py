"""Stoichiometry task records as the checkers read them: the ground truth (canonical bags, balance
coefficients) and the conservation it must satisfy, validated (:class:`rlvr.task.TaskFormatError`
for a malformed record, never for a model's answer).

Each truth comes in two builds that give the same verdicts:

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

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from math import gcd, isfinite
from typing import Any

from rlvr.checkers.metrics import balance_rates
from rlvr.checkers.stoich_parse import (
    SpeciesPart,
    formula_parts,
    smiles_written_parts,
    species_identity,
    species_parts,
)
from rlvr.chem.balance import conservation_delta
from rlvr.chem.formula import Formula
from rlvr.chem.notation import MAX_COEFFICIENT
from rlvr.chem.species import ENCODINGS, StrictEncoding, looks_like_smiles
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


class _Canonical(Exception):
    """The written keys cannot stand for canonical ones in this record: build the canonical truth."""


class _WrittenKeys:
    """Species keys of one record as written (see the module docstring): the composition, or the SMILES string."""

    __slots__ = ("encoding", "seen")

    def __init__(self, encoding: StrictEncoding) -> None:
        self.encoding = encoding
        self.seen: dict[str, tuple[SpeciesPart, ...]] = {}  # every species string met -> its parts

    def parts(self, text: Any) -> tuple[SpeciesPart, ...]:
        """The species' one part; raises :class:`_Canonical` for anything the canonical build must judge."""
        if type(text) is not str:
            raise _Canonical
        parts = formula_parts(text) if self.encoding == "formula" else smiles_written_parts(text)
        if parts is None:
            raise _Canonical
        self.seen[text] = parts
        return parts

    def identity(self, text: Any) -> tuple[Any, Formula]:
        """``(key, composition)`` of the species (as :meth:`parts`)."""
        part = self.parts(text)[0]
        return part.key, part.formula

    def written(self) -> dict[str, tuple[SpeciesPart, ...]]:
        """Every species string met -> its parts; raises :class:`_Canonical` when two different SMILES
        strings have the same composition (they may be one molecule)."""
        seen = self.seen
        if self.encoding != "formula" and len({parts[0].formula for parts in seen.values()}) != len(seen):
            raise _Canonical
        return seen


def _species_bag(task: _Record | Task, where: str, raw: Any, encoding: StrictEncoding,
                 keys: _WrittenKeys | None = None) -> tuple[dict[Any, int], dict[Any, Formula]]:
    """A ``{species: coefficient}`` record field as a canonical bag (fragments split) plus compositions.

    With ``keys``, species are keyed as written instead (see :class:`_WrittenKeys`).
    """
    if not isinstance(raw, Mapping) or not raw:
        raise TaskFormatError(f"task {task.id!r}: {where} must be a non-empty {{species: coefficient}} dict")
    bag: dict[Any, int] = {}
    formulas: dict[str, Formula] = {}
    for species, k in raw.items():
        k = _int_coefficient(task, f"{where}[{species!r}]", k) if type(k) is not int or not 1 <= k <= MAX_COEFFICIENT else k
        if keys is not None:
            parts = keys.parts(species)
        else:
            parts = species_parts(species, encoding) if isinstance(species, str) else None
        if parts is None:
            raise TaskFormatError(f"task {task.id!r}: {where} species {species!r} is not a valid {encoding}")
        for part in parts:
            bag[part.key] = bag.get(part.key, 0) + k * part.count
            formulas[part.key] = part.formula
    return bag, formulas


def pairs_of(bag: Mapping[str, int], formulas: Mapping[str, Formula]) -> list[tuple[Formula, int]]:
    return [(formulas[key], k) for key, k in bag.items()]


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


def _bag_truth(encoding: StrictEncoding, bag: dict[Any, int], formulas: dict[Any, Formula],
               reference: tuple[tuple[Formula, int], ...], keys: _WrittenKeys | None = None) -> BagTruth:
    reference_total = _totals(reference)
    if keys is None:
        return BagTruth(encoding, bag, formulas, reference, reference_total)
    written = keys.written()
    exact_bag = bag
    delta = bag_delta(exact_bag, formulas, reference_total)
    metrics = exact_metrics(sum(exact_bag.values()), delta)
    return BagTruth(encoding, bag, formulas, reference, reference_total, written, (exact_bag, metrics, delta))


def exact_metrics(tp: int, delta: Mapping[str, int]) -> dict[str, Any]:
    """The metrics of the exact answer (``bag_metrics`` of a bag with itself, valid, ``tp`` molecules)
    with the balance rates of its element ``delta``: what ``_score_bag`` gives it."""
    metrics: dict[str, Any] = {"em": 1.0, "jaccard": 1.0, "f1": 1.0, "tp": tp, "fp": 0, "fn": 0,
                               "mol_em": 1.0, "mol_jaccard": 1.0, "mol_f1": 1.0, "valid": 1.0}
    metrics.update(balance_rates(delta))
    return metrics


_INT_ONLY = frozenset((int,))


def _mapping_key(value: Any) -> tuple | None:
    """``{species: int}`` record field as a hashable key (None: another shape, not cached).

    The values must be exactly ``int`` (``True`` or ``Decimal(1)`` equal ``1`` but are malformed
    coefficients), so a key equal to a cached one has ``int`` values too. Species need no check: a
    string equals only a string, and a record with any other species is malformed (never cached).
    """
    if not _int_items(value):
        return None
    return tuple(value.items())


def _list_key(value: Any, item: type) -> tuple | None:
    """A list of ``item`` values as a hashable key (None: another shape, not cached)."""
    if type(value) is not list or not value or set(map(type, value)) != {item}:
        return None
    return tuple(value)


def _cache_key(task: Task, *parts: Any) -> tuple | None:
    """The key under which a task's parsed truth is cached: id, ``meta["encoding"]`` and the fields read."""
    if None in parts:
        return None
    encoding = task.meta.get("encoding")
    if encoding is not None and type(encoding) is not str:
        return None
    return (task.id, encoding, *parts)


def _products_truth(record: _Record, raw: Any, inputs: Any, written: bool = False) -> BagTruth:
    species = list(raw) if isinstance(raw, Mapping) else []
    encoding = _task_encoding(record, species)
    keys = _WrittenKeys(encoding) if written else None
    bag, formulas = _species_bag(record, "ground_truth['products']", raw, encoding, keys)
    if inputs is None:
        raise TaskFormatError(f"task {record.id!r}: meta['inputs'] (the input bag shown to the model) is missing")
    in_bag, in_formulas = _species_bag(record, "meta['inputs']", inputs, encoding, keys)
    return _bag_truth(encoding, bag, formulas, tuple(pairs_of(in_bag, in_formulas)), keys)


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


def _formula_terms(items: tuple[tuple[str, int], ...], seen: dict[str, tuple[SpeciesPart, ...]],
                   bag: dict[Any, int], formulas: dict[Any, Formula], net: dict[Any, int], sign: int) -> bool:
    """Add ``(formula, coefficient)`` record items to a written bag keyed by composition, and ``sign``
    times each coefficient to ``net`` (composition -> coefficient); False when an item needs the
    general builder (a coefficient out of range, a species that is not a formula)."""
    for species, k in items:
        parts = formula_parts(species) if type(species) is str else None
        if parts is None or not 1 <= k <= MAX_COEFFICIENT:
            return False
        seen[species] = parts
        key, formula, _count = parts[0]
        bag[key] = bag.get(key, 0) + k
        formulas[key] = formula
        net[key] = net.get(key, 0) + sign * k
    return True


def _formula_products_written(raw: tuple[tuple[str, int], ...], inputs: tuple[tuple[str, int], ...]) -> BagTruth | None:
    """The written products truth of a formula-encoded record with ``{str: int}`` fields, in one pass over
    its species (what :func:`_products_truth` builds with ``written=True``); None: use the general builder.

    The exact answer's element delta is summed over the net coefficient of each composition
    (products minus inputs), so the species an answer carries over unchanged cost nothing there.
    """
    seen: dict[str, tuple[SpeciesPart, ...]] = {}
    bag: dict[Any, int] = {}
    formulas: dict[Any, Formula] = {}
    in_bag: dict[Any, int] = {}
    in_formulas: dict[Any, Formula] = {}
    net: dict[Any, int] = {}
    if not (_formula_terms(raw, seen, bag, formulas, net, 1)
            and _formula_terms(inputs, seen, in_bag, in_formulas, net, -1)):
        return None
    delta = _net_delta(net, lambda key: formulas[key] if key in formulas else in_formulas[key])
    reference = tuple((in_formulas[key], k) for key, k in in_bag.items())
    return BagTruth("formula", bag, formulas, reference, None, seen, (bag, exact_metrics(sum(bag.values()), delta), delta))


def _int_items(value: Any) -> bool:
    """Whether a record field is a non-empty dict with ``int`` values (what the one-pass builder reads)."""
    return type(value) is dict and bool(value) and set(map(type, value.values())) == _INT_ONLY


def formula_products_exact(task: Task) -> tuple[dict[str, Any], dict[str, int]] | None:
    """``(metrics, element_delta)`` of the exact answer of a formula-encoded products record, from the
    record alone: what :func:`written_products_truth` would give it, without building (or caching)
    the task's table of species. Each species is checked as that build checks it; the element delta
    sums only the species whose coefficient differs between products and inputs. None for any record
    that build would not read in one pass (the caller then builds the truth, which reports a
    malformed record).
    """
    ground, meta = task.ground_truth, task.meta
    raw, inputs = ground.get("products"), meta.get("inputs")
    if meta.get("encoding") != "formula" or not (_int_items(raw) and _int_items(inputs)):
        return None
    slot = _record_slot("products-exact", task.id)
    known = _slot_value(slot, (raw, inputs))  # the next sample of a group on this record
    if known is not None:
        return known
    result = _formula_exact(raw, inputs)
    if result is not None:
        slot[:] = [((dict(raw), dict(inputs)), result)]
    return result


@lru_cache(maxsize=4096)
def _record_slot(kind: str, task_id: Any) -> list:
    """One slot per ``kind`` and task id (the latest 4,096 kept), holding ``[(record fields, value)]``:
    what was read from the record last seen under that id. A record is looked up by its id and
    compared field by field, which costs less than hashing its fields for a key."""
    return []


def _slot_value(slot: list, fields: tuple) -> Any:
    """The value a slot holds for exactly these record ``fields`` (equal values; None otherwise)."""
    if slot:
        known_fields, value = slot[0]
        if known_fields == fields:
            return value
    return None


def _formula_exact(raw: dict[str, int], inputs: dict[str, int]) -> tuple[dict[str, Any], dict[str, int]] | None:
    net: dict[str, int] = {}
    for items, sign in ((raw, 1), (inputs, -1)):
        for species, k in items.items():
            if type(species) is not str or not 1 <= k <= MAX_COEFFICIENT or formula_parts(species) is None:
                return None
            net[species] = net.get(species, 0) + sign * k
    delta = _net_delta(net, lambda species: formula_parts(species)[0].formula)
    return exact_metrics(sum(raw.values()), delta), delta


def _net_delta(net: Mapping[Any, int], formula_of: Callable[[Any], Formula]) -> dict[str, int]:
    """The element (and ``"charge"``) delta of net coefficients (products minus inputs), zeros left out,
    sorted: the exact answer's ``element_delta``. Only keys whose coefficient is not zero are read."""
    total: dict[str, int] = {}
    charge = 0
    for key, k in net.items():
        if k:
            formula = formula_of(key)
            for el, n in formula.counts:
                total[el] = total.get(el, 0) + n * k
            charge += formula.charge * k
    if charge:
        total["charge"] = charge
    return {el: v for el, v in sorted(total.items()) if v}


@lru_cache(maxsize=4096)
def _written_products_cached(key: tuple) -> BagTruth:
    task_id, encoding, raw, inputs = key
    if encoding == "formula":
        truth = _formula_products_written(raw, inputs)
        if truth is not None:
            return truth
    try:
        return _products_truth(_Record(task_id, encoding), dict(raw), dict(inputs), written=True)
    except (_Canonical, TaskFormatError):
        return _products_truth_cached(key)  # raises for a malformed record


def written_products_truth(task: Task) -> BagTruth:
    """:func:`products_truth` keyed by the species as written (the canonical truth where it cannot be)."""
    raw = task.ground_truth.get("products")
    inputs = task.meta.get("inputs")
    key = _cache_key(task, _mapping_key(raw), _mapping_key(inputs))
    if key is not None:
        return _written_products_cached(key)
    return _products_truth(_Record(task.id, task.meta.get("encoding")), raw, inputs)


def _byproduct_truth(record: _Record, raw: Any, written: bool = False) -> BagTruth:
    species = list(raw) if isinstance(raw, Mapping) else []
    encoding = _task_encoding(record, species)
    keys = _WrittenKeys(encoding) if written else None
    bag, formulas = _species_bag(record, "ground_truth['byproducts']", raw, encoding, keys)
    # the shown equation lacks exactly the byproducts' atoms: a prediction conserves iff its
    # element totals equal theirs
    return _bag_truth(encoding, bag, formulas, tuple(pairs_of(bag, formulas)), keys)


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


@lru_cache(maxsize=4096)
def _written_byproduct_cached(key: tuple) -> BagTruth:
    task_id, encoding, raw = key
    try:
        return _byproduct_truth(_Record(task_id, encoding), dict(raw), written=True)
    except (_Canonical, TaskFormatError):
        return _byproduct_truth_cached(key)  # raises for a malformed record


def written_byproduct_truth(task: Task) -> BagTruth:
    """:func:`byproduct_truth` keyed by the species as written (the canonical truth where it cannot be)."""
    raw = task.ground_truth.get("byproducts")
    key = _cache_key(task, _mapping_key(raw))
    if key is not None:
        return _written_byproduct_cached(key)
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
    #: written build only: each species string of the record -> its key (None: the canonical build)
    written: Mapping[str, Any] | None = None
    #: written build only: whether ``coefficients`` themselves are a correct answer (balanced and minimal)
    exact: bool = False


def _balance_truth(task: _Record, reactants: Any, products: Any, coefficients: Any,
                   written: bool = False) -> BalanceTruth:
    for name, value in (("reactants", reactants), ("products", products), ("coefficients", coefficients)):
        if not isinstance(value, list) or not value:
            raise TaskFormatError(f"task {task.id!r}: ground_truth[{name!r}] must be a non-empty list")
    species = list(reactants) + list(products)
    if len(coefficients) != len(species):
        raise TaskFormatError(
            f"task {task.id!r}: {len(coefficients)} coefficients for {len(species)} species in ground_truth"
        )
    encoding = _task_encoding(task, species)
    written_keys = _WrittenKeys(encoding) if written else None
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
    coefs = tuple(_int_coefficient(task, f"ground_truth['coefficients'][{i}]", k) for i, k in enumerate(coefficients))
    elements = sorted({el for f in formulas for el, _ in f.counts})
    rows = tuple(elements) + (("charge",) if any(f.charge for f in formulas) else ())
    if written_keys is None:
        return BalanceTruth(encoding, len(reactants), tuple(formulas), tuple(keys), coefs, index, rows)
    written = {text: parts[0].key for text, parts in written_keys.written().items()}
    exact = not _balance_delta(len(reactants), formulas, coefs) and gcd(*coefs) == 1  # coefficients are at least 1
    return BalanceTruth(encoding, len(reactants), tuple(formulas), tuple(keys), coefs, index, rows, written, exact)


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


def _formula_balance_written(reactants: tuple[str, ...], products: tuple[str, ...],
                             coefficients: tuple[int, ...]) -> BalanceTruth | None:
    """The written balance truth of a formula-encoded record with string species and integer coefficients
    (what :func:`_balance_truth` builds with ``written=True``); None: use the general builder."""
    n_reactants = len(reactants)
    species = reactants + products
    if len(coefficients) != len(species):
        return None
    formulas: list[Formula] = []
    keys: list[Any] = []
    index: dict[tuple[int, Any], int] = {}
    written: dict[str, Any] = {}
    total: dict[str, int] = {}  # products minus reactants, per element (every element of the record a key)
    charge = 0
    charged = False
    for i, text in enumerate(species):
        parts = formula_parts(text)
        k = coefficients[i]
        if parts is None or not 1 <= k <= MAX_COEFFICIENT:
            return None
        key, formula, _count = parts[0]
        side = 0 if i < n_reactants else 1
        slot = (side, key)
        if slot in index:
            return None
        index[slot] = i
        keys.append(key)
        formulas.append(formula)
        written[text] = key
        signed = k if side else -k
        for el, n in formula.counts:
            total[el] = total.get(el, 0) + n * signed
        if formula.charge:
            charged = True
            charge += formula.charge * signed
    rows = (*sorted(total), "charge") if charged else tuple(sorted(total))
    exact = not charge and not any(total.values()) and gcd(*coefficients) == 1  # balanced and minimal
    return BalanceTruth("formula", n_reactants, tuple(formulas), tuple(keys), coefficients, index, rows, written, exact)


@lru_cache(maxsize=4096)
def _written_balance_cached(key: tuple) -> BalanceTruth:
    task_id, encoding, reactants, products, coefficients = key
    if encoding == "formula":
        truth = _formula_balance_written(reactants, products, coefficients)
        if truth is not None:
            return truth
    try:
        return _balance_truth(_Record(task_id, encoding), list(reactants), list(products), list(coefficients),
                              written=True)
    except (_Canonical, TaskFormatError):
        return _balance_truth_cached(key)  # raises for a malformed record


def _typed_list(value: Any, item: type) -> bool:
    """Whether a record field is a non-empty list of exactly ``item`` values."""
    return type(value) is list and bool(value) and set(map(type, value)) == {item}


def written_balance_truth(task: Task) -> BalanceTruth:
    """:func:`balance_truth` keyed by the species as written (the canonical truth where it cannot be)."""
    gt = task.ground_truth
    reactants, products, coefficients = gt.get("reactants"), gt.get("products"), gt.get("coefficients")
    if (task.meta.get("encoding") == "formula" and _typed_list(reactants, str) and _typed_list(products, str)
            and _typed_list(coefficients, int)):  # the common record: read in one pass, kept by task id
        slot = _record_slot("balance", task.id)
        fields = (reactants, products, coefficients)
        truth = _slot_value(slot, fields)
        if truth is None:
            truth = _formula_balance_written(tuple(reactants), tuple(products), tuple(coefficients))
            if truth is not None:
                slot[:] = [((list(reactants), list(products), list(coefficients)), truth)]
        if truth is not None:
            return truth
    key = _cache_key(task, _list_key(reactants, str), _list_key(products, str), _list_key(coefficients, int))
    if key is not None:
        return _written_balance_cached(key)
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


__all__ = [
    "BagTruth", "BalanceTruth", "as_task", "bag_delta", "balance_delta", "balance_truth", "byproduct_truth",
    "exact_metrics", "formula_products_exact", "pairs_of", "products_truth", "validate_task", "written_balance_truth",
    "written_byproduct_truth", "written_products_truth",
]
