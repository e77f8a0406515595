"""Task builders of the MolecularIQ tasks (section 3): feature counts, atom-index attribution and
constrained generation.

``generate_task(kind, family, config, split, seed, index)`` is deterministic and random-access: every
random choice (complexity bin, molecule, presentation, keys, phrasing, constraint operators)
draws from ``rlvr.rng.task_rng(seed, family, split, index)``. Ground truth is computed on the
SMILES exactly as shown (:func:`rlvr.chem.molecules.features.molecule_features`), so index
answers follow the presentation.
"""
from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Sequence

from rlvr.chem.constraints import OPS, constraint_satisfied
from rlvr.chem.molecules.complexity import COMPLEXITY_BINS, complexity_bin, parse_bin
from rlvr.chem.molecules.features import CATEGORIES, FEATURES, FeatureError, molecule_features, spec_for_key
from rlvr.chem.molecules.moleculariq import check_convention
from rlvr.chem.molecules.reactions import PREFIX as TEMPLATE_PREFIX
from rlvr.generators.molecules import prompts
from rlvr.generators.molecules.pools import PoolFilter
from rlvr.generators.molecules.presentation import present
from rlvr.generators.molecules.sampling import choose_keys, is_zero, value_frequencies
from rlvr.generators.molecules.splits import SPLITS, SplitParams, SplitPool, load_split_pool, pool_table
from rlvr.rng import stable_hash, task_rng
from rlvr.task import Task, config_key, task_id

#: the task types: feature counts, atom-index attribution, constrained generation
KINDS: tuple[str, ...] = ("count", "index", "gen")
#: value types a count or generation task may ask for by default (template product lists are opt-in)
_DEFAULT_VALUE_TYPES = ("int", "str", "smiles")
_OPT_IN_SUFFIXES = ("_success", "_products")
_ELEMENT_COUNT_KEYS = frozenset({
    "carbon_atom_count", "hydrogen_atom_count", "hetero_atom_count", "halogen_atom_count", "heavy_atom_count",
})
_MAX_MOLECULE_TRIES = 8


def _tuple(value: Any) -> tuple[str, ...] | None:
    if value is None:
        return None
    if isinstance(value, str):
        return tuple(v.strip() for v in value.split(",") if v.strip())
    return tuple(str(v) for v in value)


