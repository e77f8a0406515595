"""What a task family is: :class:`FamilySpec` (its hooks), :class:`FamilyGroup` (what the families of
one group share: eval suite, report layout, environment id), :class:`SuiteEntry` and :class:`Difficulty`.

:mod:`rlvr.registry` binds names to these records; ``docs/writing-a-family.md`` says which hooks a
family must have and what the optional ones default to.
"""
from __future__ import annotations

import dataclasses
import inspect
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Mapping, Protocol, Sequence

from rlvr.prompting import ANSWERS, DEFAULT_STYLE, PROMPT_OPTIONS, FamilyConfig, PromptOptions, PromptStyle, present
from rlvr.task import Task, Verdict

if TYPE_CHECKING:  # pragma: no cover
    from pathlib import Path

#: ``solve(task, style="terse", max_chars=None) -> str``: a worked solution ending in the answer block,
#: not yet verified (``ValueError`` when none can be written; see :mod:`rlvr.solutions`)
Solver = Callable[..., str]
#: ``feedback(task, verdict) -> lines``: what is wrong with an answer, never the right value
Feedback = Callable[[Task, Verdict], "list[str]"]
#: ``baseline(task) -> completion``: a model-free reference answer (e.g. ``copy-input``)
Baseline = Callable[[Task], str]
#: ``perturb(task, completion) -> completions``: the smallest wrong changes of a correct completion that
#: the answer format can express (one coefficient or count +-1, one index changed, a value moved by one
#: unit of its last asked decimal); the conformance checks require that none scores 1.0
Perturb = Callable[[Task, str], "list[str]"]
#: ``renderings(task) -> completions``: the right answer in each other form the prompt allows (the count as a
#: word, another order of a bag's species, a formula in another atom order, another SMILES of the molecule);
#: the conformance checks require that every one scores 1.0 and that none is shown in the prompt
Renderings = Callable[[Task], "list[str]"]
#: tasks per family and split of a group's eval suite when the group declares none
DEFAULT_SUITE_SIZE = 5


@dataclass(frozen=True)
class Items:
    """What varies independently between a family's tasks: its *item* (a reaction, a molecule).

    ``noun``: the item's name in reports (``reaction``); ``key(task) -> str``: the item a task is about
    (tasks with one key share their item); ``pool_size(config, split) -> int | None``: how many distinct
    items a split draws from under a config (the generator's own config, as ``generator`` takes it; None
    where it cannot tell). A held-out claim counts items, not tasks, and an eval set larger than its pool
    is refused (it would repeat items).
    """

    noun: str
    key: Callable[[Task], str]
    pool_size: Callable[[Any, str], "int | None"] | None = None


class ReportLayout(Protocol):
    """How ``rlvr eval`` tabulates the records of one family group (records carry ``info["domain"] == name``)."""

    name: str

    def task_info(self, task: Task) -> dict[str, Any]:
        """The grouping fields of a task (its ``domain`` is set by the caller)."""

    def summarize(self, records: Sequence[Mapping[str, Any]], samples: int) -> dict[str, float]:
        """Flat ``{metric path: value in %}`` of every table cell."""

    def render(self, records: Sequence[Mapping[str, Any]], samples: int) -> str:
        """The Markdown section of the report."""

    def split_summary(self, summary: Mapping[str, float]) -> dict[str, dict[str, float]]:
        """``{row label: {metric: value}}`` per split, for before/after tables."""

    def plots(self, plt: Any, summary: Mapping[str, float], folder: Path) -> list[Path]:
        """PNG plots written into ``folder`` (an empty list when there is nothing to plot)."""


@dataclass(frozen=True)
class SuiteEntry:
    """``n`` tasks of ``family`` on ``split`` with generator ``options`` (one line of an eval suite)."""

    family: str
    split: str
    n: int
    options: dict[str, Any] = field(default_factory=dict, hash=False, compare=True)

    def label(self) -> str:
        opts = ",".join(f"{k}={v}" for k, v in sorted(self.options.items()))
        return f"{self.family}[{self.split}{',' + opts if opts else ''}]"


