"""The molecular families ``mol.count``, ``mol.index`` and ``mol.gen`` (MolecularIQ): the one place that
joins their generators, checker, worked solutions, feedback, baselines, eval suite and report layout.

Imported lazily by :mod:`rlvr.registry` the first time a ``mol.`` family is asked for.
"""
from __future__ import annotations

from functools import partial

from rlvr.checkers.molecules import REWARD_MODES, check, oracle, prepare
from rlvr.families.molecules.baselines import copy_molecule, copy_prompt
from rlvr.families.molecules.difficulty import MOLECULE_DIFFICULTY
from rlvr.families.molecules.feedback import features_feedback, generation_feedback
from rlvr.families.molecules.perturb import constraint_breaking_edits, feature_steps
from rlvr.families.molecules.renderings import renderings
from rlvr.families.molecules.report import LAYOUT
from rlvr.generators.molecules.questions import load_questions
from rlvr.generators.molecules.splits import SPLITS
from rlvr.generators.molecules.tasks import MolTaskConfig, generate_task, molecule_pool_size
from rlvr.registry import FamilyGroup, FamilySpec, Items, SuiteEntry
from rlvr.solutions import worked
from rlvr.solutions.molecules import solve_features, solve_generation
from rlvr.task import Task

#: tasks per entry of the ``molecules`` eval suite
SUITE_SIZE = 12


def generate_count(config: MolTaskConfig, split: str, seed: int, index: int) -> Task:
    """A feature-counting task (MolecularIQ "count")."""
    return generate_task("count", "mol.count", config, split, seed, index)


def generate_index(config: MolTaskConfig, split: str, seed: int, index: int) -> Task:
    """An index-based attribution task (MolecularIQ "index")."""
    return generate_task("index", "mol.index", config, split, seed, index)


def generate_gen(config: MolTaskConfig, split: str, seed: int, index: int) -> Task:
    """A constrained-generation task (MolecularIQ "generation")."""
    return generate_task("gen", "mol.gen", config, split, seed, index)


def import_questions(path: str) -> list[Task]:
    """The MolecularIQ benchmark's published questions in ``path`` as tasks scored the benchmark's way."""
    tasks, _ = load_questions(path, families={"count": "mol.count", "index": "mol.index", "gen": "mol.gen"})
    if not tasks:
        raise ValueError(f"{path}: no MolecularIQ question")
    return tasks


GROUP = FamilyGroup(
    name="molecules",
    title="Molecular structure",
    report=LAYOUT,
    suite=tuple(SuiteEntry(family, split, SUITE_SIZE, {"load": load})
                for family in ("mol.count", "mol.index", "mol.gen") for split in ("easy", "hard") for load in (1, 2, 3, 5)),
    suite_description="MolecularIQ count/index/generation x easy/hard x load 1/2/3/5",
    env_id="rlvr/MolecularIQ-v0",
    default_family="mol.count",
    import_tasks=import_questions,
)



def _molecule_key(task: Task) -> str:
    """A molecular task's item: its molecule (canonical SMILES), whatever the question and presentation."""
    return str(task.meta["canonical_smiles"])


#: what every molecular family shares
_molecule = partial(FamilySpec, config_cls=MolTaskConfig, check=check, oracle=oracle, splits=SPLITS, group=GROUP,
                    reward_modes=tuple(REWARD_MODES), check_options=("reward",), prepare=prepare,
                    difficulty=MOLECULE_DIFFICULTY, renderings=renderings,
                    items=Items(noun="molecule", key=_molecule_key, pool_size=molecule_pool_size))
#: what the two feature families (count, index) share besides
_features = partial(_molecule, perturb=feature_steps, solve=worked(solve_features), feedback=features_feedback,
                    baselines={"copy-input": copy_molecule})

FAMILIES: list[FamilySpec] = [
    _features(
        name="mol.count",
        generator=generate_count,
        option_grid=({"load": 1}, {"load": 3, "p_randomized": 1.0}, {"load": 2, "few_shot": 1}),
        description="MolecularIQ feature counting: integer counts (and formula/scaffold strings) of 1-5 features of a molecule",
    ),
    _features(
        name="mol.index",
        generator=generate_index,
        option_grid=({"load": 1}, {"load": 3, "p_kekulized": 1.0}),
        description="MolecularIQ index-based attribution: atom-index lists of 1-5 features, indexed as in the SMILES shown",
    ),
    _molecule(
        name="mol.gen",
        perturb=constraint_breaking_edits,
        generator=generate_gen,
        solve=worked(solve_generation),
        feedback=generation_feedback,
        baselines={"copy-input": copy_prompt},
        option_grid=({"load": 1}, {"load": 3, "ops": ["=="]}),
        description="MolecularIQ constrained generation: a molecule satisfying 1-5 feature constraints (==, >=, <=, ranges)",
    ),
]

__all__ = ["FAMILIES", "GROUP"]
