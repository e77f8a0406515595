"""Constraints on molecular features: ``key op value`` (``carbon_atom_count >= 5``).

A :class:`Constraint` is what a constrained-generation task asks for; generators build them from a
reference molecule, the checker tests a generated molecule against them and worked solutions
explain them, all with the same operators (:data:`OPS`). In task records a constraint is the dict
``{"key", "op", "value"}`` (:meth:`Constraint.to_dict`); :meth:`Constraint.parse` also reads
MolecularIQ's ``type``/``property``, ``operator`` and ``min_value``/``max_value`` spellings.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from rlvr.chem.formula import same_formula
from rlvr.chem.smiles import same_smiles

#: the operators; ``range`` is inclusive ``[lo, hi]``
OPS: tuple[str, ...] = ("==", ">=", "<=", ">", "<", "range")
_OP_ALIASES = {"=": "==", "eq": "==", "ge": ">=", "le": "<=", "gt": ">", "lt": "<", "between": "range"}


def constraint_satisfied(actual: Any, op: str, value: Any, key: str = "") -> bool:
    """Whether a feature value satisfies ``actual <op> value`` (``range``: inclusive ``[lo, hi]``).

    A list value (index form, product list) counts its elements; strings compare only with ``==``:
    formulas as compositions, SMILES-valued keys (scaffolds) as molecules, others as text.
    """
    if isinstance(actual, (list, tuple)):
        actual = len(actual)
    if isinstance(value, str) or isinstance(actual, str):
        if op != "==" or not isinstance(value, str) or not isinstance(actual, str):
            return False
        if "formula" in key.lower():
            return same_formula(actual, value)
        if "smiles" in key.lower() or "scaffold" in key.lower():
            return same_smiles(actual, value)
        return actual == value
    if actual is None:
        return False
    if isinstance(actual, bool):
        actual = int(actual)
    if op == "==":
        return actual == value
    if op == ">=":
        return actual >= value
    if op == "<=":
        return actual <= value
    if op == ">":
        return actual > value
    if op == "<":
        return actual < value
    if op == "range":
        lo, hi = value
        return lo <= actual <= hi
    raise ValueError(f"unknown constraint operator {op!r}")


@dataclass(frozen=True)
class Constraint:
    """One constraint ``key op value`` on a feature key (``value`` is ``[lo, hi]`` for ``range``)."""

    key: str
    op: str
    value: Any

    @classmethod
    def parse(cls, raw: Mapping[str, Any], convention: str = "rlvr") -> "Constraint":
        """A constraint from a task record (``ValueError`` naming what is wrong).

        Accepts ``{"key", "op", "value"}`` and MolecularIQ's ``type``/``property``, ``operator`` and
        ``min_value``/``max_value`` spellings (``=`` means ``==``). MolecularIQ's functional-group
        ``_nbrInstances`` keys count instances, which rlvr's ``_count`` keys do, so they become
        ``_count`` keys, except under ``convention="moleculariq"``, where ``_count`` counts atoms
        and ``_nbrInstances`` keys are kept.
        """
        key = raw.get("key", raw.get("type", raw.get("property")))
        if not isinstance(key, str) or not key:
            raise ValueError(f"constraint without a key: {dict(raw)}")
        op = str(raw.get("op", raw.get("operator", "=="))).strip()
        op = _OP_ALIASES.get(op, op)
        if op not in OPS:
            raise ValueError(f"unknown constraint operator {op!r}")
        value = raw.get("value")
        if op == "range":
            if isinstance(value, (list, tuple)) and len(value) == 2:
                lo, hi = value
            else:
                lo, hi = raw.get("min_value"), raw.get("max_value")
            if lo is None or hi is None:
                raise ValueError(f"range constraint needs [lo, hi]: {dict(raw)}")
            value = [lo, hi]
        elif value is None:
            value = raw.get("min_value") if op in (">=", ">") else raw.get("max_value")
            if value is None:
                raise ValueError(f"constraint without a value: {dict(raw)}")
        if key.endswith("_nbrInstances") and convention != "moleculariq":
            key = key[: -len("_nbrInstances")] + "_count"
        return cls(key, op, value)

    def holds(self, actual: Any) -> bool:
        """Whether a recomputed feature value satisfies this constraint."""
        return constraint_satisfied(actual, self.op, self.value, self.key)

    def to_dict(self) -> dict[str, Any]:
        """The task-record form ``{"key", "op", "value"}`` (a ``range`` value as a new list: parsed
        constraints are shared between verdicts, the dicts given out are not)."""
        value = self.value
        return {"key": self.key, "op": self.op, "value": list(value) if type(value) is list else value}


def normalize_constraint(raw: Mapping[str, Any], convention: str = "rlvr") -> dict[str, Any]:
    """A constraint record in the ``{"key", "op", "value"}`` form (see :meth:`Constraint.parse`)."""
    return Constraint.parse(raw, convention).to_dict()


__all__ = ["OPS", "Constraint", "constraint_satisfied", "normalize_constraint"]
