"""Reading the fields of a stoichiometry task record: its encoding, coefficients and species bags,
validated (:class:`rlvr.task.TaskFormatError` for a malformed record, never for a model's answer),
and the keys under which a record's parsed truth is cached.

Species are keyed either by their canonical identity (Hill formula, RDKit canonical SMILES) or,
with :class:`WrittenKeys`, as the record writes them (see :mod:`rlvr.checkers.stoich_truth`).
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from math import isfinite
from typing import Any

from rlvr.checkers.stoich_species import SpeciesPart, formula_parts, smiles_written_parts, species_parts
from rlvr.chem.formula import Formula
from rlvr.chem.notation import MAX_COEFFICIENT
from rlvr.chem.species import ENCODINGS, StrictEncoding, looks_like_smiles
from rlvr.task import Task, TaskFormatError


def as_task(task: Task | Mapping[str, Any]) -> Task:
    """``task`` as a :class:`Task` (a dict record is converted)."""
    return Task.from_dict(task) if not isinstance(task, Task) else task


class Record:
    """What the truth builders read of a task besides its fields: its id and ``meta["encoding"]``."""

    __slots__ = ("encoding", "id")

    def __init__(self, task_id: str, encoding: Any) -> None:
        self.id = task_id
        self.encoding = encoding


def task_encoding(task: Record, species: Iterable[str]) -> StrictEncoding:
    """``meta["encoding"]``; when absent, SMILES if any ground-truth species can only be SMILES."""
    enc = task.encoding
    if enc is None:
        return "smiles" if any(isinstance(s, str) and looks_like_smiles(s) for s in species) else "formula"
    if enc not in ENCODINGS:
        raise TaskFormatError(f"task {task.id!r}: meta['encoding'] must be 'formula' or 'smiles', got {enc!r}")
    return enc


def int_coefficient(task: Record | Task, where: str, value: Any) -> int:
    """A record's coefficient as an ``int`` in ``[1, MAX_COEFFICIENT]``; raises for anything else."""
    if type(value) is int and 1 <= value <= MAX_COEFFICIENT:
        return value
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not isfinite(value) or int(value) != value:
        raise TaskFormatError(f"task {task.id!r}: {where} must be an integer, got {value!r}")
    value = int(value)
    if value < 1 or value > MAX_COEFFICIENT:
        raise TaskFormatError(f"task {task.id!r}: {where} must be in [1, {MAX_COEFFICIENT}], got {value}")
    return value


class NeedsCanonical(Exception):
    """The written keys cannot stand for canonical ones in this record: build the canonical truth."""


class WrittenKeys:
    """Species keys of one record as written: the composition (formulas), or the SMILES string."""

    __slots__ = ("encoding", "seen")

    def __init__(self, encoding: StrictEncoding) -> None:
        self.encoding = encoding
        self.seen: dict[str, tuple[SpeciesPart, ...]] = {}  # every species string met -> its parts

    def parts(self, text: Any) -> tuple[SpeciesPart, ...]:
        """The species' one part; raises :class:`NeedsCanonical` for anything the canonical build must judge."""
        if type(text) is not str:
            raise NeedsCanonical
        parts = formula_parts(text) if self.encoding == "formula" else smiles_written_parts(text)
        if parts is None:
            raise NeedsCanonical
        self.seen[text] = parts
        return parts

    def identity(self, text: Any) -> tuple[Any, Formula]:
        """``(key, composition)`` of the species (as :meth:`parts`)."""
        part = self.parts(text)[0]
        return part.key, part.formula

    def written(self) -> dict[str, tuple[SpeciesPart, ...]]:
        """Every species string met -> its parts; raises :class:`NeedsCanonical` when two different SMILES
        strings have the same composition (they may be one molecule)."""
        seen = self.seen
        if self.encoding != "formula" and len({parts[0].formula for parts in seen.values()}) != len(seen):
            raise NeedsCanonical
        return seen


def species_bag(task: Record | Task, where: str, raw: Any, encoding: StrictEncoding,
                keys: WrittenKeys | None = None) -> tuple[dict[Any, int], dict[Any, Formula]]:
    """A ``{species: coefficient}`` record field as a canonical bag (fragments split) plus compositions.

    With ``keys``, species are keyed as written instead (see :class:`WrittenKeys`).
    """
    if not isinstance(raw, Mapping) or not raw:
        raise TaskFormatError(f"task {task.id!r}: {where} must be a non-empty {{species: coefficient}} dict")
    bag: dict[Any, int] = {}
    formulas: dict[str, Formula] = {}
    for species, k in raw.items():
        k = int_coefficient(task, f"{where}[{species!r}]", k) if type(k) is not int or not 1 <= k <= MAX_COEFFICIENT else k
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
    """A bag as ``(composition, coefficient)`` pairs."""
    return [(formulas[key], k) for key, k in bag.items()]


# --------------------------------------------------------------------------- cache keys

_INT_ONLY = frozenset((int,))


def mapping_key(value: Any) -> tuple | None:
    """``{species: int}`` record field as a hashable key (None: another shape, not cached).

    The values must be exactly ``int`` (``True`` or ``Decimal(1)`` equal ``1`` but are malformed
    coefficients), so a key equal to a cached one has ``int`` values too. Species need no check: a
    string equals only a string, and a record with any other species is malformed (never cached).
    """
    if not (type(value) is dict and value and set(map(type, value.values())) == _INT_ONLY):
        return None
    return tuple(value.items())


def list_key(value: Any, item: type) -> tuple | None:
    """A list of ``item`` values as a hashable key (None: another shape, not cached)."""
    if type(value) is not list or not value or set(map(type, value)) != {item}:
        return None
    return tuple(value)


def cache_key(task: Task, *parts: Any) -> tuple | None:
    """The key under which a task's parsed truth is cached: id, ``meta["encoding"]`` and the fields read."""
    if None in parts:
        return None
    encoding = task.meta.get("encoding")
    if encoding is not None and type(encoding) is not str:
        return None
    return (task.id, encoding, *parts)


__all__ = [
    "NeedsCanonical", "Record", "WrittenKeys", "as_task", "cache_key", "int_coefficient", "list_key", "mapping_key",
    "pairs_of", "species_bag", "task_encoding",
]