@dataclass(frozen=True, eq=False)
class FamilyGroup:
    """What families of one group share: the eval suite named after the group, the report layout,
    and the Gymnasium environment id bound to the group (with its default family).

    Only ``name`` is required. ``report`` None: ``rlvr eval`` reports the group's families with its
    generic per-family table; ``suite`` empty: :data:`DEFAULT_SUITE_SIZE` tasks of every family on every
    split (test splits only, where the family has any); ``default_family`` None: the group's first family.
    ``import_tasks(path)``: reads a file in a foreign format (a benchmark's published questions) as
    tasks of the group, ``ValueError`` when the file is not in that format (:func:`read_task_file`).
    """

    name: str
    title: str = ""
    report: ReportLayout | None = None
    suite: tuple[SuiteEntry, ...] = ()
    suite_description: str = ""
    env_id: str | None = None
    default_family: str | None = None
    import_tasks: Callable[[str], list[Task]] | None = None


@dataclass(frozen=True)
class Knob:
    """A generator option that sets difficulty, with its values easiest first (what curricula step through).

    ``span`` False: the option takes one level's value (``load=3``). ``span`` True: the option is an
    inclusive integer range ``(lo, hi)`` and the levels are values of its upper end; a curriculum at
    level ``i`` draws from ``(levels[0], levels[i])`` (e.g. a coefficient range that widens).
    """

    option: str
    levels: tuple[Any, ...]
    span: bool = False
    description: str = ""

    def __post_init__(self) -> None:
        if len(self.levels) < 2:
            raise ValueError(f"knob {self.option!r}: at least two levels, easiest first")
        object.__setattr__(self, "levels", tuple(self.levels))


@dataclass(frozen=True)
class Difficulty:
    """How a family's tasks vary in difficulty, for frontier task selection (:mod:`rlvr.frontier`).

    ``cell(task) -> str`` names the task's difficulty cell from its own record (e.g. ``"n=3"``,
    ``"species=4"``, ``"load=2"``): a pure function of the task, so choosing tasks by cell never
    changes which split a task belongs to. ``option``/``levels``: the generator option that sets the
    difficulty and its values, easiest first, where one does (what a threshold curriculum steps through).
    ``knobs``: every generator option that sets difficulty (:class:`Knob`), for frameworks with their own
    curricula (e.g. reasoning-gym's attribute levels).
    """

    cell: Callable[[Task], str]
    option: str | None = None
    levels: tuple[Any, ...] = ()
    description: str = ""
    knobs: tuple[Knob, ...] = ()


