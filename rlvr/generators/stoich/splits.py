"""Reaction splits and per-split reaction pools.

Split membership (``train`` / ``valid`` / ``test``) is a property of the reaction alone:

- ``hash`` (default): a stable hash of the reaction's canonical formula-level key;
- ``class``: reactions of the held-out classes are ``test`` (seed 003's reaction-type splits:
  Suzuki, Heck, Grignard by default), the rest is split by hash into train/valid;
- ``mw``: the heaviest (``mw_side="high"``) or lightest (``"low"``) products are ``test``
  (seed 002's product-molecular-weight splits), the rest by hash;
- ``document``: a hash of ``meta["document"]`` (patent/paper id of user data), so a document never
  spans two splits (seed 003); reactions without one fall back to their own key;
- ``time``: ``meta["year"] >= time_cutoff`` is ``test`` (default cutoff: the year at the test
  quantile); the rest by hash.

A held-out corpus (``Corpus.held_out``, e.g. ``classic-fresh``) puts every reaction in ``test``
whatever the mode; its ``train`` and ``valid`` pools are refused (:class:`HeldOutSplitError`).

The hash key is the *formula-level* reaction key, the coarser identity (isomers merge), and all
reactions sharing a formula key are moved to the most held-out split any of them has, so no
reaction, in either encoding, can appear in two splits.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import math
import os
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from rlvr.chem.linalg import nullity
from rlvr.chem.species import StrictEncoding as Encoding
from rlvr.generators.stoich.corpus_model import Corpus
from rlvr.paths import cache_file
from rlvr.rng import assign_split, stable_hash

log = logging.getLogger(__name__)

REACTION_SPLITS: tuple[str, ...] = ("train", "valid", "test")
SPLIT_MODES: tuple[str, ...] = ("hash", "class", "mw", "document", "time")
DEFAULT_HOLDOUT: tuple[str, ...] = ("suzuki_coupling", "heck_reaction", "grignard_addition")
PURPOSES: tuple[str, ...] = ("products", "balance", "byproduct")
_RANK = {"train": 0, "valid": 1, "test": 2}
_SALT = "stoich-reaction-split-v1"
#: bump when the pool rules (splits, usability checks) change: cached pools are keyed by it
POOL_VERSION = 1


@dataclass(frozen=True)
class SplitSpec:
    """How reference reactions are split (see module docs)."""

    mode: str = "hash"
    fractions: tuple[float, float, float] = (0.8, 0.1, 0.1)
    holdout_classes: tuple[str, ...] = DEFAULT_HOLDOUT
    mw_side: str = "high"
    time_cutoff: int | None = None

    def __post_init__(self) -> None:
        if self.mode not in SPLIT_MODES:
            raise ValueError(f"unknown split_mode {self.mode!r}; valid: {list(SPLIT_MODES)}")
        fr = tuple(float(x) for x in self.fractions)
        if len(fr) != 3 or any(x < 0 or not math.isfinite(x) for x in fr) or sum(fr) <= 0 or fr[0] <= 0:
            raise ValueError(f"split_fractions must be three non-negative numbers (train > 0), got {self.fractions!r}")
        object.__setattr__(self, "fractions", fr)
        object.__setattr__(self, "holdout_classes", tuple(self.holdout_classes))
        if self.mw_side not in ("high", "low"):
            raise ValueError(f"mw_side must be 'high' or 'low', got {self.mw_side!r}")


class HeldOutSplitError(ValueError):
    """A ``train`` or ``valid`` pool was asked of a held-out corpus (it is empty by construction)."""


def _hash_split(key: str, fractions: tuple[float, float, float]) -> str:
    return assign_split(key, list(zip(REACTION_SPLITS, fractions)), salt=_SALT)


def _train_valid(key: str, fractions: tuple[float, float, float]) -> str:
    return assign_split(key, [("train", fractions[0]), ("valid", fractions[1])], salt=_SALT)


def cross_half(corpus: Corpus, i: int) -> int:
    """0 or 1: the half of section 4's cross setting a reaction belongs to (stable hash of its key)."""
    return stable_hash("cross-half", corpus.key(i, "formula")) & 1


@lru_cache(maxsize=32)
def reaction_splits(corpus: Corpus, spec: SplitSpec) -> tuple[str, ...]:
    """The split (``train``/``valid``/``test``) of every reaction of ``corpus`` under ``spec``."""
    n = len(corpus)
    if corpus.held_out:
        return ("test",) * n
    keys = [corpus.key(i, "formula") or "" for i in range(n)]
    fr = spec.fractions
    out: list[str] = []
    if spec.mode == "hash":
        out = [_hash_split(k, fr) for k in keys]
    elif spec.mode == "class":
        classes = {r.rclass for r in corpus.reactions}
        held = set(spec.holdout_classes)
        if not held & classes:
            raise ValueError(
                f"split_mode='class': none of the held-out classes {sorted(held)} is in corpus {corpus.name!r}; "
                f"its classes are {sorted(classes)} (set holdout_classes)"
            )
        out = ["test" if r.rclass in held else _train_valid(k, fr) for r, k in zip(corpus.reactions, keys)]
    elif spec.mode == "mw":
        mws = sorted(r.product_mw for r in corpus.reactions)
        n_test = int(round(n * fr[2] / sum(fr)))
        if spec.mw_side == "high":
            cut = mws[max(0, n - n_test)] if n_test else math.inf
            out = ["test" if r.product_mw >= cut else _train_valid(k, fr) for r, k in zip(corpus.reactions, keys)]
        else:
            cut = mws[min(n - 1, n_test - 1)] if n_test else -math.inf
            out = ["test" if r.product_mw <= cut else _train_valid(k, fr) for r, k in zip(corpus.reactions, keys)]
    elif spec.mode == "document":
        out = [_hash_split("doc:" + str(r.meta["document"]) if r.meta.get("document") not in (None, "") else k, fr)
               for r, k in zip(corpus.reactions, keys)]
    elif spec.mode == "time":
        years = sorted(int(r.meta["year"]) for r in corpus.reactions if _has_year(r.meta))
        if not years:
            raise ValueError(f"split_mode='time' needs a 'year' column; corpus {corpus.name!r} has none")
        cutoff = spec.time_cutoff
        if cutoff is None:
            cutoff = years[min(len(years) - 1, int(len(years) * (1 - fr[2] / sum(fr))))]
        out = ["test" if _has_year(r.meta) and int(r.meta["year"]) >= cutoff else _train_valid(k, fr)
               for r, k in zip(corpus.reactions, keys)]
    # one split per formula-level key: the most held-out one wins
    worst: dict[str, str] = {}
    for k, s in zip(keys, out):
        if k not in worst or _RANK[s] > _RANK[worst[k]]:
            worst[k] = s
    return tuple(worst[k] for k in keys)


