"""Training and eval datasets for a recipe, built with :mod:`rlvr.datasets`.

- training: an unbounded stream of fresh tasks (``train_size: 0``, needs ``max_steps``) or a fixed
  dataset of ``train_size`` tasks; a :class:`~rlvr.train.curriculum.Curriculum` is handed to the
  stream, which reads its current option values at every row;
- evaluation: a dict of named, fixed eval sets (``eval_splits`` + ``eval_sets``), which TRL
  evaluates one by one and logs as ``eval_<name>_*``.

The recipe's prompt options (system prompt, style, few-shot) are options of every family's config,
so each row's prompt is the task's own and regenerates exactly (:func:`rlvr.regenerate`).

Every rank builds the same global task sequence from the same seeds (``rank=0, world_size=1``);
TRL's samplers (map-style) or accelerate's iterable sharding hand each rank a disjoint slice of each
batch, and a prompt's group of generations may span ranks, which is why the stream is not
pre-sharded here.
"""
from __future__ import annotations

import logging
from dataclasses import replace
from typing import Any

from rlvr.datasets import Mixture, build_dataset, build_stream
from rlvr.frontier import FrontierConfig, TaskSampler
from rlvr.registry import get_family, group_suite
from rlvr.train.config import TaskArguments, build_mix
from rlvr.train.curriculum import Curriculum

log = logging.getLogger(__name__)


def build_sampler(task_args: TaskArguments, dynamic: bool = False) -> TaskSampler | None:
    """The training stream's task sampler: frontier selection when the recipe sets ``frontier``; a plain
    (uniform, one candidate) sampler when only dynamic sampling needs replacement prompts; else None."""
    if not task_args.frontier and not dynamic:
        return None
    if task_args.frontier:
        config = FrontierConfig.from_mapping(task_args.frontier if isinstance(task_args.frontier, dict) else {})
    else:
        config = FrontierConfig(candidates=1, policy="uniform")
    return TaskSampler(Mixture(task_args.mix(), task_args.train_split, task_args.task_seed), config)


def build_train_dataset(task_args: TaskArguments, training_args: Any, curriculum: Curriculum | None = None,
                        sampler: TaskSampler | None = None) -> Any:
    """The training dataset of a recipe (a stream unless ``train_size > 0``)."""
    mix = task_args.mix()
    if task_args.train_size > 0:
        if curriculum is not None or sampler is not None:
            raise ValueError("a curriculum, frontier selection or dynamic sampling needs the task stream (train_size: 0); "
                             "a fixed dataset cannot change")
        return build_dataset(mix, n=task_args.train_size, split=task_args.train_split, seed=task_args.task_seed)
    if getattr(training_args, "max_steps", -1) <= 0:
        raise ValueError("the task stream is unbounded: set max_steps (or train_size > 0 for a fixed dataset)")
    # fresh tasks already come in random order; a shuffle buffer would pre-generate 1000 tasks and make a
    # curriculum lag by as many
    training_args.shuffle_dataset = False
    if curriculum is not None:
        check_curriculum(curriculum, mix)
    return build_stream(mix, split=task_args.train_split, seed=task_args.task_seed, curriculum=curriculum, sampler=sampler)


def check_curriculum(curriculum: Curriculum, mix: list[Any]) -> None:
    """Every curriculum level must be a valid option value of every family it applies to (fail before training)."""
    applies = [m for m in mix if curriculum.options_for(m.family)]
    if not applies:
        raise ValueError(f"curriculum option {curriculum.option!r} applies to none of the families {[m.family for m in mix]}")
    for m in applies:
        spec = get_family(m.family)
        for value in curriculum.levels:
            try:
                spec.make_config(**{**m.options, curriculum.option: value})
            except (TypeError, ValueError) as exc:
                raise ValueError(f"curriculum level {curriculum.option}={value!r} is invalid for {m.family}: {exc}") from exc


def held_out_splits(family: str) -> list[str]:
    """The held-out splits of ``family``, in its group's order: the splits its group's eval suite scores
    it on, else (no group) its ``test*`` splits, else every split not named ``train*`` or ``valid*``."""
    spec = get_family(family)
    if spec.group is not None:
        suite = [e.split for e in group_suite(spec.group) if e.family == family]
        if suite:
            return list(dict.fromkeys(suite))
    tests = [s for s in spec.splits if s.startswith("test")]
    return tests or [s for s in spec.splits if not s.startswith(("train", "valid"))] or list(spec.splits)


def default_eval_splits(task_args: TaskArguments) -> list[str]:
    """The eval splits of a recipe that names none: the held-out splits of its training mixture's families
    (``test_in``, ``test_cross``, ``test_out`` for ``stoich.t1``; ``easy``, ``hard`` for ``mol.count``),
    in the first family's order, keeping those every family of the mixture accepts."""
    families = list(dict.fromkeys(m.family for m in task_args.mix()))
    ordered = list(dict.fromkeys(s for f in families for s in held_out_splits(f)))
    shared = [s for s in ordered if all(s in get_family(f).splits for f in families)]
    if not shared:
        raise ValueError(f"the families {families} share no held-out split: name the eval sets in the recipe (eval_sets)")
    return shared


