"""Resolve reward-function names from a recipe into TRL reward callables.

A name is either an attribute of :mod:`rlvr.rewards` (``chem_reward``, ``format_reward``, ...)
or a dotted import path (``mypkg.rewards.my_reward``). The functions themselves live in
:mod:`rlvr.rewards` (they score through the family checkers); nothing here scores anything.
"""
from __future__ import annotations

import functools
import importlib
import inspect
from typing import Any, Callable, Sequence


def _import_dotted(path: str) -> Callable[..., Any]:
    module_name, _, attr = path.rpartition(".")
    if not module_name:
        raise ValueError(f"reward function {path!r}: not a name in rlvr.rewards nor a dotted path")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        raise ValueError(f"reward function {path!r}: cannot import {module_name!r} ({exc})") from exc
    try:
        return getattr(module, attr)
    except AttributeError as exc:
        raise ValueError(f"reward function {path!r}: {module_name} has no {attr!r}") from exc


def resolve_reward_func(name: str) -> Callable[..., Any]:
    """The reward callable for ``name`` (a name in :mod:`rlvr.rewards` or a dotted path)."""
    if "." not in name:
        rewards = importlib.import_module("rlvr.rewards")
        func = getattr(rewards, name, None)
        if func is None:
            try:
                func = getattr(importlib.import_module("rlvr.rewards.trl"), name, None)
            except ModuleNotFoundError as exc:
                if exc.name != "rlvr.rewards.trl":
                    raise
        if func is None:
            known = sorted(n for n in dir(rewards) if n.endswith("_reward"))
            raise ValueError(f"unknown reward function {name!r}; rlvr.rewards provides {known} (or give a dotted path)")
    else:
        func = _import_dotted(name)
    if not callable(func):
        raise ValueError(f"reward function {name!r} is not callable")
    return func


def _accepts(func: Callable[..., Any], kwarg: str) -> bool:
    try:
        params = inspect.signature(func).parameters
    except (TypeError, ValueError):
        return False
    return kwarg in params or any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())


def with_reward_mode(func: Callable[..., Any], mode: str) -> Callable[..., Any]:
    """``func`` with ``reward_mode=mode`` bound, keeping its ``__name__`` (TRL logs rewards by name)."""

    @functools.wraps(func)
    def reward(prompts, completions, **kwargs):
        kwargs.setdefault("reward_mode", mode)
        return func(prompts, completions, **kwargs)

    return reward


def resolve_reward_funcs(names: Sequence[str], reward_mode: str | None = None) -> list[Callable[..., Any]]:
    """Reward callables for ``names``; ``reward_mode`` is passed to the functions that take it."""
    if not names:
        raise ValueError("no reward functions configured (reward_funcs)")
    funcs = []
    for name in names:
        func = resolve_reward_func(name)
        if reward_mode and _accepts(func, "reward_mode"):
            func = with_reward_mode(func, reward_mode)
        funcs.append(func)
    return funcs
