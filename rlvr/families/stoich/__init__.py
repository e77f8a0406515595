"""The stoichiometry families (``stoich.*``): the one place that joins their generators, checkers,
worked solutions, feedback, baselines, prompt styles, eval suite and report layout.

Imported lazily by :mod:`rlvr.registry` the first time a ``stoich.`` family is asked for.
"""
from __future__ import annotations

from functools import partial

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
from rlvr.families.stoich.difficulty import BALANCE_DIFFICULTY, BYPRODUCT_DIFFICULTY, PRODUCTS_DIFFICULTY
from rlvr.families.stoich.feedback import balance_feedback, byproduct_feedback, products_feedback
from rlvr.families.stoich.perturb import coefficient_steps
from rlvr.families.stoich.prompts import PRODUCT_STYLES, unscaled
from rlvr.families.stoich.renderings import bag_renderings, balance_renderings
from rlvr.families.stoich.report import LAYOUT
from rlvr.generators.stoich.tasks import (
    BASIC_SPLITS,
    PRODUCT_SPLITS,
    BalanceConfig,
    ByproductConfig,
    ProductsConfig,
    balance_generator,
    byproduct_generator,
    pool_size,
    products_generator,
)
from rlvr.registry import FamilyGroup, FamilySpec, Items, SuiteEntry
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



def _reaction(task) -> str:
    """A stoichiometry task's item: its reference reaction (the encoding's reaction key: in the formula
    encoding, two reactions with one formula-level equation are one)."""
    return str(task.meta["reaction_key"])


def _reactions(purpose: str) -> Items:
    return Items(noun="reaction", key=_reaction, pool_size=partial(pool_size, purpose))


#: what every stoichiometry family shares
_stoich = partial(FamilySpec, group=GROUP, reward_modes=REWARD_MODES, perturb=coefficient_steps, demo_priority=unscaled)
#: what the two ChemAlgebra product families share besides
_products = partial(_stoich, config_cls=ProductsConfig, check=check_products, oracle=oracle_products,
                    splits=PRODUCT_SPLITS, feedback=products_feedback, baselines={"copy-input": copy_inputs},
                    prompt_styles=PRODUCT_STYLES, difficulty=PRODUCTS_DIFFICULTY, items=_reactions("products"),
                    renderings=bag_renderings)
#: what balance and byproduct share besides
_basic = partial(_stoich, splits=BASIC_SPLITS, option_grid=({"encoding": "formula"}, {"encoding": "smiles"}))

FAMILIES: list[FamilySpec] = [
    _products(
        name="stoich.t1",
        generator=products_generator("stoich.t1", "t1"),
        solve=worked(solve_type1),
        option_grid=({"encoding": "formula"}, {"encoding": "smiles", "prompt_mode": "open"},
                     {"prompt_style": "compact", "prompt_mode": "open"}, {"prompt_style": "minimal", "few_shot": 1}),
        description="ChemAlgebra Type 1: predict the product bag when every coefficient is scaled by one factor.",
    ),
    _products(
        name="stoich.t2",
        generator=products_generator("stoich.t2", "t2"),
        solve=worked(solve_type2),
        option_grid=({"encoding": "formula"}, {"encoding": "smiles", "semantics": "paper"},
                     {"prompt_style": "compact", "system_prompt": "Answer briefly."}),
        description="ChemAlgebra Type 2: predict the product bag with per-molecule coefficients and leftovers.",
    ),
    _basic(name="stoich.balance", config_cls=BalanceConfig, generator=balance_generator("stoich.balance"),
           items=_reactions("balance"), check=check_balance, oracle=oracle_balance, solve=worked(solve_balance), feedback=balance_feedback,
           baselines={"copy-input": copy_equation}, difficulty=BALANCE_DIFFICULTY, renderings=balance_renderings,
           description="Balance a chemical equation with the smallest whole-number coefficients."),
    _basic(name="stoich.byproduct", config_cls=ByproductConfig, generator=byproduct_generator("stoich.byproduct"),
           items=_reactions("byproduct"), check=check_byproduct, oracle=oracle_byproduct, solve=worked(solve_byproduct), feedback=byproduct_feedback,
           baselines={"copy-input": copy_shown_left}, difficulty=BYPRODUCT_DIFFICULTY, renderings=bag_renderings,
           description="Name the byproducts (with coefficients) removed from a balanced reaction."),
]

__all__ = ["FAMILIES", "GROUP"]