@dataclass
class MolTaskConfig:
    """Options of the molecular tasks (one config class for counts, indices and generation).

    - ``load``: features (or constraints) per question; the paper uses 1, 2, 3 and 5.
    - ``complexity_bin``: None/``"any"`` (molecules uniformly), ``"balanced"`` (bin uniformly, then a
      molecule), or one of ``"0-250"``, ``"250-1000"``, ``"1000-inf"`` (Bertz CT, also ``"[0,250)"`` ...).
    - ``p_randomized``/``p_kekulized``: probabilities of a randomised atom order / kekulised form;
      ``p_ring_renumber``: probability of relabelling ring-closure digits (count/index tasks).
    - ``categories``/``exclude_categories``/``keys``/``exclude_keys``: restrict the features asked
      (``keys`` and ``exclude_keys`` take feature names such as ``"ring"`` or task keys such as
      ``"ring_count"``). Template product lists and ``_success`` flags are asked only when named in ``keys``.
    - ``inverse_frequency``: weight keys by the inverse frequency of their value (appendix A.2);
      ``p_zero``: probability of a zero-valued key while non-zero ones exist (None: no special
      treatment); ``max_zero_keys``: at most this many zero-valued keys per question;
      ``balance_categories``: draw the feature category uniformly before the key.
    - ``ops``: constraint operators for generation (``==``, ``>=``, ``<=``, ``range``); ``p_exact``:
      probability of ``==`` when other operators are allowed; ``max_slack``: how far an inequality
      bound or range end may sit from the reference molecule's value.
    - ``pool``: path of a user pool file (SMILES/CSV/TSV/parquet/JSON(L)); None = embedded default;
      ``pool_column``: its SMILES column; ``cluster_seed``/``hard_fraction``/``easy_fraction``: split parameters.
    - ``n_phrasings``: use only the first N phrasings of each template set (None = all).
    - ``convention``: ``"rlvr"`` or ``"moleculariq"``, the meaning of the feature keys
      (:func:`rlvr.chem.molecules.features.molecule_features`): under ``moleculariq`` a
      functional-group ``_count`` is the number of atoms in the group's matches, as in the benchmark.
    """

    load: int = 1
    complexity_bin: str | None = None
    p_randomized: float = 0.5
    p_kekulized: float = 0.5
    p_ring_renumber: float = 0.0
    categories: tuple[str, ...] | None = None
    exclude_categories: tuple[str, ...] = ()
    keys: tuple[str, ...] | None = None
    exclude_keys: tuple[str, ...] = ()
    inverse_frequency: bool = True
    p_zero: float | None = 0.15
    max_zero_keys: int = 1
    balance_categories: bool = True
    ops: tuple[str, ...] = ("==", ">=", "<=", "range")
    p_exact: float = 0.5
    max_slack: int = 2
    pool: str | None = None
    pool_column: str | None = None
    cluster_seed: int = 0
    hard_fraction: float = 0.2
    easy_fraction: float = 0.5
    n_phrasings: int | None = None
    convention: str = "rlvr"

    def __post_init__(self) -> None:
        check_convention(self.convention)
        self.categories = _tuple(self.categories)
        self.exclude_categories = _tuple(self.exclude_categories) or ()
        self.keys = _tuple(self.keys)
        self.exclude_keys = _tuple(self.exclude_keys) or ()
        self.ops = _tuple(self.ops) or ("==",)
        self.load = int(self.load)
        if not 1 <= self.load <= 10:
            raise ValueError(f"load must be between 1 and 10 (the paper uses 1, 2, 3, 5), got {self.load}")
        for name in ("p_randomized", "p_kekulized", "p_ring_renumber", "p_exact"):
            value = float(getattr(self, name))
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"{name} must be a probability, got {value}")
            setattr(self, name, value)
        if self.p_zero is not None and not 0.0 <= float(self.p_zero) <= 1.0:
            raise ValueError(f"p_zero must be a probability or None, got {self.p_zero}")
        parse_bin(self.complexity_bin)
        bad_ops = [op for op in self.ops if op not in OPS]
        if bad_ops:
            raise ValueError(f"unknown constraint operator(s) {bad_ops}; valid: {list(OPS)}")
        if self.n_phrasings is not None and int(self.n_phrasings) < 1:
            raise ValueError("n_phrasings must be >= 1 or None")
        for name in (*(self.categories or ()), *self.exclude_categories):
            if name not in CATEGORIES:
                raise ValueError(f"unknown feature category {name!r}; valid: {list(CATEGORIES)}")
        for name in (*(self.keys or ()), *self.exclude_keys):
            _resolve_feature(name)

    def pool_params(self) -> tuple[Any, str | None, PoolFilter, SplitParams]:
        params = SplitParams(seed=int(self.cluster_seed), hard_fraction=float(self.hard_fraction),
                             easy_fraction=float(self.easy_fraction))
        return self.pool, self.pool_column, PoolFilter(), params


def _resolve_feature(name: str) -> tuple[str, ...]:
    """Task keys meant by a feature name (``"ring"``) or a task key (``"ring_count"``)."""
    if name in FEATURES:
        spec = FEATURES[name]
        return tuple(k for k in (spec.count_key, spec.index_key) if k)
    spec_for_key(name)  # KeyError naming close matches
    return (name,)


@lru_cache(maxsize=64)
def _candidate_keys(kind: str, categories: tuple[str, ...] | None, exclude_categories: tuple[str, ...],
                    keys: tuple[str, ...] | None, exclude_keys: tuple[str, ...]) -> tuple[str, ...]:
    wanted = None if keys is None else {k for name in keys for k in _resolve_feature(name)}
    unwanted = {k for name in exclude_keys for k in _resolve_feature(name)}
    out: list[str] = []
    for spec in FEATURES.values():
        if categories is not None and spec.category not in categories:
            continue
        if spec.category in exclude_categories:
            continue
        key = spec.index_key if kind == "index" else spec.count_key
        if not key or key in unwanted:
            continue
        if wanted is not None:
            if key not in wanted:
                continue
        elif kind != "index" and (spec.value_type not in _DEFAULT_VALUE_TYPES or key.endswith(_OPT_IN_SUFFIXES)):
            continue
        if kind == "gen" and spec.value_type not in _DEFAULT_VALUE_TYPES:
            continue  # a product list is no constraint
        out.append(key)
    if not out:
        raise ValueError(f"no feature keys left for {kind} tasks with categories={categories}, "
                         f"exclude_categories={exclude_categories}, keys={keys}, exclude_keys={exclude_keys}")
    return tuple(out)


def candidate_keys(kind: str, config: MolTaskConfig) -> tuple[str, ...]:
    """Keys a task of ``kind`` (count/index/gen) may ask about under ``config``."""
    return _candidate_keys(kind, config.categories, tuple(config.exclude_categories), config.keys,
                           tuple(config.exclude_keys))


