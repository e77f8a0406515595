"""Generators of the stoichiometry tasks: ChemAlgebra Type 1 and Type 2 products, balancing, byproducts.

The pure builders (a task from a reaction view and explicit coefficients) are in
:mod:`rlvr.generators.stoich.builders`, the options in :mod:`rlvr.generators.stoich.configs`. A
family binds a generator to its name (:func:`products_generator`, :func:`balance_generator`,
:func:`byproduct_generator`), giving ``(config, split, seed, index) -> Task``: task = f(family,
options, seed, split, index), random access and identical in any process. ``index -> (reaction, augmentation slot)``: consecutive
  blocks of ``augmentation`` indices share a reaction (x1 / x5 of ChemAlgebra), reactions are visited
  in a per-(seed, split, epoch) permutation of the split's pool, and coefficients come from
  :func:`rlvr.rng.task_rng`. Sampling is unlimited: after one pass (an epoch) the pool is revisited
  with fresh coefficients.

Type 2 semantics (``semantics`` option):

- ``limiting`` (default): every molecule m gets a sampled k_m; reactants and reagents are present
  as k_m times their reference coefficient, products as (k_m - k_hat) times theirs when positive
  (k_hat = min over all k_m, as appendix C). The reaction then runs n = min over reactants of
  floor(amount / reference coefficient) times: output = input + n (products - reactants), reagents
  unchanged. This is the only answer derivable from the input.
- ``paper``: appendix C as written, generalised to reference coefficients: the same input, and the
  output has k_m times the reference coefficient of every product and reagent plus (k_m - k_hat) of
  every reactant (the reaction runs k_hat times). k_hat may be set by a product's k, which the
  model never sees, so the answer is not always derivable from the input.

Both conserve atoms and charge (asserted for every task).
"""
from __future__ import annotations

import random
from functools import lru_cache
from math import gcd
from typing import Callable, Literal

from rlvr.generators.stoich import prompts
from rlvr.generators.stoich.builders import build_balance_task, build_byproduct_task, build_products_task, sample_type2
from rlvr.generators.stoich.configs import (
    BASIC_SPLITS,
    PRODUCT_SPLITS,
    BalanceConfig,
    ByproductConfig,
    ProductsConfig,
    StoichConfig,
)
from rlvr.generators.stoich.corpus import get_corpus
from rlvr.generators.stoich.corpus_model import Corpus
from rlvr.generators.stoich.splits import cross_half, reaction_pool, reaction_splits
from rlvr.rng import stable_hash, task_rng, unit_interval
from rlvr.task import Task

#: the ChemAlgebra task types of the products tasks: Type 1 (one factor) and Type 2 (one per molecule)
ProductType = Literal["t1", "t2"]
PRODUCT_TYPES: tuple[ProductType, ...] = ("t1", "t2")
#: a generator as a family binds it
Generator = Callable[[StoichConfig, str, int, int], Task]


@lru_cache(maxsize=64)
def _permutation(n: int, family: str, seed: int, split: str, epoch: int) -> tuple[int, ...]:
    order = list(range(n))
    random.Random(stable_hash("stoich-order", family, seed, split, epoch)).shuffle(order)
    return tuple(order)


def pick_reaction(pool: tuple[int, ...], family: str, seed: int, split: str, index: int, augmentation: int = 1) -> tuple[int, int, int]:
    """``index -> (reaction index, augmentation slot, epoch)``; random access, one pass per epoch."""
    if index < 0:
        raise ValueError(f"task index must be >= 0, got {index}")
    if not pool:
        raise ValueError(f"{family}: split {split!r} has no usable reactions (try another corpus, encoding or split mode)")
    j, slot = divmod(index, augmentation)
    epoch, pos = divmod(j, len(pool))
    return pool[_permutation(len(pool), family, seed, split, epoch)[pos]], slot, epoch


