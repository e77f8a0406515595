"""Verifiable rewards: per-family checkers, multiset metrics and trainer adapters.

Trainer reward functions are importable by name (loaded lazily, so importing this package stays cheap):
``rlvr.rewards.chem_reward`` (any family), ``stoich_reward`` / ``mol_reward`` (None for rows of other
families), ``partial_reward`` (F1 / fraction-of-keys credit), ``exact_reward`` (exact match, whatever the
recipe's ``reward_mode``), ``format_reward`` (a readable answer
block) and the factory ``make_reward(reward=..., families=...)``; see :mod:`rlvr.rewards.trl`.
Adapters: :mod:`rlvr.rewards.verl` (``compute_score``), :mod:`rlvr.rewards.openrlhf` (``reward_func``),
:mod:`rlvr.rewards.server` (``rlvr serve-rewards``).
"""
from __future__ import annotations

import importlib
from typing import Any

#: lazily exported name -> module holding it
_LAZY = {
    "chem_reward": "rlvr.rewards.trl",
    "stoich_reward": "rlvr.rewards.trl",
    "mol_reward": "rlvr.rewards.trl",
    "partial_reward": "rlvr.rewards.trl",
    "exact_reward": "rlvr.rewards.trl",
    "format_reward": "rlvr.rewards.trl",
    "make_reward": "rlvr.rewards.trl",
    "compute_score": "rlvr.rewards.verl",
    "reward_func": "rlvr.rewards.openrlhf",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'rlvr.rewards' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # cache: later lookups skip __getattr__
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


__all__ = sorted(_LAZY)
