"""The family registry: a name (``stoich.t2``, ``mol.index``) bound to its :class:`FamilySpec`.

A :class:`FamilySpec` carries everything the rest of rlvr needs to know about one family, as
hooks: the generator, checker and oracle, the worked-solution writer, multi-turn feedback,
reference baselines, prompt styles, and (through its :class:`FamilyGroup`) the eval suite and the
report layout. Consumers (envs, eval, train, solutions, CLI) call these hooks; none of them tests
a family's name.

Built-in families live in provider modules (:data:`PROVIDERS`) that expose
``FAMILIES: list[FamilySpec]``; a provider is imported only when one of its families is first
asked for, so importing :mod:`rlvr` stays cheap. Any other family is added at run time with
:func:`register_family` (see ``docs/writing-a-family.md``).
"""
from __future__ import annotations

import dataclasses
import importlib
import inspect
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Mapping, Protocol, Sequence

from rlvr.prompting import ANSWERS, DEFAULT_STYLE, PROMPT_OPTIONS, FamilyConfig, PromptOptions, PromptStyle, present
from rlvr.task import Task, Verdict

if TYPE_CHECKING:  # pragma: no cover
    from pathlib import Path

#: family-name prefix -> provider module of the built-in families (imported lazily)
PROVIDERS: dict[str, str] = {
    "stoich.": "rlvr.families.stoich",
    "mol.": "rlvr.families.molecules",
}
#: what ``rlvr train`` trains on when a recipe names no family
DEFAULT_TRAIN_FAMILIES: tuple[str, ...] = ("stoich.t1",)
#: the mixture of ``rlvr/ChemMix-v0`` when none is given
DEFAULT_MIX = "stoich.t1,stoich.t2,mol.count,mol.index"
#: the mixture of a text environment (``ChemEnv``) when none is given
DEFAULT_ENV_MIX = "stoich.t2"

#: ``solve(task, style="terse", max_chars=None) -> str``: a worked solution ending in the answer block,
#: not yet verified (``ValueError`` when none can be written; see :mod:`rlvr.solutions`)
Solver = Callable[..., str]
#: ``feedback(task, verdict) -> lines``: what is wrong with an answer, never the right value
Feedback = Callable[[Task, Verdict], "list[str]"]
#: ``baseline(task) -> completion``: a model-free reference answer (e.g. ``copy-input``)
Baseline = Callable[[Task], str]


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

    ``report`` None: ``rlvr eval`` reports the group's families with its generic per-family table.
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
class Difficulty:
    """How a family's tasks vary in difficulty, for frontier task selection (:mod:`rlvr.frontier`).

    ``cell(task) -> str`` names the task's difficulty cell from its own record (e.g. ``"n=3"``,
    ``"species=4"``, ``"load=2"``): a pure function of the task, so choosing tasks by cell never
    changes which split a task belongs to. ``option``/``levels``: the generator option that sets the
    difficulty and its values, easiest first, where one does (what a threshold curriculum steps through).
    """

    cell: Callable[[Task], str]
    option: str | None = None
    levels: tuple[Any, ...] = ()
    description: str = ""


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
    - ``difficulty``: how the family's tasks vary in difficulty (:class:`Difficulty`); None: one cell.
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


class Registry:
    """Families by name: the built-in providers (imported on first use) plus families registered at run time."""

    def __init__(self, providers: Mapping[str, str]) -> None:
        self._providers = dict(providers)
        self._loaded: dict[str, dict[str, FamilySpec]] = {}
        self._runtime: dict[str, FamilySpec] = {}
        self._found: dict[str, FamilySpec] = {}  # built-in families already looked up (providers never change)

    def _load(self, module: str) -> dict[str, FamilySpec]:
        if module not in self._loaded:
            specs = importlib.import_module(module).FAMILIES
            self._loaded[module] = {spec.name: spec for spec in specs}
        return self._loaded[module]

    def _provider_specs(self) -> dict[str, FamilySpec]:
        out: dict[str, FamilySpec] = {}
        for module in self._providers.values():
            try:
                out.update(self._load(module))
            except ModuleNotFoundError as exc:
                if exc.name != module:
                    raise
        return out

    def register(self, spec: FamilySpec, *, replace: bool = False) -> FamilySpec:
        """Add ``spec`` (``ValueError`` if the name is taken, unless ``replace``)."""
        if not isinstance(spec, FamilySpec):
            raise TypeError(f"register_family takes a FamilySpec, got {type(spec).__name__}")
        if not replace and (spec.name in self._runtime or self._provided(spec.name)):
            raise ValueError(f"task family {spec.name!r} is already registered (pass replace=True to override it)")
        self._runtime[spec.name] = spec
        return spec

    def unregister(self, name: str) -> None:
        """Remove a family registered at run time (``KeyError`` otherwise)."""
        if name not in self._runtime:
            raise KeyError(f"{name!r} was not registered at run time")
        del self._runtime[name]

    def _provided(self, name: str) -> FamilySpec | None:
        spec = self._found.get(name)
        if spec is not None:
            return spec
        for prefix, module in self._providers.items():
            if name.startswith(prefix):
                spec = self._load(module).get(name)
                if spec is not None:
                    self._found[name] = spec
                return spec
        return None

    def get(self, name: str) -> FamilySpec:
        spec = self._runtime.get(name) or self._provided(name)
        if spec is None:
            raise KeyError(f"unknown task family {name!r}; known families: {self.names()}")
        return spec

    def specs(self) -> list[FamilySpec]:
        """Every family, built-in ones in provider order, then those registered at run time."""
        return list({**self._provider_specs(), **self._runtime}.values())

    def names(self) -> list[str]:
        return sorted(spec.name for spec in self.specs())

    def runtime_names(self) -> list[str]:
        """The families added with :meth:`register` (unknown to a fresh process)."""
        return sorted(self._runtime)


