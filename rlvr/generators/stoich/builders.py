"""Pure task builders: a stoichiometry task from a
:class:`~rlvr.generators.stoich.reaction.ReactionView` and explicit coefficients (no corpus, no
randomness beyond an optional order RNG). The generators of :mod:`rlvr.generators.stoich.tasks` use
them, and so do tests reproducing the paper's worked examples.

Each builder takes the family name the task is filed under (its ``family`` field, and part of its
id) from the caller; what kind of task it builds is decided by the builder and its arguments.
"""
from __future__ import annotations

import dataclasses
import random
from math import gcd
from typing import Any, Mapping

from rlvr.chem.linalg import nullity
from rlvr.chem.notation import format_bag
from rlvr.generators.stoich import prompts
from rlvr.generators.stoich.configs import SEMANTICS, BalanceConfig, ByproductConfig, ProductsConfig, StoichConfig
from rlvr.generators.stoich.reaction import ReactionView
from rlvr.task import Task, config_key, task_id


def type1_bags(view: ReactionView, k: int) -> tuple[dict[str, int], dict[str, int]]:
    """Type 1: every coefficient of the reference reaction times ``k`` -> (inputs, outputs)."""
    inputs = {s: k * c for s, c in view.reactants + view.reagents}
    outputs = {s: k * c for s, c in view.products + view.reagents}
    return inputs, outputs


def sample_type2(view: ReactionView, rng: random.Random, lo: int, hi: int) -> dict[str, int]:
    """One k_m in [lo, hi] per molecule (reactants, reagents, products, in that order)."""
    return {s: rng.randint(lo, hi) for s in view.species()}


