"""What a held-out split promises, checked on a family's *items* (``FamilySpec.items``: a reaction, a
molecule; without it every distinct prompt is its own item):

- :func:`check_splits_disjoint`: no item of a held-out split (every split not named ``train*``) is an item
  of a training split (``train*``), over the conformance set and :data:`TRAIN_SAMPLE` more training draws;
- :func:`check_variety`: over indices 0 to :data:`VARIETY_DRAWS` - 1 of each split and option set of the
  ``option_grid``, the distinct items and the distinct prompts are each at least :data:`MIN_DISTINCT_SHARE`
  of the draws, or of the split's pool where ``FamilySpec.pool_size`` says it is smaller;
- :func:`check_every_item`: where a cell's pool (``pool_size``) holds at most :data:`EXHAUSTIVE_ITEMS` items,
  indices are drawn until every item has appeared and no new prompt has appeared in :data:`QUIET_FACTOR`
  times as many draws as there are distinct prompts (at most :data:`EXHAUSTIVE_DRAWS`), and the oracle answer
  of every draw scores 1.0: generator-checker agreement on every item, and on every variant of it the
  generator draws (of 30 equally likely variants, one unseen yet is missed with probability under 1 %). A
  cell that reaches the cap (its questions vary without end: a molecule asked about any of hundreds of
  features, shown in random SMILES) has its variants sampled; a family whose pool size is unknown, or
  larger, is only sampled by the conformance set.
"""
from __future__ import annotations

import math
from typing import Any, Iterable, Mapping

from rlvr.api import generate, oracle_completion
from rlvr.families.contract import ConformanceError, require, shown
from rlvr.families.taskset import per_cell, variants
from rlvr.families.timing import timed_verify
from rlvr.reasons import Reason
from rlvr.registry import FamilySpec, get_family
from rlvr.task import Task

#: training tasks drawn besides the conformance set (spread over the training splits and variants)
TRAIN_SAMPLE = 1000
#: indices of each split and option set whose items and prompts must vary
VARIETY_DRAWS = 40
#: the least share of distinct items, and of distinct prompts, among those draws (or of a smaller pool)
MIN_DISTINCT_SHARE = 0.25
#: a cell whose pool holds at most this many items is checked item by item
EXHAUSTIVE_ITEMS = 64
#: the most draws of one cell checked item by item
EXHAUSTIVE_DRAWS = 1000
#: draws with no new prompt, per distinct prompt, that end a cell checked item by item
QUIET_FACTOR = 5


def training_splits(spec: FamilySpec) -> list[str]:
    """The splits a model trains on: those named ``train*``."""
    return [split for split in spec.splits if split.startswith("train")]


def _where(options: Mapping[str, Any]) -> str:
    return "" if not options else " with " + ", ".join(f"{k}={v!r}" for k, v in sorted(options.items()))


def _prompt(task: Task) -> str:
    return "\n".join(str(m.get("content", "")) for m in task.prompt)


def _pool(spec: FamilySpec, options: Mapping[str, Any], split: str) -> int | None:
    try:
        return spec.pool_size(spec.make_config(**options), split)
    except Exception:  # noqa: BLE001 - a pool the family cannot size is an unknown pool
        return None


