"""rlvr: reinforcement learning with verifiable rewards for chemistry.

Public API: :func:`sample`, :func:`verify` (:func:`prepare` for a batch), :func:`balance`, :func:`molecule_features`,
:class:`Task`, :class:`Verdict`. Heavy dependencies load lazily.
"""
from __future__ import annotations

from typing import Any

from rlvr.api import generate, oracle_completion, prepare, regenerate, sample, verify
from rlvr.registry import get_family, list_families
from rlvr.task import Task, TaskFormatError, Verdict

__version__ = "0.1.0"


def balance(reactants: list[str], products: list[str], encoding: str = "auto") -> list[int]:
    """Smallest positive integer coefficients for ``reactants -> products`` (formulas or SMILES).

    See :func:`rlvr.chem.balance.balance`; raises ``ValueError`` naming the reason when the
    equation is impossible or its solution space is not one-dimensional.
    """
    from rlvr.chem.balance import balance as _balance

    return _balance(reactants, products, encoding)


def molecule_features(smiles: str) -> dict[str, Any]:
    """Every MolecularIQ feature value of a molecule, keyed as the tasks key them."""
    from rlvr.chem.molecules.features import molecule_features as _features

    return _features(smiles)


__all__ = [
    "Task", "TaskFormatError", "Verdict", "balance", "generate", "get_family", "list_families",
    "molecule_features", "oracle_completion", "prepare", "regenerate", "sample", "verify", "__version__",
]