@lru_cache(maxsize=1)
def _categories() -> dict[str, str]:
    out: dict[str, str] = {}
    for spec in FEATURES.values():
        # reaction templates get their own balancing group so they do not crowd out BRICS and Murcko
        group = "reaction_templates" if spec.name.startswith(TEMPLATE_PREFIX) else spec.category
        for k in (spec.count_key, spec.index_key):
            if k:
                out[k] = group
    return out


def get_pool(config: MolTaskConfig) -> SplitPool:
    """The split pool a config draws from (cached in memory and on disk)."""
    source, column, flt, params = config.pool_params()
    return load_split_pool(source, column=column, flt=flt, params=params)


def molecule_pool_size(config: MolTaskConfig, split: str) -> int:
    """Distinct molecules ``split`` draws from under ``config`` (its complexity bin, where it names one)."""
    pool = get_pool(config)
    spec = parse_bin(config.complexity_bin)
    if spec is None or spec == "balanced":
        return len(pool.members(split))
    return len(pool.members(split, spec))


def _pick_molecule(pool: SplitPool, split: str, config: MolTaskConfig, rng: Any) -> int:
    spec = parse_bin(config.complexity_bin)
    if spec == "balanced":
        bins = [b for b in COMPLEXITY_BINS if pool.members(split, b)]
        if not bins:
            raise ValueError(f"the {split!r} split of the pool is empty")
        members = pool.members(split, bins[rng.randrange(len(bins))])
    else:
        members = pool.members(split, spec)
    if not members:
        raise ValueError(f"no molecules in split {split!r}" + (f" and complexity bin {spec!r}" if spec else "")
                         + f" (pool sizes: {pool.sizes()})")
    return members[rng.randrange(len(members))]


def _freqs(config: MolTaskConfig, pool: SplitPool, kind: str) -> dict[str, dict[str, float]] | None:
    if not config.inverse_frequency:
        return None
    return value_frequencies(pool, candidate_keys(kind, config))


def _fields(config: MolTaskConfig) -> dict[str, Any]:
    """``dataclasses.asdict(config)`` without its deep copy (every field is a scalar or a tuple of scalars)."""
    return {f.name: getattr(config, f.name) for f in dataclasses.fields(config)}


def _config_key(config: MolTaskConfig) -> str:
    """The config fingerprint of task ids; the default convention leaves ids as they were before it existed."""
    if config.convention != "rlvr":
        return config_key(config)
    plain = {k: v for k, v in _fields(config).items() if k != "convention"}
    return format(stable_hash(json.dumps(plain, sort_keys=True, default=str)) & 0xFFFFFFFF, "08x")


def _base_meta(config: MolTaskConfig, split: str, seed: int, index: int, kind: str, keys: Sequence[str],
               pool: SplitPool, mol: int) -> dict[str, Any]:
    return {
        "split": split,
        "seed": seed,
        "index": index,
        "config": json.loads(json.dumps(_fields(config))),  # JSON-native (lists, not tuples)
        "task_type": kind,
        "load": len(keys),
        "features": list(keys),
        "canonical_smiles": pool.smiles[mol],
        "bertz": pool.bertz[mol],
        "complexity_bin": complexity_bin(pool.bertz[mol]),
        "pool_split": pool.split[mol],
        "pool": pool.key,
    }


def _answer_task(kind: str, family: str, config: MolTaskConfig, split: str, seed: int, index: int) -> Task:
    rng = task_rng(seed, family, split, index)
    pool = get_pool(config)
    cands = candidate_keys(kind, config)
    freqs = _freqs(config, pool, kind)
    table = pool_table(pool)
    last_error: Exception | None = None
    for _ in range(_MAX_MOLECULE_TRIES):
        mol = _pick_molecule(pool, split, config, rng)
        shown, presentation = present(pool.smiles[mol], rng, p_randomized=config.p_randomized,
                                      p_kekulized=config.p_kekulized, p_ring_renumber=config.p_ring_renumber)
        try:
            values = molecule_features(shown, cands, convention=config.convention, table=table)
        except (FeatureError, ValueError) as exc:
            last_error = exc
            continue
        keys = choose_keys(values, cands, config.load, rng, freqs=freqs, category_of=_categories(),
                           p_zero=config.p_zero, max_zero_keys=config.max_zero_keys,
                           balance_categories=config.balance_categories)
        if len(keys) < config.load:
            last_error = ValueError(f"only {len(keys)} candidate keys for load {config.load}")
            continue
        if kind == "count":
            question, template = prompts.count_question(shown, keys, rng, config.n_phrasings, config.convention)
        else:
            question, template = prompts.index_question(shown, keys, rng, config.n_phrasings)
        meta = _base_meta(config, split, seed, index, kind, keys, pool, mol)
        meta.update({"smiles": shown, "presentation": presentation.to_dict(), "template": template,
                     "zero_keys": [k for k in keys if is_zero(values[k])]})
        return Task(
            id=task_id(family, split, seed, index, _config_key(config)),
            family=family,
            prompt=prompts.messages(question),
            ground_truth={k: values[k] for k in keys},
            meta=meta,
        )
    raise ValueError(f"{family}: could not build task {index} of split {split!r}: {last_error}")