def type2_bags(view: ReactionView, ks: Mapping[str, int], semantics: str = "limiting") -> tuple[dict[str, int], dict[str, int], int]:
    """Type 2 -> (inputs, outputs, number of times the reaction runs); see module docs for the semantics."""
    if semantics not in SEMANTICS:
        raise ValueError(f"semantics must be one of {list(SEMANTICS)}")
    k_hat = min(ks[s] for s in view.species())
    inputs: dict[str, int] = {}
    for s, c in view.reactants + view.reagents:
        inputs[s] = ks[s] * c
    for s, c in view.products:
        if ks[s] > k_hat:
            inputs[s] = (ks[s] - k_hat) * c
    outputs: dict[str, int] = {}
    if semantics == "limiting":
        runs = min(inputs[s] // c for s, c in view.reactants)
        outputs = dict(inputs)
        for s, c in view.reactants:
            outputs[s] -= runs * c
        for s, c in view.products:
            outputs[s] = outputs.get(s, 0) + runs * c
    else:
        runs = k_hat
        for s, c in view.products + view.reagents:
            outputs[s] = ks[s] * c
        for s, c in view.reactants:
            if ks[s] > k_hat:
                outputs[s] = (ks[s] - k_hat) * c
    return inputs, {s: k for s, k in outputs.items() if k}, runs


def _ordered(bag: Mapping[str, int], rng: random.Random | None) -> dict[str, int]:
    keys = list(bag)
    if rng is not None:
        rng.shuffle(keys)
    return {s: int(bag[s]) for s in keys}


def reference_equation(view: ReactionView, k: int = 1) -> str:
    """``{1}CO2.{4}H2.{1}Ni >> {1}CH4.{2}H2O.{1}Ni`` (reagents on both sides, as ChemAlgebra eq. 6/7)."""
    left = [(s, k * c) for s, c in view.reactants + view.reagents]
    right = [(s, k * c) for s, c in view.products + view.reagents]
    return f"{format_bag(left)} >> {format_bag(right)}"


def _base_meta(config: StoichConfig, split: str, seed: int, index: int, view: ReactionView) -> dict[str, Any]:
    return {
        "split": split,
        "seed": int(seed),
        "index": int(index),
        "encoding": view.encoding,
        "reaction_class": view.rclass,
        "reaction_key": view.key,
        "product_mw": round(float(view.product_mw), 3),
        "products_have_stereo": bool(view.stereo),
        "config": _jsonable(dataclasses.asdict(config)),
    }


def _jsonable(value: Any) -> Any:
    """Tuples as lists, so a task equals its own JSON round trip."""
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return value


def build_products_task(
    family: str,
    view: ReactionView,
    *,
    k: int | None = None,
    ks: Mapping[str, int] | None = None,
    config: ProductsConfig | None = None,
    split: str = "train",
    seed: int = 0,
    index: int = 0,
    coefficient_set: str = "in",
    phrasing: int = 0,
    order_rng: random.Random | None = None,
    extra_meta: Mapping[str, Any] | None = None,
) -> Task:
    """A products task from a reaction view: Type 1 given the factor ``k``, Type 2 given one
    multiplier per molecule ``ks`` (exactly one of the two); filed under ``family``."""
    config = config or ProductsConfig(encoding=view.encoding)
    if (k is None) == (ks is None):
        raise ValueError(f"{family}: give either the factor k (Type 1) or one k per molecule ks (Type 2)")
    if k is not None:
        inputs, outputs = type1_bags(view, k)
        runs, coefficients = k, {"factor": k}
    else:
        inputs, outputs, runs = type2_bags(view, ks, config.semantics)  # type: ignore[arg-type]
        coefficients = {"sampled_k": dict(ks)}  # type: ignore[arg-type]
    view.assert_conserves(inputs, outputs, f"{family} ground truth")
    inputs = _ordered(inputs, order_rng)
    outputs = _ordered(outputs, order_rng)
    reference = reference_equation(view) if config.prompt_mode == "open" else None
    meta = _base_meta(config, split, seed, index, view)
    meta.update({
        "inputs": inputs,
        "reaction": view.as_dict(),
        "semantics": config.semantics,
        "prompt_mode": config.prompt_mode,
        "coefficient_set": coefficient_set,
        "runs": int(runs),
        **coefficients,
        **(extra_meta or {}),
    })
    return Task(
        id=task_id(family, split, seed, index, config_key(config)),
        family=family,
        prompt=prompts.products_prompt(inputs, view.encoding, config.semantics, phrasing, reference),
        ground_truth={"products": outputs},
        meta=meta,
    )


def build_balance_task(
    family: str,
    view: ReactionView,
    *,
    config: BalanceConfig | None = None,
    split: str = "train",
    seed: int = 0,
    index: int = 0,
    phrasing: int = 0,
    order_rng: random.Random | None = None,
    extra_meta: Mapping[str, Any] | None = None,
) -> Task:
    """A balancing task: the reaction's species without coefficients (reagents omitted)."""
    config = config or BalanceConfig(encoding=view.encoding)
    reactants = _ordered(dict(view.reactants), order_rng)
    products = _ordered(dict(view.products), order_rng)
    species = [view.composition(s) for s in [*reactants, *products]]
    if nullity(species, balanced=True) != 1:
        raise ValueError("balance task needs an equation with a one-dimensional solution space")
    g = gcd(*reactants.values(), *products.values())
    coefficients = [c // g for c in [*reactants.values(), *products.values()]]
    view.assert_conserves({s: c // g for s, c in reactants.items()}, {s: c // g for s, c in products.items()},
                          f"{family} ground truth")
    meta = _base_meta(config, split, seed, index, view)
    meta.update({"reaction": view.as_dict(), "n_species": len(coefficients), **(extra_meta or {})})
    return Task(
        id=task_id(family, split, seed, index, config_key(config)),
        family=family,
        prompt=prompts.balance_prompt(list(reactants), list(products), view.encoding, phrasing),
        ground_truth={"reactants": list(reactants), "products": list(products), "coefficients": coefficients},
        meta=meta,
    )


def build_byproduct_task(
    family: str,
    view: ReactionView,
    *,
    k: int = 1,
    config: ByproductConfig | None = None,
    split: str = "train",
    seed: int = 0,
    index: int = 0,
    phrasing: int = 0,
    order_rng: random.Random | None = None,
    extra_meta: Mapping[str, Any] | None = None,
) -> Task:
    """A byproduct task: the reaction (times ``k``) with its byproducts removed."""
    config = config or ByproductConfig(encoding=view.encoding)
    if not view.byproducts or not view.main_products:
        raise ValueError("byproduct task needs a reaction with byproducts and a main product")
    left = _ordered({s: k * c for s, c in view.reactants + view.reagents}, order_rng)
    right = _ordered({s: k * c for s, c in view.main_products + view.reagents}, order_rng)
    truth = _ordered({s: k * c for s, c in view.byproducts}, order_rng)
    completed = dict(right)
    for s, c in truth.items():
        completed[s] = completed.get(s, 0) + c
    view.assert_conserves(left, completed, f"{family} ground truth")
    equation = f"{format_bag(left)} >> {format_bag(right)}"
    meta = _base_meta(config, split, seed, index, view)
    meta.update({
        "reaction": {
            "reactants": {s: k * c for s, c in view.reactants},
            "reagents": {s: k * c for s, c in view.reagents},
            "products": {s: k * c for s, c in view.products},
        },
        "equation": equation,
        "shown": {"left": left, "right": right},
        "scale": int(k),
        **(extra_meta or {}),
    })
    return Task(
        id=task_id(family, split, seed, index, config_key(config)),
        family=family,
        prompt=prompts.byproduct_prompt(equation, view.encoding, phrasing),
        ground_truth={"byproducts": truth},
        meta=meta,
    )
