"""The stoichiometry families (``stoich.*``): the one place that joins their generators, checkers,
worked solutions, feedback, baselines, prompt styles, eval suite and report layout.

Imported lazily by :mod:`rlvr.registry` the first time a ``stoich.`` family is asked for.
"""
from __future__ import annotations

from rlvr.checkers.stoich import (
    REWARD_MODES,
    check_balance,
    check_byproduct,
    check_products,
    oracle_balance,
    oracle_byproduct,
    oracle_products,
)
from rlvr.families.stoich.baselines import copy_equation, copy_inputs, copy_shown_left
from rlvr.families.stoich.difficulty import PRODUCTS_DIFFICULTY, SPECIES_DIFFICULTY
from rlvr.families.stoich.feedback import balance_feedback, byproduct_feedback, products_feedback
from rlvr.families.stoich.perturb import coefficient_steps
from rlvr.families.stoich.prompts import PRODUCT_STYLES, unscaled
from rlvr.families.stoich.report import LAYOUT
from rlvr.generators.stoich.tasks import (
    BASIC_SPLITS,
    PRODUCT_SPLITS,
    BalanceConfig,
    ByproductConfig,
    ProductsConfig,
    balance_generator,
    byproduct_generator,
    products_generator,
)
from rlvr.registry import FamilyGroup, FamilySpec, SuiteEntry
from rlvr.solutions import worked
from rlvr.solutions.byproduct import solve_byproduct
from rlvr.solutions.stoich import solve_balance, solve_type1, solve_type2

#: tasks per entry of the ``stoich`` eval suite
SUITE_SIZE = 50
ENCODINGS = ("formula", "smiles")


def _suite() -> tuple[SuiteEntry, ...]:
    """ChemAlgebra T1/T2 x formula/SMILES x in/cross/out, then balance and byproduct x formula/SMILES."""
    entries = [SuiteEntry(family, split, SUITE_SIZE, {"encoding": encoding})
               for family in ("stoich.t1", "stoich.t2") for encoding in ENCODINGS
               for split in ("test_in", "test_cross", "test_out")]
    entries += [SuiteEntry(family, "test", SUITE_SIZE, {"encoding": encoding})
                for family in ("stoich.balance", "stoich.byproduct") for encoding in ENCODINGS]
    return tuple(entries)


GROUP = FamilyGroup(
    name="stoich",
    title="Stoichiometry",
    report=LAYOUT,
    suite=_suite(),
    suite_description="ChemAlgebra T1/T2 x formula/SMILES x in/cross/out, balance, byproduct",
    env_id="rlvr/Stoichiometry-v0",
    default_family="stoich.t2",
)

_BAG_GRID = ({"encoding": "formula"}, {"encoding": "smiles"})

FAMILIES: list[FamilySpec] = [
    FamilySpec(
        name="stoich.t1",
        config_cls=ProductsConfig,
        generator=products_generator("stoich.t1", "t1"),
        check=check_products,
        oracle=oracle_products,
        splits=PRODUCT_SPLITS,
        group=GROUP,
        reward_modes=REWARD_MODES,
        perturb=coefficient_steps,
        solve=worked(solve_type1),
        feedback=products_feedback,
        baselines={"copy-input": copy_inputs},
        prompt_styles=PRODUCT_STYLES,
        demo_priority=unscaled,
        difficulty=PRODUCTS_DIFFICULTY,
        option_grid=({"encoding": "formula"}, {"encoding": "smiles", "prompt_mode": "open"},
                     {"prompt_style": "compact", "prompt_mode": "open"}, {"prompt_style": "minimal", "few_shot": 1}),
        description="ChemAlgebra Type 1: predict the product bag when every coefficient is scaled by one factor.",
    ),
    FamilySpec(
        name="stoich.t2",
        config_cls=ProductsConfig,
        generator=products_generator("stoich.t2", "t2"),
        check=check_products,
        oracle=oracle_products,
        splits=PRODUCT_SPLITS,
        group=GROUP,
        reward_modes=REWARD_MODES,
        perturb=coefficient_steps,
        solve=worked(solve_type2),
        feedback=products_feedback,
        baselines={"copy-input": copy_inputs},
        prompt_styles=PRODUCT_STYLES,
        demo_priority=unscaled,
        difficulty=PRODUCTS_DIFFICULTY,
        option_grid=({"encoding": "formula"}, {"encoding": "smiles", "semantics": "paper"},
                     {"prompt_style": "compact", "system_prompt": "Answer briefly."}),
        description="ChemAlgebra Type 2: predict the product bag with per-molecule coefficients and leftovers.",
    ),
    FamilySpec(
        name="stoich.balance",
        config_cls=BalanceConfig,
        generator=balance_generator("stoich.balance"),
        check=check_balance,
        oracle=oracle_balance,
        splits=BASIC_SPLITS,
        group=GROUP,
        reward_modes=REWARD_MODES,
        perturb=coefficient_steps,
        solve=worked(solve_balance),
        feedback=balance_feedback,
        baselines={"copy-input": copy_equation},
        demo_priority=unscaled,
        difficulty=SPECIES_DIFFICULTY,
        option_grid=_BAG_GRID,
        description="Balance a chemical equation with the smallest whole-number coefficients.",
    ),
    FamilySpec(
        name="stoich.byproduct",
        config_cls=ByproductConfig,
        generator=byproduct_generator("stoich.byproduct"),
        check=check_byproduct,
        oracle=oracle_byproduct,
        splits=BASIC_SPLITS,
        group=GROUP,
        reward_modes=REWARD_MODES,
        perturb=coefficient_steps,
        solve=worked(solve_byproduct),
        feedback=byproduct_feedback,
        baselines={"copy-input": copy_shown_left},
        demo_priority=unscaled,
        difficulty=SPECIES_DIFFICULTY,
        option_grid=_BAG_GRID,
        description="Name the byproducts (with coefficients) removed from a balanced reaction.",
    ),
]

__all__ = ["FAMILIES", "GROUP"]
