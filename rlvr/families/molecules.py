"""Registry provider for the molecular families ``mol.count``, ``mol.index`` and ``mol.gen``.

Imported lazily by :mod:`rlvr.registry` the first time a ``mol.`` family is asked for.
"""
from __future__ import annotations

from rlvr.generators.molecules.splits import SPLITS
from rlvr.generators.molecules.tasks import MolTaskConfig, generate_task
from rlvr.registry import FamilySpec
from rlvr.checkers.molecules import REWARD_MODES, check, oracle
from rlvr.task import Task


def generate_count(config: MolTaskConfig, split: str, seed: int, index: int) -> Task:
    """A feature-counting task (MolecularIQ "count")."""
    return generate_task("count", config, split, seed, index)


def generate_index(config: MolTaskConfig, split: str, seed: int, index: int) -> Task:
    """An index-based attribution task (MolecularIQ "index")."""
    return generate_task("index", config, split, seed, index)


def generate_gen(config: MolTaskConfig, split: str, seed: int, index: int) -> Task:
    """A constrained-generation task (MolecularIQ "generation")."""
    return generate_task("gen", config, split, seed, index)


FAMILIES: list[FamilySpec] = [
    FamilySpec(
        name="mol.count",
        config_cls=MolTaskConfig,
        generate=generate_count,
        check=check,
        oracle=oracle,
        splits=SPLITS,
        reward_modes=tuple(REWARD_MODES),
        description="MolecularIQ feature counting: integer counts (and formula/scaffold strings) of 1-5 features of a molecule",
    ),
    FamilySpec(
        name="mol.index",
        config_cls=MolTaskConfig,
        generate=generate_index,
        check=check,
        oracle=oracle,
        splits=SPLITS,
        reward_modes=tuple(REWARD_MODES),
        description="MolecularIQ index-based attribution: atom-index lists of 1-5 features, indexed as in the SMILES shown",
    ),
    FamilySpec(
        name="mol.gen",
        config_cls=MolTaskConfig,
        generate=generate_gen,
        check=check,
        oracle=oracle,
        splits=SPLITS,
        reward_modes=tuple(REWARD_MODES),
        description="MolecularIQ constrained generation: a molecule satisfying 1-5 feature constraints (==, >=, <=, ranges)",
    ),
]