#: the process-wide registry behind the module functions
REGISTRY = Registry(PROVIDERS)


def register_family(spec: FamilySpec, *, replace: bool = False) -> FamilySpec:
    """Register ``spec`` so every consumer (``rlvr.sample``, envs, rewards, eval, train) can use it."""
    return REGISTRY.register(spec, replace=replace)


def unregister_family(name: str) -> None:
    """Remove a family added with :func:`register_family`."""
    REGISTRY.unregister(name)


def get_family(name: str) -> FamilySpec:
    """The :class:`FamilySpec` registered under ``name`` (``KeyError`` listing known names otherwise)."""
    return REGISTRY.get(name)


def list_families() -> list[str]:
    """All registered family names."""
    return REGISTRY.names()


def list_groups() -> list[FamilyGroup]:
    """Every family group, in registration order (families without a group have none)."""
    groups: dict[int, FamilyGroup] = {}
    for spec in REGISTRY.specs():
        if spec.group is not None:
            groups.setdefault(id(spec.group), spec.group)
    return list(groups.values())


def get_group(name: str) -> FamilyGroup:
    """The group called ``name`` (``KeyError`` listing the groups otherwise)."""
    for group in list_groups():
        if group.name == name:
            return group
    raise KeyError(f"unknown family group {name!r}; groups: {[g.name for g in list_groups()]}")


def read_task_file(path: str) -> list[Task]:
    """The tasks of an rlvr task file (JSONL), or of a file a group's ``import_tasks`` reads."""
    from rlvr.task import TaskFormatError, load_tasks

    try:
        return load_tasks(path)
    except (TaskFormatError, ValueError, UnicodeDecodeError) as exc:
        for group in list_groups():
            if group.import_tasks is None:
                continue
            try:
                return group.import_tasks(path)
            except (ValueError, KeyError, OSError):
                continue
        raise exc


def group_families(group: FamilyGroup) -> list[str]:
    """The names of the families of ``group``, in registration order."""
    return [spec.name for spec in REGISTRY.specs() if spec.group is group]


def group_for_env(env_id: str) -> FamilyGroup:
    """The group bound to a Gymnasium environment id."""
    for group in list_groups():
        if group.env_id == env_id:
            return group
    raise KeyError(f"no family group is bound to environment {env_id!r}")


def resolve_in_group(group: FamilyGroup, name: str | None) -> str:
    """A family of ``group`` from its full name or the part after the group's prefix (``count``).

    None gives the group's default family; a family of another group is a ``ValueError``.
    """
    members = group_families(group)
    if name is None:
        name = group.default_family or members[0]
    if name in members:
        return name
    short = [m for m in members if m.split(".", 1)[-1] == name]
    if len(short) == 1:
        return short[0]
    raise ValueError(f"{group.env_id or group.name} takes a family of the {group.name!r} group "
                     f"({', '.join(members)}), got {name!r}")


__all__ = [
    "DEFAULT_ENV_MIX", "DEFAULT_MIX", "DEFAULT_TRAIN_FAMILIES", "PROVIDERS", "REGISTRY", "Baseline", "Feedback", "FamilyConfig",
    "FamilyGroup", "FamilySpec", "PromptOptions", "PromptStyle", "Registry", "ReportLayout", "Solver", "SuiteEntry",
    "get_family", "get_group", "group_families", "group_for_env", "list_families", "list_groups",
    "register_family", "resolve_in_group", "unregister_family",
]