def eval_set_specs(task_args: TaskArguments) -> dict[str, dict[str, Any]]:
    """Named eval-set specs ``{name: {"mix", "split", "size"}}`` from ``eval_splits`` and ``eval_sets``.

    An ``eval_sets`` entry is a split name or ``{split, families | mixture, options, size}``; without
    families it reuses the training mixture (its ``options`` added on top).
    """
    specs: dict[str, dict[str, Any]] = {}
    base = task_args.mix()
    for split in task_args.eval_splits or []:
        specs[split] = {"mix": base, "split": split, "size": task_args.eval_size}
    for name, spec in (task_args.eval_sets or {}).items():
        specs[str(name)] = eval_set_spec(task_args, str(name), spec)
    return specs


def eval_set_spec(task_args: TaskArguments, name: str, spec: Any) -> dict[str, Any]:
    """One eval set's spec ``{"mix", "split", "size"}`` from a split name or ``{split, families | mixture,
    options, size}`` (without families: the training mixture, ``options`` on top); ValueError naming ``name``."""
    if isinstance(spec, str):
        spec = {"split": spec}
    if not isinstance(spec, dict) or not spec.get("split"):
        raise ValueError(f"eval set {name!r}: needs at least a `split`")
    unknown = set(spec) - {"split", "families", "mixture", "options", "size"}
    if unknown:
        raise ValueError(f"eval set {name!r}: unknown key(s) {sorted(unknown)}")
    options = dict(spec.get("options") or {})
    if spec.get("families") or spec.get("mixture"):
        families = spec.get("families")
        if isinstance(families, str):
            families = families.replace(",", " ").split()
        mix = build_mix(spec.get("mixture"), families, {**task_args.prompt_options(), **task_args.task_options, **options})
    else:
        mix = [replace(m, options={**m.options, **options}) for m in task_args.mix()]
    return {"mix": mix, "split": str(spec["split"]), "size": int(spec.get("size") or task_args.eval_size)}


def named_eval_set(task_args: TaskArguments, name: str, size: int | None = None) -> dict[str, dict[str, Any]]:
    """``{name: spec}`` for one set named like a recipe's tuning set: one of its eval sets (e.g. the molecules
    recipe's ``train_tune``), else a split of the training mixture; ``size`` replaces the set's own."""
    own = eval_set_specs(task_args).get(name) or eval_set_spec(task_args, name, {"split": name})
    return {name: {**own, "size": int(size or own["size"])}}


def eval_set_pool(spec: dict[str, Any]) -> tuple[int | None, str]:
    """``(distinct items the set draws from, their noun)`` of one eval-set spec: the sum of its families' split
    pools (``FamilySpec.pool_size``; an upper bound where two families share items), None where a family cannot
    tell. The noun is the families' item noun (``reaction``, ``molecule``), ``item`` when they differ."""
    mixture = Mixture(list(spec["mix"]), spec["split"], 0)
    total: int | None = 0
    nouns = set()
    for component in mixture.components:
        family = get_family(component.family)
        nouns.add(family.item_noun)
        size = family.pool_size(family.make_config(**component.options), mixture.split_of(component))
        total = None if size is None or total is None else total + int(size)
    return total, nouns.pop() if len(nouns) == 1 else "item"


def check_eval_pools(specs: dict[str, dict[str, Any]]) -> dict[str, int | None]:
    """Every eval set's pool (:func:`eval_set_pool`); ValueError in one line for a set larger than its pool, which
    would repeat reactions or molecules and so count one item as several independent tasks."""
    pools: dict[str, int | None] = {}
    for name, spec in specs.items():
        pool, noun = eval_set_pool(spec)
        if pool is not None and int(spec["size"]) > pool:
            raise ValueError(f"eval set {name!r}: {int(spec['size'])} tasks but its split {spec['split']!r} holds only "
                             f"{pool} distinct {noun}s; use size <= {pool} (a larger set repeats {noun}s)")
        pools[name] = pool
    return pools


def retention_set_spec(rule: dict[str, Any]) -> dict[str, Any]:
    """The eval-set spec of a recipe's ``retention_set`` (another task group's families, with their own prompts)."""
    families = rule["families"] if isinstance(rule["families"], list) else str(rule["families"]).replace(",", " ").split()
    return {"mix": build_mix(None, families, dict(rule["options"] or {})), "split": str(rule["split"]),
            "size": int(rule["size"])}


def build_eval_sets(task_args: TaskArguments) -> dict[str, Any]:
    """Fixed eval datasets by name (empty if none configured), in the training prompts; a set larger than its
    pool is refused (:func:`check_eval_pools`)."""
    check_eval_pools(eval_set_specs(task_args))
    return {name: build_dataset(spec["mix"], n=spec["size"], split=spec["split"], seed=task_args.eval_seed)
            for name, spec in eval_set_specs(task_args).items()}