def _has_year(meta: dict) -> bool:
    try:
        int(meta.get("year"))  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return False
    return True


def _usable(corpus: Corpus, i: int, encoding: Encoding, purpose: str) -> bool:
    view = corpus.view(i, encoding)
    if view is None:
        return False
    if purpose == "products":
        return True
    if purpose == "byproduct":
        return bool(view.byproducts) and bool(view.main_products)
    if purpose == "balance":
        species = [s for s, _ in view.reactants] + [s for s, _ in view.products]
        return len(species) >= 2 and nullity([corpus.composition(s, encoding) for s in species], balanced=True) == 1
    raise ValueError(f"unknown pool purpose {purpose!r}; valid: {list(PURPOSES)}")


@lru_cache(maxsize=64)
def reaction_pool(corpus: Corpus, encoding: Encoding, purpose: str, spec: SplitSpec, split: str) -> tuple[int, ...]:
    """Indices of the reactions of ``split`` usable for ``purpose`` in ``encoding`` (one per reaction key).

    Pools are cached in memory and on disk (``rlvr.paths.cache_dir("stoich", "pools")``, keyed by
    the corpus content hash, the arguments and :data:`POOL_VERSION`), so a new process does not
    recompute the usability check (a null space per reaction for ``balance``) of the whole corpus.
    """
    if split not in REACTION_SPLITS:
        raise ValueError(f"unknown reaction split {split!r}; valid: {list(REACTION_SPLITS)}")
    if corpus.held_out and split != "test":
        raise HeldOutSplitError(
            f"corpus {corpus.name!r} is held-out only: all its reactions are test reactions, so its {split!r} pool is "
            f"empty (draw test_in, test_out or test_cross, or test for balancing and byproducts; train and tune on "
            f"another corpus)")
    path = _pool_path(corpus, encoding, purpose, spec, split)
    cached = _read_pool(path, len(corpus))
    if cached is not None:
        return cached
    pool = _compute_pool(corpus, encoding, purpose, spec, split)
    _write_pool(path, pool)
    return pool


def _pool_path(corpus: Corpus, encoding: str, purpose: str, spec: SplitSpec, split: str) -> Path:
    payload = [POOL_VERSION, corpus.content_hash, encoding, purpose, dataclasses.asdict(spec), split]
    key = hashlib.sha256(json.dumps(payload, sort_keys=True, default=list).encode()).hexdigest()[:24]
    return cache_file("stoich", "pools", f"{key}.json")


def _read_pool(path: Path, n_reactions: int) -> tuple[int, ...] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        log.warning("cached reaction pool %s is unreadable (%s); recomputing", path, exc)
        return None
    if not isinstance(data, list) or not all(isinstance(i, int) and 0 <= i < n_reactions for i in data):
        log.warning("cached reaction pool %s does not fit the corpus; recomputing", path)
        return None
    return tuple(data)


def _write_pool(path: Path, pool: tuple[int, ...]) -> None:
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_text(json.dumps(list(pool)), encoding="utf-8")
        os.replace(tmp, path)
    except OSError as exc:  # a read-only cache only costs the recomputation next time
        log.warning("could not cache the reaction pool in %s (%s)", path, exc)


def _compute_pool(corpus: Corpus, encoding: Encoding, purpose: str, spec: SplitSpec, split: str) -> tuple[int, ...]:
    splits = reaction_splits(corpus, spec)
    seen: set[str] = set()
    pool = []
    for i, s in enumerate(splits):
        if s != split or not _usable(corpus, i, encoding, purpose):
            continue
        key = corpus.view(i, encoding).key  # type: ignore[union-attr]
        if key in seen:
            continue
        seen.add(key)
        pool.append(i)
    return tuple(pool)


def split_counts(corpus: Corpus, spec: SplitSpec) -> dict[str, int]:
    """Number of reactions per split."""
    counts = {s: 0 for s in REACTION_SPLITS}
    for s in reaction_splits(corpus, spec):
        counts[s] += 1
    return counts


def pool_composition(corpus: Corpus, encoding: Encoding = "formula", purpose: str = "products",
                     spec: SplitSpec = SplitSpec(), split: str = "test") -> dict[str, int]:
    """Reactions per class in a split's pool (:func:`reaction_pool`), largest class first."""
    counts = Counter(corpus.reactions[i].rclass for i in reaction_pool(corpus, encoding, purpose, spec, split))
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