@dataclass(frozen=True, eq=False)
class FamilySpec:
    """Everything the rest of rlvr needs to know about one task family.

    Required:

    - ``generator(config, split, seed, index) -> Task``: deterministic and random-access; ``config``
      is an instance of ``config_cls`` (a dataclass whose fields are the family's options);
    - ``check(task, completion, **options) -> Verdict``: a pure function with bounded work;
    - ``oracle(task) -> str``: a minimal completion that scores 1.0 (from the ground truth);
    - ``splits``: the split names ``generator`` accepts.

    Hooks (all optional):

    - ``group``: the :class:`FamilyGroup` (eval suite, report layout, environment id);
    - ``reward_modes``: the values ``check`` accepts for its ``reward`` option (checked up front);
      ``check_options``: the keyword options ``check`` accepts (None: read from its signature);
    - ``solve``: the worked-solution writer (:data:`Solver`);
    - ``feedback``: the multi-turn feedback writer (:data:`Feedback`);
    - ``baselines``: model-free reference answers by name (``{"copy-input": fn}``);
    - ``prompt_styles``: question styles besides ``default`` (:class:`~rlvr.prompting.PromptStyle`);
      ``demo_priority(task)``: sort key preferring some tasks as few-shot demonstrations (lower first);
    - ``option_grid``: option sets that cover the family's variants (the registry-wide tests run each);
    - ``prepare(task, completion) -> job | None``: what a batch can do ahead for this pair's verdict
      (:func:`rlvr.api.prepare`): reads the pair and returns a job (a callable without arguments)
      that fills the checker's own caches, or None; it changes no verdict;
    - ``difficulty``: how the family's tasks vary in difficulty (:class:`Difficulty`); None: one cell;
    - ``perturb``: minimal wrong variants of a correct completion (:data:`Perturb`; None: every number of
      the answer block moved by one unit of its last written digit, :func:`rlvr.families.conformance.near_misses`);
    - ``items``: what a task is about and how many a split holds (:class:`Items`; None: every task is its own
      item, keyed by its prompt, and the pool size is unknown). See :meth:`item_key`, :meth:`pool_size`;
    - ``renderings``: the right answer in the other forms the prompt allows (:data:`Renderings`; None: only
      the oracle's own form).

    ``config_cls`` may be a dataclass with no fields: a family with no options of its own.
    """

    name: str
    config_cls: type
    generator: Callable[[Any, str, int, int], Task]
    check: Callable[..., Verdict]
    oracle: Callable[[Task], str]
    splits: tuple[str, ...]
    description: str = ""
    group: FamilyGroup | None = None
    reward_modes: tuple[str, ...] = ()
    check_options: tuple[str, ...] | None = None
    solve: Solver | None = None
    feedback: Feedback | None = None
    baselines: Mapping[str, Baseline] = field(default_factory=dict)
    prompt_styles: Mapping[str, PromptStyle] = field(default_factory=dict)
    demo_priority: Callable[[Task], Any] | None = None
    option_grid: tuple[Mapping[str, Any], ...] = ({},)
    ability: str = "chemistry"
    prepare: Callable[[Task, Any], Callable[[], Any] | None] | None = None
    difficulty: Difficulty | None = None
    perturb: Perturb | None = None
    items: Items | None = None
    renderings: Renderings | None = None
    #: the keyword options ``check`` accepts (None: any), resolved once from ``check_options`` or its signature
    accepted_check_options: tuple[str, ...] | None = field(init=False, repr=False, default=None)

    def __post_init__(self) -> None:
        if not dataclasses.is_dataclass(self.config_cls):
            raise TypeError(f"{self.name}: config_cls must be a dataclass, got {self.config_cls!r}")
        clash = sorted(self.generator_options & set(PROMPT_OPTIONS))
        if clash:
            raise TypeError(f"{self.name}: config fields {clash} clash with the prompt options {list(PROMPT_OPTIONS)}")
        if not self.splits:
            raise ValueError(f"{self.name}: a family needs at least one split")
        knobs = sorted({k.option for k in self.difficulty.knobs} - self.generator_options) if self.difficulty else []
        if knobs:
            raise TypeError(f"{self.name}: difficulty knobs {knobs} are not options of {self.config_cls.__name__}")
        if DEFAULT_STYLE in self.prompt_styles:
            raise ValueError(f"{self.name}: {DEFAULT_STYLE!r} is the generator's own prompt, not a style to register")
        object.__setattr__(self, "splits", tuple(self.splits))
        object.__setattr__(self, "reward_modes", tuple(self.reward_modes))
        object.__setattr__(self, "option_grid", tuple(dict(o) for o in self.option_grid) or ({},))
        object.__setattr__(self, "accepted_check_options", self._check_signature())

    # ------------------------------------------------------------------ options
    @property
    def generator_options(self) -> set[str]:
        """The generator's own option names (the fields of ``config_cls``)."""
        return {f.name for f in dataclasses.fields(self.config_cls)}

    @property
    def options(self) -> set[str]:
        """Every option a config of this family accepts: the generator's and the prompt options."""
        return self.generator_options | set(PROMPT_OPTIONS)

    @property
    def styles(self) -> tuple[str, ...]:
        """The prompt styles of the family (``default`` first)."""
        return (DEFAULT_STYLE, *self.prompt_styles)

    def make_config(self, **options: Any) -> FamilyConfig:
        """The family's config from keyword options, naming unknown or invalid ones clearly."""
        unknown = sorted(set(options) - self.options)
        if unknown:
            raise TypeError(f"{self.name}: unknown option(s) {unknown}; valid options: {sorted(self.options)}")
        prompt = PromptOptions(**{k: v for k, v in options.items() if k in PROMPT_OPTIONS})
        if prompt.prompt_style not in self.styles:
            raise ValueError(f"{self.name}: unknown prompt_style {prompt.prompt_style!r}; styles: {list(self.styles)}")
        if prompt.few_shot and prompt.few_shot_split not in self.splits:
            raise ValueError(f"{self.name}: few-shot examples need a valid split; {prompt.few_shot_split!r} "
                             f"not in {list(self.splits)}")
        if prompt.few_shot_answers != ANSWERS and self.solve is None:
            raise ValueError(f"{self.name}: few_shot_answers={prompt.few_shot_answers!r} needs a worked-solution "
                             "writer, and this family has none")
        task = self.config_cls(**{k: v for k, v in options.items() if k not in PROMPT_OPTIONS})
        return FamilyConfig(task, prompt)

    def generate(self, config: Any, split: str, seed: int, index: int) -> Task:
        """The task at ``(config, split, seed, index)``, its prompt presented as the config asks.

        ``config`` is a :class:`~rlvr.prompting.FamilyConfig` (from :meth:`make_config`) or the
        generator's own config (the default prompt).
        """
        if not isinstance(config, FamilyConfig):
            config = FamilyConfig(config)
        return present(self, self.generator(config.task, split, int(seed), int(index)), config)

    # ------------------------------------------------------------------ items
    @property
    def item_noun(self) -> str:
        """The name of the family's item in reports (``reaction``, ``molecule``; ``task`` by default)."""
        return self.items.noun if self.items is not None else "task"

    def item_key(self, task: Task) -> str:
        """The item ``task`` is about (:class:`Items`); by default the task's prompt text, so every distinct
        question is its own item."""
        if self.items is not None:
            return str(self.items.key(task))
        return "\n".join(str(m.get("content", "")) for m in task.prompt) if isinstance(task.prompt, list) else str(task.prompt)

    def pool_size(self, config: Any, split: str) -> int | None:
        """Distinct items ``split`` draws from under ``config`` (a :class:`~rlvr.prompting.FamilyConfig` or the
        generator's own config); None where the family cannot tell."""
        if self.items is None or self.items.pool_size is None:
            return None
        if isinstance(config, FamilyConfig):
            config = config.task
        return self.items.pool_size(config, split)

    # ------------------------------------------------------------------ checking
    def _check_signature(self) -> tuple[str, ...] | None:
        """The keyword options ``check`` accepts (None: any, the checker takes ``**options``)."""
        if self.check_options is not None:
            return tuple(self.check_options)
        try:
            params = list(inspect.signature(self.check).parameters.values())[2:]
        except (TypeError, ValueError):
            return None
        if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params):
            return None
        return tuple(p.name for p in params if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD))

    def validate_check_options(self, options: Mapping[str, Any]) -> None:
        """Raise ``TypeError`` for an option ``check`` does not take, ``ValueError`` for an unknown reward mode."""
        if not options:
            return
        accepted = self.accepted_check_options
        if accepted is not None:
            unknown = sorted(set(options) - set(accepted))
            if unknown:
                raise TypeError(f"{self.name}: verify() got an unexpected keyword argument {unknown[0]!r} "
                                f"(valid: {sorted(accepted)})")
        mode = options.get("reward")
        if mode is not None and self.reward_modes and mode not in self.reward_modes:
            raise ValueError(f"{self.name}: unknown reward mode {mode!r}; valid modes: {list(self.reward_modes)}")


def default_suite(families: Sequence[FamilySpec], n: int = DEFAULT_SUITE_SIZE) -> tuple[SuiteEntry, ...]:
    """``n`` tasks of every family on each of its test splits (splits named ``test*``; every split when it has none)."""
    entries = []
    for spec in families:
        tests = [s for s in spec.splits if s.startswith("test")] or list(spec.splits)
        entries += [SuiteEntry(spec.name, split, n) for split in tests]
    return tuple(entries)


__all__ = [
    "DEFAULT_SUITE_SIZE", "Baseline", "Difficulty", "FamilyGroup", "FamilySpec", "Feedback", "Items", "Perturb", "Renderings",
    "ReportLayout", "Solver", "SuiteEntry", "default_suite",
]
