"""Registry provider for the stoichiometry families (``stoich.*``); see :mod:`rlvr.registry`."""
from __future__ import annotations

from rlvr.generators.stoich.tasks import (
    BASIC_SPLITS,
    PRODUCT_SPLITS,
    BalanceConfig,
    ByproductConfig,
    ProductsConfig,
    generate_balance,
    generate_byproduct,
    generate_t1,
    generate_t2,
)
from rlvr.registry import FamilySpec
from rlvr.checkers.stoich import (
    REWARD_MODES,
    check_balance,
    check_byproduct,
    check_products,
    oracle_balance,
    oracle_byproduct,
    oracle_products,
)

FAMILIES: list[FamilySpec] = [
    FamilySpec(
        name="stoich.balance",
        config_cls=BalanceConfig,
        generate=generate_balance,
        check=check_balance,
        oracle=oracle_balance,
        splits=BASIC_SPLITS,
        reward_modes=REWARD_MODES,
        description="Balance a chemical equation with the smallest whole-number coefficients.",
    ),
    FamilySpec(
        name="stoich.t1",
        config_cls=ProductsConfig,
        generate=generate_t1,
        check=check_products,
        oracle=oracle_products,
        splits=PRODUCT_SPLITS,
        reward_modes=REWARD_MODES,
        description="ChemAlgebra Type 1: predict the product bag when every coefficient is scaled by one factor.",
    ),
    FamilySpec(
        name="stoich.t2",
        config_cls=ProductsConfig,
        generate=generate_t2,
        check=check_products,
        oracle=oracle_products,
        splits=PRODUCT_SPLITS,
        reward_modes=REWARD_MODES,
        description="ChemAlgebra Type 2: predict the product bag with per-molecule coefficients and leftovers.",
    ),
    FamilySpec(
        name="stoich.byproduct",
        config_cls=ByproductConfig,
        generate=generate_byproduct,
        check=check_byproduct,
        oracle=oracle_byproduct,
        splits=BASIC_SPLITS,
        reward_modes=REWARD_MODES,
        description="Name the byproducts (with coefficients) removed from a balanced reaction.",
    ),
]

__all__ = ["FAMILIES"]
