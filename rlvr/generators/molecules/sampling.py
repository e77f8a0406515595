"""Which features a question asks about (MolecularIQ appendix A.2, adapted to on-the-fly generation).

A task draws its molecule first; its feature keys are then drawn one at a time:

1. zero or non-zero: a zero-valued key (count 0, empty index list, empty string) is drawn with
   probability ``p_zero`` while non-zero candidates exist, and at most ``max_zero_keys`` zero keys
   go into one question (the paper rejects multi-property samples with more than one zero);
2. category: uniformly among the feature categories that still have candidates (so 112
   functional groups do not crowd out the 30 other features);
3. key: inverse-frequency weighting, ``1 / frequency of this key's value`` estimated on a fixed
   reference sample of the pool's ``train`` split, so common values (a ring count of 1, ten carbon
   atoms) give way to rarer ones.

The reference statistics are computed once per pool, feature set and solver version (a hash of
the feature modules' source and the RDKit version) and cached on disk.
"""
from __future__ import annotations

import gzip
import json
import os
import random
from collections import Counter
from functools import lru_cache
from typing import Any, Iterable, Sequence

from rlvr.chem.molecules.features import FeatureError, molecule_features
from rlvr.chem.molecules.tables import solver_fingerprint
from rlvr.generators.molecules.splits import SplitPool, pool_table
from rlvr.paths import cache_file
from rlvr.rng import stable_hash

#: molecules of the train split used to estimate value frequencies
REFERENCE_SAMPLE = 128
_STATS_VERSION = 1


def is_zero(value: Any) -> bool:
    """A count of 0, an empty index list or an empty string."""
    kind = type(value)
    if kind is int:  # the common case first
        return value == 0
    if kind is tuple or kind is list or kind is str:
        return len(value) == 0
    if isinstance(value, bool):
        return not value
    if isinstance(value, (int, float)):
        return value == 0
    if isinstance(value, (list, tuple, str)):
        return len(value) == 0
    return value is None


def bucket(value: Any) -> str:
    """The frequency bucket of a value: the integer, the length of a list, or empty/non-empty for strings."""
    if isinstance(value, bool):
        return str(int(value))
    if isinstance(value, int):
        return str(value)
    if isinstance(value, (list, tuple)):
        return f"n{len(value)}"
    if isinstance(value, str):
        return "empty" if not value else "str"
    return "other"


@lru_cache(maxsize=8)
def _freqs_cached(pool: SplitPool, keys: tuple[str, ...], n: int) -> dict[str, dict[str, float]]:
    tag = format(stable_hash("mol-freq", _STATS_VERSION, pool.key, n, solver_fingerprint(), *keys), "016x")
    path = cache_file("molecules", f"freq-{tag}.json.gz")
    if pool.key and path.exists():
        try:
            with gzip.open(path, "rt", encoding="utf-8") as fh:
                return json.load(fh)
        except (OSError, EOFError, ValueError):
            pass
    train = pool.members("train") or tuple(range(len(pool.smiles)))
    order = sorted(train, key=lambda i: stable_hash("mol-freq-sample", pool.smiles[i]))[:n]
    counts: dict[str, Counter] = {k: Counter() for k in keys}
    used = 0
    table = pool_table(pool)
    for i in order:
        try:
            values = molecule_features(pool.smiles[i], keys, table=table)
        except (FeatureError, ValueError):
            continue
        used += 1
        for k in keys:
            counts[k][bucket(values[k])] += 1
    freqs = {k: {b: c / max(used, 1) for b, c in counts[k].items()} for k in keys}
    freqs["__n__"] = {"n": float(used)}
    if pool.key:
        tmp = path.with_name(path.name + f".{os.getpid()}.tmp")
        with gzip.open(tmp, "wt", encoding="utf-8") as fh:
            json.dump(freqs, fh)
        tmp.replace(path)
    return freqs


def value_frequencies(pool: SplitPool, keys: Iterable[str], n: int = REFERENCE_SAMPLE) -> dict[str, dict[str, float]]:
    """``{key: {bucket: frequency}}`` on a fixed reference sample of the pool's train split."""
    return _freqs_cached(pool, tuple(sorted(keys)), n)


def _weighted_choice(items: Sequence[str], weights: Sequence[float], rng: random.Random) -> str:
    total = float(sum(weights))
    if total <= 0:
        return items[rng.randrange(len(items))]
    x = rng.random() * total
    acc = 0.0
    for item, w in zip(items, weights):
        acc += w
        if x < acc:
            return item
    return items[-1]


def choose_keys(
    values: dict[str, Any],
    candidates: Sequence[str],
    n: int,
    rng: random.Random,
    *,
    freqs: dict[str, dict[str, float]] | None,
    category_of: dict[str, str],
    p_zero: float | None = 0.15,
    max_zero_keys: int = 1,
    balance_categories: bool = True,
    exclusive: Sequence[tuple[frozenset[str], frozenset[str]]] = (),
) -> list[str]:
    """Draw ``n`` distinct keys for one question (see the module docstring); fewer if candidates run out.

    ``exclusive`` lists pairs of redundant key sets ``(A, B)``: once a key of A is chosen, no key of
    B is a candidate any more and vice versa (e.g. the molecular formula and the element counts in
    one generation task).
    """
    avail = [k for k in candidates if values.get(k) is not None]
    zero_of = {k: is_zero(values[k]) for k in avail}
    chosen: list[str] = []
    zeros = 0
    floor = 1.0 / ((freqs or {}).get("__n__", {}).get("n", REFERENCE_SAMPLE) + 1.0)
    while len(chosen) < n and avail:
        nonzero = [k for k in avail if not zero_of[k]]
        zero = [k for k in avail if zero_of[k]]
        if p_zero is None:
            group = avail
        elif not nonzero:
            group = zero
        elif not zero or zeros >= max_zero_keys:
            group = nonzero
        else:
            group = zero if rng.random() < p_zero else nonzero
        if balance_categories:
            cats = sorted({category_of.get(k, "") for k in group})
            cat = cats[rng.randrange(len(cats))]
            group = [k for k in group if category_of.get(k, "") == cat]
        if freqs is None:
            weights = [1.0] * len(group)
        else:
            weights = [1.0 / max(freqs.get(k, {}).get(bucket(values[k]), 0.0), floor) for k in group]
        key = _weighted_choice(group, weights, rng)
        chosen.append(key)
        zeros += zero_of[key]
        drop = {key}
        for a, b in exclusive:
            if key in a:
                drop |= b
            if key in b:
                drop |= a
        avail = [k for k in avail if k not in drop]
    return chosen
