"""Deterministic randomness: every random choice derives from (seed, family, split, index).

Nothing here touches global random state; the same key gives the same stream on any
machine, Python version and process.
"""
from __future__ import annotations

import hashlib
import random
from typing import Any, Sequence


def stable_hash(*parts: Any) -> int:
    """A 64-bit hash of ``parts`` that is identical across processes and machines."""
    text = "\x1f".join(str(p) for p in parts)
    return int.from_bytes(hashlib.blake2b(text.encode("utf-8"), digest_size=8).digest(), "big")


def unit_interval(*parts: Any) -> float:
    """Map ``parts`` to a stable float in [0, 1)."""
    return stable_hash(*parts) / 2**64


def task_rng(seed: int, family: str, split: str, index: int, salt: str = "") -> random.Random:
    """The RNG for one task: a fresh ``random.Random`` seeded from the task key."""
    return random.Random(stable_hash("rlvr-task", seed, family, split, index, salt))


def assign_split(key: str, fractions: Sequence[tuple[str, float]], salt: str = "split") -> str:
    """Assign an item to a split by a stable hash of its canonical ``key``.

    ``fractions`` is a sequence of (split name, weight); weights are normalised. Membership
    is a property of the key alone, so no item can land in two splits.
    """
    total = float(sum(w for _, w in fractions))
    if total <= 0:
        raise ValueError("split fractions must sum to a positive number")
    u = unit_interval(salt, key) * total
    acc = 0.0
    for name, weight in fractions:
        acc += weight
        if u < acc:
            return name
    return fractions[-1][0]


def shard_indices(start: int, stop: int | None, rank: int = 0, world_size: int = 1):
    """Yield task indices ``start, start+1, ...`` owned by ``rank`` (round-robin), unbounded if stop is None."""
    if world_size < 1 or not 0 <= rank < world_size:
        raise ValueError(f"invalid rank {rank} for world size {world_size}")
    i = start + ((rank - start) % world_size)
    while stop is None or i < stop:
        yield i
        i += world_size
