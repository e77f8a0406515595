"""Task streams for trainers: finite ``datasets.Dataset`` (eval) and unlimited ``IterableDataset`` (training).

Every row is one task with the columns the reward functions need:

- ``prompt``: the conversational prompt (list of ``{"role", "content"}`` messages);
- ``task_json``: the full task record as a JSON string (what :mod:`rlvr.rewards` reads);
- ``family``, ``id``, ``split``;
- ``completion`` (only with ``with_solution=True``): the worked solution as one assistant message.

A mixture of families is a list of :class:`FamilyMix` (or a string ``"stoich.t1:2,mol.count@easy:1"``).
Which family row ``i`` comes from is a pure function of ``(seed, split, i)`` (via :mod:`rlvr.rng`), and
the task itself is ``rlvr.generate(family, split, seed, i, **options)``: the same row on any machine and in
any process. Streams are sharded by ``rank`` round-robin over the global row index, so N processes never
see the same task.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any, Callable, Iterator, Mapping, Protocol, Sequence, Union, runtime_checkable

from rlvr.api import generate
from rlvr.frontier import FrontierConfig, TaskSampler
from rlvr.registry import get_family
from rlvr.rng import shard_indices, unit_interval
from rlvr.solutions import SolutionError, worked_solution
from rlvr.task import Task

if TYPE_CHECKING:  # pragma: no cover
    import datasets

#: the columns of every row (``completion`` is added with ``with_solution``)
COLUMNS = ("prompt", "task_json", "family", "id", "split")


@dataclass(frozen=True)
class FamilyMix:
    """One component of a task mixture.

    ``weight`` is the relative sampling weight; ``options`` are the family's config fields
    (e.g. ``{"encoding": "smiles"}``); ``split`` overrides the stream's split for this family
    (e.g. ``mol.count`` drawn from ``easy`` next to ``stoich.t1`` drawn from ``test_in``).
    """

    family: str
    weight: float = 1.0
    options: dict = field(default_factory=dict)
    split: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.family, str) or not self.family:
            raise ValueError(f"FamilyMix.family must be a family name, got {self.family!r}")
        weight = float(self.weight)
        if not math.isfinite(weight) or weight <= 0:
            raise ValueError(f"{self.family}: mixture weight must be a positive finite number, got {self.weight!r}")
        object.__setattr__(self, "weight", weight)
        if not isinstance(self.options, Mapping):
            raise ValueError(f"{self.family}: options must be a mapping, got {type(self.options).__name__}")
        object.__setattr__(self, "options", dict(self.options))


MixLike = Union[str, FamilyMix, Mapping[str, Any], Sequence[Union[str, FamilyMix, Mapping[str, Any]]]]


def parse_mix(mix: MixLike) -> list[FamilyMix]:
    """Normalise a mixture: a :class:`FamilyMix` list, mappings, or ``"fam[@split][:weight],..."`` strings.

    >>> [(m.family, m.weight, m.split) for m in parse_mix("stoich.t1:2, mol.count@easy")]
    [('stoich.t1', 2.0, None), ('mol.count', 1.0, 'easy')]
    """
    if isinstance(mix, FamilyMix):
        return [mix]
    if isinstance(mix, str):
        items: list[Any] = [part.strip() for part in mix.split(",") if part.strip()]
    elif isinstance(mix, Mapping):
        items = [mix]
    else:
        items = list(mix)
    out: list[FamilyMix] = []
    for item in items:
        if isinstance(item, FamilyMix):
            out.append(item)
        elif isinstance(item, str):
            name, _, weight = item.strip().partition(":")
            name, _, split = name.partition("@")
            try:
                w = float(weight) if weight.strip() else 1.0
            except ValueError:
                raise ValueError(f"mixture entry {item!r}: weight {weight!r} is not a number") from None
            out.append(FamilyMix(name.strip(), w, {}, split.strip() or None))
        elif isinstance(item, Mapping):
            unknown = set(item) - {"family", "weight", "options", "split"}
            if "family" not in item or unknown:
                raise ValueError(f"mixture entry {dict(item)!r}: needs `family`; allowed keys: family, weight, options, split")
            out.append(FamilyMix(str(item["family"]), item.get("weight", 1.0), dict(item.get("options") or {}), item.get("split")))
        else:
            raise ValueError(f"mixture entry {item!r}: expected a FamilyMix, a mapping or 'family[@split][:weight]'")
    if not out:
        raise ValueError("empty task mixture")
    return out


@runtime_checkable
class CurriculumHook(Protocol):
    """Anything with ``options_for(family) -> mapping``: option overrides read at every row."""

    def options_for(self, family: str) -> Mapping[str, Any]:  # pragma: no cover - protocol
        ...


CurriculumLike = Union[CurriculumHook, Callable[[str], Mapping[str, Any]], None]


def _curriculum_options(curriculum: CurriculumLike, family: str) -> dict[str, Any]:
    if curriculum is None:
        return {}
    if isinstance(curriculum, CurriculumHook):
        return dict(curriculum.options_for(family) or {})
    if callable(curriculum):
        return dict(curriculum(family) or {})
    raise TypeError(f"curriculum must have options_for(family) or be callable, got {type(curriculum).__name__}")


class Mixture:
    """A weighted, deterministic mixture of task families: row ``i`` -> one :class:`~rlvr.task.Task`.

    Construction validates every family, split and option set (clear errors before any training step).
    """

    def __init__(self, mix: MixLike, split: str = "train", seed: int = 0) -> None:
        self.components = parse_mix(mix)
        self.split = split
        self.seed = int(seed)
        total = sum(c.weight for c in self.components)
        acc = 0.0
        self._cumulative: list[float] = []
        for c in self.components:
            acc += c.weight / total
            self._cumulative.append(acc)
        for c in self.components:
            spec = get_family(c.family)
            s = self.split_of(c)
            if s not in spec.splits:
                raise ValueError(
                    f"{c.family}: unknown split {s!r}; valid splits: {list(spec.splits)} "
                    f"(set FamilyMix(split=...) or 'family@split' to mix families with different split names)"
                )
            spec.make_config(**c.options)  # unknown or invalid options fail here, not mid-training
        self._fields = {c.family: get_family(c.family).options for c in self.components}

    def split_of(self, component: FamilyMix) -> str:
        """The split a component draws from (its own override, else the mixture's)."""
        return component.split or self.split

    def component_at(self, index: int) -> FamilyMix:
        """The family of row ``index``: a stable hash of (seed, split, index) against the cumulative weights."""
        if len(self.components) == 1:
            return self.components[0]
        u = unit_interval("rlvr-mixture", self.seed, self.split, int(index))
        for component, edge in zip(self.components, self._cumulative):
            if u < edge:
                return component
        return self.components[-1]

    def task_at(self, index: int, curriculum: CurriculumLike = None) -> Task:
        """The task of row ``index`` (curriculum overrides applied on top of the component's options).

        A curriculum option applies to the families that have it (a coefficient range steers the
        stoichiometry rows of a mixed stream and leaves the molecule rows alone); an option no family
        of the mixture has is an error.
        """
        c = self.component_at(index)
        extra = _curriculum_options(curriculum, c.family)
        if extra:
            unknown = [k for k in extra if not any(k in fields for fields in self._fields.values())]
            if unknown:
                raise TypeError(f"curriculum option(s) {unknown} are options of no family in {self!r}")
            extra = {k: v for k, v in extra.items() if k in self._fields[c.family]}
        return generate(c.family, self.split_of(c), self.seed, int(index), **{**c.options, **extra})

    def families(self) -> list[str]:
        return [c.family for c in self.components]

    def __repr__(self) -> str:
        parts = ", ".join(f"{c.family}{'@' + c.split if c.split else ''}:{c.weight:g}" for c in self.components)
        return f"Mixture([{parts}], split={self.split!r}, seed={self.seed})"


def row_features(with_solution: bool = False) -> "datasets.Features":
    """The ``datasets.Features`` of the rows (``completion`` included with ``with_solution``)."""
    from datasets import Features, List, Value

    message = {"role": Value("string"), "content": Value("string")}
    cols: dict[str, Any] = {
        "prompt": List(message),
        "task_json": Value("string"),
        "family": Value("string"),
        "id": Value("string"),
        "split": Value("string"),
    }
    if with_solution:
        cols["completion"] = List(message)
    return Features(cols)


def task_row(task: Task, *, with_solution: bool = False, style: str = "terse") -> dict[str, Any]:
    """The dataset row of one task (``completion`` from :func:`rlvr.solutions.worked_solution` if asked)."""
    row: dict[str, Any] = {
        "prompt": [{"role": str(m.get("role", "user")), "content": str(m.get("content", ""))} for m in task.prompt],
        "task_json": task.to_json(),
        "family": task.family,
        "id": task.id,
        "split": str(task.meta.get("split") or task.id.split(":")[1]),
    }
    if with_solution:
        row["completion"] = [{"role": "assistant", "content": worked_solution(task, style=style)}]
    return row


def _check_rank(rank: int, world_size: int) -> None:
    if int(world_size) < 1 or not 0 <= int(rank) < int(world_size):
        raise ValueError(f"invalid rank {rank} for world size {world_size}")


def iter_rows(
    mix: MixLike,
    split: str = "train",
    seed: int = 0,
    *,
    n: int | None = None,
    start: int = 0,
    rank: int = 0,
    world_size: int = 1,
    curriculum: CurriculumLike = None,
    with_solution: bool = False,
    style: str = "terse",
) -> Iterator[dict[str, Any]]:
    """Rows for global indices ``start .. start+n`` (unbounded if ``n`` is None) owned by ``rank``.

    With ``with_solution`` a task whose solution cannot be derived from its prompt (some ``paper``
    semantics Type 2 tasks) yields no row, so a dataset may hold fewer than ``n`` rows.
    """
    _check_rank(rank, world_size)
    mixture = mix if isinstance(mix, (Mixture, TaskSampler)) else Mixture(mix, split, seed)
    stop = None if n is None else start + int(n)
    for index in shard_indices(int(start), stop, int(rank), int(world_size)):
        task = mixture.task_at(index, curriculum)
        if with_solution:
            try:
                yield task_row(task, with_solution=True, style=style)
            except SolutionError:  # no derivable solution (e.g. some `paper`-semantics tasks): no SFT row
                continue
        else:
            yield task_row(task, style=style)


def build_dataset(
    mix: MixLike,
    n: int,
    split: str,
    seed: int = 0,
    with_solution: bool = False,
    *,
    start: int = 0,
    style: str = "terse",
) -> "datasets.Dataset":
    """A finite in-memory ``datasets.Dataset`` of ``n`` tasks (rows ``start .. start+n-1``), e.g. for evaluation."""
    from datasets import Dataset

    if int(n) < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    mixture = Mixture(mix, split, seed)
    rows = list(iter_rows(mixture, n=int(n), start=start, with_solution=with_solution, style=style))
    return Dataset.from_list(rows, features=row_features(with_solution))


def _stream_generator(mixture: Mixture | TaskSampler, start: int, rank: int, world_size: int, curriculum: CurriculumLike,
                      with_solution: bool, style: str) -> Iterator[dict[str, Any]]:
    yield from iter_rows(mixture, start=start, rank=rank, world_size=world_size, curriculum=curriculum,
                         with_solution=with_solution, style=style)


def build_stream(
    mix: MixLike,
    split: str = "train",
    seed: int = 0,
    rank: int = 0,
    world_size: int = 1,
    curriculum: CurriculumLike = None,
    *,
    start: int = 0,
    with_solution: bool = False,
    style: str = "terse",
    sampler: TaskSampler | None = None,
) -> "datasets.IterableDataset":
    """An unlimited ``datasets.IterableDataset`` of fresh tasks for training.

    ``rank``/``world_size`` shard the global row index round-robin, so processes drawing with the same
    seed never see the same task. Note for TRL's GRPO/RLOO under ``accelerate``: those trainers read the
    *same* stream on every process and slice each batch themselves (a prompt's group of generations is
    spread across processes), so build the stream with the default ``rank=0, world_size=1`` there; use
    ``rank`` for loops that generate independently per process.

    ``curriculum`` (an object with ``options_for(family)`` or a callable ``family -> options``) is read
    at every row, so a callback that advances it changes the tasks that follow.

    ``sampler`` (a :class:`~rlvr.frontier.TaskSampler` over this mixture, split and seed, e.g. from
    :func:`frontier_stream`) chooses each row's task from the rewards it is fed (frontier selection).
    """
    from datasets import IterableDataset

    mixture: Mixture | TaskSampler = Mixture(mix, split, seed)
    if sampler is not None:
        if curriculum is not None:
            raise ValueError("a stream takes either a curriculum or a frontier sampler, not both")
        if (sampler.split, sampler.seed) != (mixture.split, mixture.seed):
            raise ValueError(f"the sampler draws from split {sampler.split!r} seed {sampler.seed}, the stream from "
                             f"{mixture.split!r} seed {mixture.seed}")
        mixture = sampler
    _check_rank(rank, world_size)
    gen = partial(_stream_generator, mixture, int(start), int(rank), int(world_size), curriculum, with_solution, style)
    return IterableDataset.from_generator(gen, features=row_features(with_solution))


def frontier_stream(mix: MixLike, split: str = "train", seed: int = 0, config: FrontierConfig | Mapping[str, Any] | None = None,
                    **kwargs: Any) -> tuple["datasets.IterableDataset", TaskSampler]:
    """An unlimited stream whose tasks are chosen at the model's frontier, and the sampler to feed.

    Feed each graded completion back with ``sampler.observe(task, success)`` (the TRL trainer of
    :mod:`rlvr.train` does it after every generation batch); the draws are a pure function of the
    seed and that history.
    """
    cfg = config if isinstance(config, FrontierConfig) else FrontierConfig.from_mapping(config)
    sampler = TaskSampler(Mixture(mix, split, seed), cfg)
    return build_stream(mix, split, seed, sampler=sampler, **kwargs), sampler


def task_from_row(row: Mapping[str, Any]) -> Task:
    """The :class:`~rlvr.task.Task` of a dataset row (``task_json`` column, or the record's own fields)."""
    raw = row.get("task_json")
    if raw is not None:
        return Task.from_json(raw) if isinstance(raw, str) else Task.from_dict(raw)
    return Task.from_dict(row)