def check_splits_disjoint(family: str, by_split: Mapping[str, list[Task]], *, seed: int,
                          sample: int = TRAIN_SAMPLE) -> int:
    """No held-out task of ``by_split`` (the conformance set) is about an item that a training split draws:
    its training tasks, and ``sample`` more training draws at the indices after them. Returns how many
    training items were seen."""
    spec = get_family(family)
    train = training_splits(spec)
    held = [split for split in spec.splits if split not in train]
    if not train or not held:
        return 0
    seen: dict[str, Task] = {}
    for split in train:
        for task in by_split.get(split, []):
            seen.setdefault(spec.item_key(task), task)
    cells = [(split, opts) for split in train for opts in variants(family)]
    start, count = per_cell(family), max(1, -(-sample // len(cells)))
    for k, (split, opts) in enumerate(cells):  # each cell its own indices: a pool is drawn in one order
        for index in range(start + k * count, start + (k + 1) * count):
            task = generate(family, split, seed, index, **opts)
            seen.setdefault(spec.item_key(task), task)
    for split in held:
        for task in by_split.get(split, []):
            key = spec.item_key(task)
            if key in seen:
                other = seen[key]
                raise ConformanceError(
                    f"{task.id}: a held-out split shares an item with train: the {spec.item_noun} {shown(key)} of "
                    f"split {split!r} is also drawn by {other.id.split(':')[1]!r} ({other.id}). A held-out split must "
                    f"draw only items no training split draws (membership is a property of the item: a hash of its "
                    f"key, or a pool of its own)")
    return len(seen)


def check_variety(family: str, *, seed: int, draws: int = VARIETY_DRAWS) -> int:
    """Over indices ``0 .. draws - 1`` of every split and option set of the ``option_grid``, at least
    :data:`MIN_DISTINCT_SHARE` of the draws (or of the split's pool, where smaller) are distinct items, and as
    many distinct prompts. Returns how many tasks were drawn."""
    spec = get_family(family)
    drawn = 0
    for split in spec.splits:
        for options in spec.option_grid:
            tasks = [generate(family, split, seed, index, **options) for index in range(draws)]
            drawn += len(tasks)
            pool = _pool(spec, options, split)
            base = min(draws, pool) if pool else draws
            need = max(min(base, 2), math.ceil(MIN_DISTINCT_SHARE * base))
            of = f"{MIN_DISTINCT_SHARE:.0%} of " + (f"its pool of {pool}" if pool and pool < draws else f"{draws} draws")
            for what, found in ((spec.item_noun, {spec.item_key(t) for t in tasks}),
                                ("prompt", {_prompt(t) for t in tasks})):
                require(len(found) >= need,
                        f"{tasks[0].id}: the generator varies too little: {len(found)} distinct {what}"
                        f"{'' if len(found) == 1 else 's'} over indices 0 to {draws - 1} of split {split!r}"
                        f"{_where(options)} (at least {need}: {of}). Every choice must come from "
                        f"rlvr.rng.task_rng(seed, family, split, index), and a pool that small must be declared "
                        f"(FamilySpec.items with its pool_size)")
    return drawn


def _agrees(task: Task) -> str | None:
    """None when the task's oracle answer scores 1.0 with reason ``ok``, else what it scores."""
    try:
        oracle = oracle_completion(task)
    except Exception as exc:  # noqa: BLE001 - the oracle's own failure is the finding
        return f"its oracle raised {type(exc).__name__}: {exc}"
    verdict = timed_verify(task, oracle)
    if verdict.reward == 1.0 and verdict.correct and verdict.reason == Reason.OK:
        return None
    return f"the oracle answer {shown(oracle)} scores {verdict}"


def check_every_item(family: str, *, seed: int, max_items: int = EXHAUSTIVE_ITEMS,
                     max_draws: int = EXHAUSTIVE_DRAWS, cells: Iterable[tuple[str, dict[str, Any]]] | None = None
                     ) -> list[tuple[str, dict[str, Any], int, int]]:
    """Generator-checker agreement on every item of each small pool (module docstring). Returns
    ``(split, options, items, draws)`` of every cell checked item by item."""
    spec = get_family(family)
    checked = []
    for split, options in cells if cells is not None else [(s, o) for s in spec.splits for o in variants(family)]:
        pool = _pool(spec, options, split)
        if pool is None or pool > max_items:
            continue
        items: dict[str, int] = {}
        prompts: set[str] = set()
        quiet = draws = 0
        while draws < max_draws and (len(items) < pool or quiet < QUIET_FACTOR * max(len(prompts), 4)):
            task = generate(family, split, seed, draws, **options)
            draws += 1
            key, prompt = spec.item_key(task), _prompt(task)
            items[key] = items.get(key, 0) + 1
            quiet = 0 if prompt not in prompts else quiet + 1
            prompts.add(prompt)
            why = _agrees(task)
            if why is not None:
                raise ConformanceError(
                    f"{task.id}: the generator and the checker disagree on the {spec.item_noun} {shown(key)} of split "
                    f"{split!r}{_where(options)}, whose pool of {pool} is checked item by item: {why}. A checker that "
                    f"recomputes its truth must agree with the ground truth its generator wrote on every item")
        checked.append((split, dict(options), len(items), draws))
    return checked


__all__ = ["EXHAUSTIVE_DRAWS", "EXHAUSTIVE_ITEMS", "MIN_DISTINCT_SHARE", "QUIET_FACTOR", "TRAIN_SAMPLE", "VARIETY_DRAWS",
           "check_every_item", "check_splits_disjoint", "check_variety", "training_splits"]