def _constraint_for(key: str, value: Any, config: MolTaskConfig, rng: Any) -> dict[str, Any]:
    """A satisfiable constraint on ``key`` derived from the reference molecule's ``value``."""
    if isinstance(value, str) or isinstance(value, bool):
        return {"key": key, "op": "==", "value": value}
    others = [op for op in config.ops if op != "=="]
    exact_allowed = "==" in config.ops
    if not others or (exact_allowed and rng.random() < config.p_exact):
        op = "=="
    else:
        op = others[rng.randrange(len(others))]
    slack = max(int(config.max_slack), 0)
    if op == "==":
        return {"key": key, "op": op, "value": value}
    if op == ">=":
        lo = max(value - rng.randint(0, slack), 1)
        if value >= 1:
            return {"key": key, "op": op, "value": lo}
    elif op == ">":
        lo = max(value - 1 - rng.randint(0, slack), 0)
        if value >= 1:
            return {"key": key, "op": op, "value": lo}
    elif op == "<=":
        return {"key": key, "op": op, "value": value + rng.randint(0, slack)}
    elif op == "<":
        return {"key": key, "op": op, "value": value + 1 + rng.randint(0, slack)}
    else:
        lo = max(0, value - rng.randint(0, slack))
        hi = value + rng.randint(0, slack)
        if lo == hi:
            hi = lo + 1
        return {"key": key, "op": "range", "value": [lo, hi]}
    # a lower bound on a zero value would be trivial (or impossible): ask for the value itself
    return {"key": key, "op": "==" if exact_allowed else "<=", "value": value}


def _gen_task(family: str, config: MolTaskConfig, split: str, seed: int, index: int) -> Task:
    rng = task_rng(seed, family, split, index)
    pool = get_pool(config)
    cands = candidate_keys("gen", config)
    freqs = _freqs(config, pool, "gen")
    exclusive = ((frozenset({"molecular_formula_count"}), _ELEMENT_COUNT_KEYS),)
    table = pool_table(pool)
    last_error: Exception | None = None
    for _ in range(_MAX_MOLECULE_TRIES):
        mol = _pick_molecule(pool, split, config, rng)
        reference = pool.smiles[mol]
        try:
            values = molecule_features(reference, cands, convention=config.convention, table=table)
        except (FeatureError, ValueError) as exc:
            last_error = exc
            continue
        keys = choose_keys(values, cands, config.load, rng, freqs=freqs, category_of=_categories(),
                           p_zero=config.p_zero, max_zero_keys=config.max_zero_keys,
                           balance_categories=config.balance_categories, exclusive=exclusive)
        if len(keys) < config.load:
            last_error = ValueError(f"only {len(keys)} candidate keys for load {config.load}")
            continue
        constraints = [_constraint_for(k, values[k], config, rng) for k in keys]
        for c in constraints:  # the reference molecule satisfies every constraint by construction
            if not constraint_satisfied(values[c["key"]], c["op"], c["value"], c["key"]):
                raise AssertionError(f"constraint {c} not satisfied by its reference {reference}")
        question, template = prompts.generation_question(constraints, rng, config.n_phrasings, config.convention)
        meta = _base_meta(config, split, seed, index, "gen", keys, pool, mol)
        meta.update({"smiles": None, "reference_smiles": reference, "presentation": None, "template": template,
                     "zero_keys": [k for k in keys if is_zero(values[k])]})
        return Task(
            id=task_id(family, split, seed, index, _config_key(config)),
            family=family,
            prompt=prompts.messages(question),
            ground_truth={"constraints": constraints},
            meta=meta,
        )
    raise ValueError(f"{family}: could not build task {index} of split {split!r}: {last_error}")


def generate_task(kind: str, family: str, config: MolTaskConfig, split: str, seed: int, index: int) -> Task:
    """The task at ``(kind, config, split, seed, index)`` filed under ``family`` (its name also seeds
    the task's random stream); ``kind`` is ``count``, ``index`` or ``gen`` (:data:`KINDS`)."""
    if split not in SPLITS:
        raise ValueError(f"unknown split {split!r}; valid splits: {list(SPLITS)}")
    if kind == "gen":
        return _gen_task(family, config, split, int(seed), int(index))
    if kind in ("count", "index"):
        return _answer_task(kind, family, config, split, int(seed), int(index))
    raise ValueError(f"unknown task kind {kind!r}; valid: {list(KINDS)}")