def _corpus(config: StoichConfig) -> Corpus:
    return get_corpus(config.corpus)


def _phrasing(config: StoichConfig, rng: random.Random) -> int:
    return config.phrasing if config.phrasing is not None else rng.randrange(prompts.N_PHRASINGS)


def _check_split(split: str, valid: tuple[str, ...], family: str) -> None:
    if split not in valid:
        raise ValueError(f"{family}: unknown split {split!r}; valid splits: {list(valid)}")


def products_plan(split: str, config: ProductsConfig) -> tuple[str, str]:
    """``task split -> (reaction split, coefficient rule)``; the rule is ``in``, ``out``, ``cross`` or ``cross_swap``."""
    return {
        "train": ("train", "in"),
        "valid": ("valid", "in"),
        "test_in": ("test", "in"),
        "test_out": ("test", "out"),
        "train_cross": ("train", "cross"),
        "valid_cross": ("valid", "cross"),
        "test_cross": ("train" if config.cross_test_reactions == "train" else "test", "cross_swap"),
    }[split]


def pool_size(purpose: str, config: StoichConfig, split: str) -> int:
    """Number of distinct reactions a split draws from for ``purpose`` (``products``, ``balance`` or
    ``byproduct``; one epoch = this times ``augmentation`` tasks)."""
    corpus = _corpus(config)
    if purpose == "products":
        split, _ = products_plan(split, config)  # type: ignore[arg-type]
    return len(reaction_pool(corpus, config.encoding, purpose, config.split_spec(), split))


def generate_products(task_type: ProductType, family: str, config: ProductsConfig, split: str, seed: int,
                      index: int) -> Task:
    """The Type 1 (``task_type="t1"``) or Type 2 (``"t2"``) task at (config, split, seed, index), filed
    under ``family`` (its name also seeds the task's random stream)."""
    if task_type not in PRODUCT_TYPES:
        raise ValueError(f"task_type must be one of {list(PRODUCT_TYPES)}, got {task_type!r}")
    _check_split(split, PRODUCT_SPLITS, family)
    corpus = _corpus(config)
    spec = config.split_spec()
    rsplit, rule = products_plan(split, config)
    pool = reaction_pool(corpus, config.encoding, "products", spec, rsplit)
    ridx, slot, epoch = pick_reaction(pool, family, seed, split, index, config.augmentation)
    view = corpus.view(ridx, config.encoding)
    assert view is not None
    if rule in ("in", "out"):
        cset = rule
    else:
        half = cross_half(corpus, ridx)
        cset = ("in", "out")[half if rule == "cross" else 1 - half]
    lo, hi = config.coef_in if cset == "in" else config.coef_out
    rng = task_rng(seed, family, split, index)
    if task_type == "t1":
        k, ks = rng.randint(lo, hi), None
    else:
        k, ks = None, sample_type2(view, rng, lo, hi)
    extra = {"reaction_split": reaction_splits(corpus, spec)[ridx], "augmentation_slot": slot, "epoch": epoch,
             "corpus": corpus.name, "corpus_hash": corpus.content_hash[:16]}
    return build_products_task(
        family, view, k=k, ks=ks, config=config, split=split, seed=seed, index=index, coefficient_set=cset,
        phrasing=_phrasing(config, rng), order_rng=rng, extra_meta=extra,
    )


