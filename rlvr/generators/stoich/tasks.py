"""Task builders for ``stoich.t1``, ``stoich.t2``, ``stoich.balance`` and ``stoich.byproduct``.

Two layers:

- pure builders from a :class:`~rlvr.generators.stoich.reaction.ReactionView` and explicit coefficients
  (:func:`type1_bags`, :func:`type2_bags`, :func:`build_products_task`, :func:`build_balance_task`,
  :func:`build_byproduct_task`), used by the generators and to reproduce the paper's worked examples;
- generators ``generate_*(config, split, seed, index)``: task = f(family, options, seed, split, index),
  random access and identical in any process. ``index -> (reaction, augmentation slot)``: consecutive
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

import dataclasses
import random
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Mapping

from rlvr.api import task_id
from rlvr.chem.notation import format_bag
from rlvr.generators.stoich import prompts
from rlvr.generators.stoich.reaction import ENCODINGS, ReactionView, gcd_all, nullity
from rlvr.generators.stoich.splits import DEFAULT_HOLDOUT, SPLIT_MODES, SplitSpec, cross_half, reaction_pool, reaction_splits
from rlvr.registry import config_key
from rlvr.rng import stable_hash, task_rng, unit_interval
from rlvr.task import Task

PRODUCT_SPLITS: tuple[str, ...] = ("train", "valid", "test_in", "test_out", "train_cross", "valid_cross", "test_cross")
BASIC_SPLITS: tuple[str, ...] = ("train", "valid", "test")
SEMANTICS: tuple[str, ...] = ("limiting", "paper")
PROMPT_MODES: tuple[str, ...] = ("closed", "open")
CROSS_TEST_REACTIONS: tuple[str, ...] = ("test", "train")


# ---------------------------------------------------------------------------------------------
# configs
# ---------------------------------------------------------------------------------------------


def _int_range(name: str, value: Any) -> tuple[int, int]:
    try:
        lo, hi = (int(v) for v in value)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a pair [lo, hi] of integers, got {value!r}") from exc
    if not 1 <= lo <= hi:
        raise ValueError(f"{name} must satisfy 1 <= lo <= hi, got {value!r}")
    return lo, hi


@dataclass(frozen=True)
class StoichConfig:
    """Options shared by every stoichiometry family.

    - ``encoding``: ``formula`` (Hill formulas) or ``smiles`` (canonical SMILES).
    - ``corpus``: ``embedded`` (template corpus), ``embedded-small``, ``classic``, ``mixed`` (both) or a path
      to a user file (reaction SMILES, USPTO style, or a ChemAlgebra ``src`` file with its ``tgt`` twin).
    - ``split_mode``: ``hash`` | ``class`` | ``mw`` | ``document`` | ``time`` (see :mod:`.splits`), with
      ``split_fractions`` (train, valid, test), ``holdout_classes``, ``mw_side``, ``time_cutoff``.
    - ``phrasing``: fix the prompt phrasing (0-2); None draws it per task.
    """

    encoding: str = "formula"
    corpus: str = "embedded"
    split_mode: str = "hash"
    split_fractions: tuple[float, float, float] = (0.8, 0.1, 0.1)
    holdout_classes: tuple[str, ...] = DEFAULT_HOLDOUT
    mw_side: str = "high"
    time_cutoff: int | None = None
    phrasing: int | None = None

    def __post_init__(self) -> None:
        if self.encoding not in ENCODINGS:
            raise ValueError(f"encoding must be one of {list(ENCODINGS)}, got {self.encoding!r}")
        if not isinstance(self.corpus, str) or not self.corpus:
            raise ValueError(f"corpus must be a name or a path, got {self.corpus!r}")
        if self.split_mode not in SPLIT_MODES:
            raise ValueError(f"split_mode must be one of {list(SPLIT_MODES)}, got {self.split_mode!r}")
        object.__setattr__(self, "split_fractions", tuple(float(x) for x in self.split_fractions))
        holdout = (self.holdout_classes,) if isinstance(self.holdout_classes, str) else tuple(self.holdout_classes)
        object.__setattr__(self, "holdout_classes", holdout)
        if self.phrasing is not None and not isinstance(self.phrasing, int):
            raise ValueError(f"phrasing must be an integer or None, got {self.phrasing!r}")
        self.split_spec()  # validates the split options

    def split_spec(self) -> SplitSpec:
        return SplitSpec(self.split_mode, self.split_fractions, self.holdout_classes, self.mw_side, self.time_cutoff)


@dataclass(frozen=True)
class ProductsConfig(StoichConfig):
    """``stoich.t1`` / ``stoich.t2`` options (ChemAlgebra Type 1 / Type 2).

    - ``semantics``: ``limiting`` (default) or ``paper`` (see module docs; only affects Type 2).
    - ``prompt_mode``: ``closed`` (reactants and reagents only, as the paper) or ``open`` (the balanced
      reference reaction is shown, so the task is pure algebra).
    - ``coef_in`` / ``coef_out``: S_in and S_out (inclusive ranges); ``augmentation``: reactions are used
      ``augmentation`` times in a row with different coefficients (1 = x1, 5 = x5).
    - ``cross_test_reactions``: ``test`` (default: ``test_cross`` draws held-out reactions, coefficient
      sets swapped w.r.t. the training half-assignment) or ``train`` (section 2.1 literally: the training
      reactions with swapped coefficients; then test_cross shares reactions with train_cross).
    """

    semantics: str = "limiting"
    prompt_mode: str = "closed"
    coef_in: tuple[int, int] = (1, 5)
    coef_out: tuple[int, int] = (6, 10)
    augmentation: int = 1
    cross_test_reactions: str = "test"

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.semantics not in SEMANTICS:
            raise ValueError(f"semantics must be one of {list(SEMANTICS)}, got {self.semantics!r}")
        if self.prompt_mode not in PROMPT_MODES:
            raise ValueError(f"prompt_mode must be one of {list(PROMPT_MODES)}, got {self.prompt_mode!r}")
        object.__setattr__(self, "coef_in", _int_range("coef_in", self.coef_in))
        object.__setattr__(self, "coef_out", _int_range("coef_out", self.coef_out))
        if not isinstance(self.augmentation, int) or self.augmentation < 1:
            raise ValueError(f"augmentation must be a positive integer (1 or 5 as ChemAlgebra), got {self.augmentation!r}")
        if self.cross_test_reactions not in CROSS_TEST_REACTIONS:
            raise ValueError(f"cross_test_reactions must be one of {list(CROSS_TEST_REACTIONS)}")


@dataclass(frozen=True)
class BalanceConfig(StoichConfig):
    """``stoich.balance`` options (default corpus: ``mixed``, template and classic equations).

    - ``unit_share``: the share of tasks drawn from equations whose answer is all ones (``A + B -> C + D``).
      Most template reactions are such 1:1 equations, which a model can "balance" without reasoning;
      by default they make up 10% of the tasks (1.0 draws uniformly from the whole pool, as a corpus would).
    """

    corpus: str = "mixed"
    unit_share: float = 0.1

    def __post_init__(self) -> None:
        super().__post_init__()
        if not 0.0 <= float(self.unit_share) <= 1.0:
            raise ValueError(f"unit_share must be in [0, 1], got {self.unit_share!r}")


@dataclass(frozen=True)
class ByproductConfig(StoichConfig):
    """``stoich.byproduct`` options; ``scale``: the shown reaction is the reference times k in this range."""

    scale: tuple[int, int] = (1, 1)

    def __post_init__(self) -> None:
        super().__post_init__()
        object.__setattr__(self, "scale", _int_range("scale", self.scale))


# ---------------------------------------------------------------------------------------------
# pure builders
# ---------------------------------------------------------------------------------------------


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
    """A ``stoich.t1`` (give ``k``) or ``stoich.t2`` (give ``ks``) task from a reaction view."""
    config = config or ProductsConfig(encoding=view.encoding)
    if family == "stoich.t1":
        if k is None:
            raise ValueError("stoich.t1 needs the factor k")
        inputs, outputs = type1_bags(view, k)
        runs, coefficients = k, {"factor": k}
    elif family == "stoich.t2":
        if ks is None:
            raise ValueError("stoich.t2 needs one k per molecule (ks)")
        inputs, outputs, runs = type2_bags(view, ks, config.semantics)
        coefficients = {"sampled_k": dict(ks)}
    else:
        raise ValueError(f"not a products family: {family!r}")
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
    """A ``stoich.balance`` task: the reaction's species without coefficients (reagents omitted)."""
    config = config or BalanceConfig(encoding=view.encoding)
    reactants = _ordered(dict(view.reactants), order_rng)
    products = _ordered(dict(view.products), order_rng)
    species = [view.composition(s) for s in [*reactants, *products]]
    if nullity(species, balanced=True) != 1:
        raise ValueError("balance task needs an equation with a one-dimensional solution space")
    g = gcd_all([*reactants.values(), *products.values()])
    coefficients = [c // g for c in [*reactants.values(), *products.values()]]
    view.assert_conserves({s: c // g for s, c in reactants.items()}, {s: c // g for s, c in products.items()},
                          "stoich.balance ground truth")
    meta = _base_meta(config, split, seed, index, view)
    meta.update({"reaction": view.as_dict(), "n_species": len(coefficients), **(extra_meta or {})})
    return Task(
        id=task_id("stoich.balance", split, seed, index, config_key(config)),
        family="stoich.balance",
        prompt=prompts.balance_prompt(list(reactants), list(products), view.encoding, phrasing),
        ground_truth={"reactants": list(reactants), "products": list(products), "coefficients": coefficients},
        meta=meta,
    )


def build_byproduct_task(
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
    """A ``stoich.byproduct`` task: the reaction (times ``k``) with its byproducts removed."""
    config = config or ByproductConfig(encoding=view.encoding)
    if not view.byproducts or not view.main_products:
        raise ValueError("byproduct task needs a reaction with byproducts and a main product")
    left = _ordered({s: k * c for s, c in view.reactants + view.reagents}, order_rng)
    right = _ordered({s: k * c for s, c in view.main_products + view.reagents}, order_rng)
    truth = _ordered({s: k * c for s, c in view.byproducts}, order_rng)
    completed = dict(right)
    for s, c in truth.items():
        completed[s] = completed.get(s, 0) + c
    view.assert_conserves(left, completed, "stoich.byproduct ground truth")
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
        id=task_id("stoich.byproduct", split, seed, index, config_key(config)),
        family="stoich.byproduct",
        prompt=prompts.byproduct_prompt(equation, view.encoding, phrasing),
        ground_truth={"byproducts": truth},
        meta=meta,
    )


# ---------------------------------------------------------------------------------------------
# generators
# ---------------------------------------------------------------------------------------------


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


def _corpus(config: StoichConfig):
    from rlvr.generators.stoich.corpus import get_corpus

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


def pool_size(family: str, config: StoichConfig, split: str) -> int:
    """Number of distinct reactions a split draws from (one epoch = this times ``augmentation`` tasks)."""
    corpus = _corpus(config)
    if family in ("stoich.t1", "stoich.t2"):
        rsplit, _ = products_plan(split, config)  # type: ignore[arg-type]
        return len(reaction_pool(corpus, config.encoding, "products", config.split_spec(), rsplit))
    purpose = "balance" if family == "stoich.balance" else "byproduct"
    return len(reaction_pool(corpus, config.encoding, purpose, config.split_spec(), split))


def generate_products(family: str, config: ProductsConfig, split: str, seed: int, index: int) -> Task:
    """The ``stoich.t1``/``stoich.t2`` task at (config, split, seed, index)."""
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
    if family == "stoich.t1":
        k, ks = rng.randint(lo, hi), None
    else:
        k, ks = None, sample_type2(view, rng, lo, hi)
    extra = {"reaction_split": reaction_splits(corpus, spec)[ridx], "augmentation_slot": slot, "epoch": epoch,
             "corpus": corpus.name, "corpus_hash": corpus.content_hash[:16]}
    return build_products_task(
        family, view, k=k, ks=ks, config=config, split=split, seed=seed, index=index, coefficient_set=cset,
        phrasing=_phrasing(config, rng), order_rng=rng, extra_meta=extra,
    )


def generate_t1(config: ProductsConfig, split: str, seed: int, index: int) -> Task:
    return generate_products("stoich.t1", config, split, seed, index)


def generate_t2(config: ProductsConfig, split: str, seed: int, index: int) -> Task:
    return generate_products("stoich.t2", config, split, seed, index)


def generate_balance(config: BalanceConfig, split: str, seed: int, index: int) -> Task:
    """The ``stoich.balance`` task at (config, split, seed, index)."""
    family = "stoich.balance"
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
    return build_balance_task(view, config=config, split=split, seed=seed, index=index,
                              phrasing=_phrasing(config, rng), order_rng=rng, extra_meta=extra)


@lru_cache(maxsize=32)
def _unit_partition(corpus, encoding: str, pool: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Split a balance pool into (all-ones equations, the rest), by the reduced reference coefficients."""
    unit, rest = [], []
    for i in pool:
        view = corpus.view(i, encoding)
        coefficients = [c for _, c in view.reactants + view.products]
        g = gcd_all(coefficients)
        (unit if all(c == g for c in coefficients) else rest).append(i)
    return tuple(unit), tuple(rest)


def generate_byproduct(config: ByproductConfig, split: str, seed: int, index: int) -> Task:
    """The ``stoich.byproduct`` task at (config, split, seed, index)."""
    family = "stoich.byproduct"
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
    return build_byproduct_task(view, k=k, config=config, split=split, seed=seed, index=index,
                                phrasing=_phrasing(config, rng), order_rng=rng, extra_meta=extra)