def generate_balance(family: str, config: BalanceConfig, split: str, seed: int, index: int) -> Task:
    """The balancing task at (config, split, seed, index), filed under ``family``."""
    _check_split(split, BASIC_SPLITS, family)
    corpus = _corpus(config)
    spec = config.split_spec()
    pool = reaction_pool(corpus, config.encoding, "balance", spec, split)
    if config.unit_share < 1.0:
        unit, non_unit = _unit_partition(corpus, config.encoding, pool)
        want_unit = unit_interval("stoich-balance-unit", seed, split, index) < config.unit_share
        sub, label = (unit, "unit") if (want_unit and unit) or not non_unit else (non_unit, "non_unit")
        ridx, _, epoch = pick_reaction(sub, f"{family}:{label}", seed, split, index)
    else:
        ridx, _, epoch = pick_reaction(pool, family, seed, split, index)
    view = corpus.view(ridx, config.encoding)
    assert view is not None
    rng = task_rng(seed, family, split, index)
    extra = {"reaction_split": split, "epoch": epoch, "corpus": corpus.name, "corpus_hash": corpus.content_hash[:16]}
    return build_balance_task(family, view, config=config, split=split, seed=seed, index=index,
                              phrasing=_phrasing(config, rng), order_rng=rng, extra_meta=extra)


@lru_cache(maxsize=32)
def _unit_partition(corpus: Corpus, encoding: str, pool: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Split a balance pool into (all-ones equations, the rest), by the reduced reference coefficients."""
    unit, rest = [], []
    for i in pool:
        view = corpus.view(i, encoding)
        coefficients = [c for _, c in view.reactants + view.products]
        g = gcd(*coefficients)
        (unit if all(c == g for c in coefficients) else rest).append(i)
    return tuple(unit), tuple(rest)


def generate_byproduct(family: str, config: ByproductConfig, split: str, seed: int, index: int) -> Task:
    """The byproduct task at (config, split, seed, index), filed under ``family``."""
    _check_split(split, BASIC_SPLITS, family)
    corpus = _corpus(config)
    spec = config.split_spec()
    pool = reaction_pool(corpus, config.encoding, "byproduct", spec, split)
    ridx, _, epoch = pick_reaction(pool, family, seed, split, index)
    view = corpus.view(ridx, config.encoding)
    assert view is not None
    rng = task_rng(seed, family, split, index)
    k = rng.randint(*config.scale)
    extra = {"reaction_split": split, "epoch": epoch, "corpus": corpus.name, "corpus_hash": corpus.content_hash[:16]}
    return build_byproduct_task(family, view, k=k, config=config, split=split, seed=seed, index=index,
                                phrasing=_phrasing(config, rng), order_rng=rng, extra_meta=extra)


def _bound(fn: Callable[..., Task], name: str, doc: str, *args: str) -> Generator:
    def generate(config: StoichConfig, split: str, seed: int, index: int) -> Task:
        return fn(*args, config, split, seed, index)

    generate.__name__ = generate.__qualname__ = name
    generate.__doc__ = doc
    return generate


def products_generator(family: str, task_type: ProductType) -> Generator:
    """``(config, split, seed, index) -> Task`` of Type 1 (``"t1"``) or Type 2 (``"t2"``) tasks filed under ``family``."""
    if task_type not in PRODUCT_TYPES:
        raise ValueError(f"task_type must be one of {list(PRODUCT_TYPES)}, got {task_type!r}")
    return _bound(generate_products, f"generate_{task_type}", f"ChemAlgebra {task_type} tasks of {family}.",
                  task_type, family)


def balance_generator(family: str) -> Generator:
    """``(config, split, seed, index) -> Task`` of balancing tasks filed under ``family``."""
    return _bound(generate_balance, "generate_balance", f"Balancing tasks of {family}.", family)


def byproduct_generator(family: str) -> Generator:
    """``(config, split, seed, index) -> Task`` of byproduct tasks filed under ``family``."""
    return _bound(generate_byproduct, "generate_byproduct", f"Byproduct tasks of {family}.", family)


__all__ = [
    "BASIC_SPLITS", "PRODUCT_SPLITS", "PRODUCT_TYPES", "BalanceConfig", "ByproductConfig", "Generator", "ProductType",
    "ProductsConfig", "StoichConfig", "balance_generator", "byproduct_generator", "generate_balance",
    "generate_byproduct", "generate_products", "pick_reaction", "pool_size", "products_generator", "products_plan",
]
