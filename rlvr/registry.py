"""The family registry: a name (``stoich.t2``, ``mol.index``) bound to its :class:`FamilySpec`.

A :class:`FamilySpec` (:mod:`rlvr.family_spec`) carries everything the rest of rlvr needs to know
about one family, as hooks; consumers (envs, eval, train, solutions, CLI) call them, and none of
them tests a family's name.

Families come from three places, all looked up the same way:

- built-in provider modules, one line each in :data:`PROVIDERS` (``"mol.mw": "rlvr.families.mol_mw"``);
- installed packages, through the ``rlvr.families`` entry-point group (``mol.mw = "my_package.mw"``),
  read on first use of the registry;
- :func:`register_family` at run time (a plugin: ``rlvr <command> --plugin MODULE_OR_FILE``).

A provider module exposes ``FAMILIES: list[FamilySpec]`` (or registers its families when imported)
and is imported only when one of its families is first asked for, so importing :mod:`rlvr` stays
cheap. A provider's key is a family name or a group prefix (the part of a name before its first dot):
a name is looked up under its exact key first, then under its prefix, then in every other provider,
so the order of the lines never matters. A provider that fails to import costs one warning line and
its own families, never the others.
"""
from __future__ import annotations

import difflib
import importlib
import logging
import re
from importlib import metadata
from typing import Any, Iterator, Mapping

from rlvr.family_spec import (
    DEFAULT_SUITE_SIZE, Baseline, Difficulty, FamilyGroup, FamilySpec, Feedback, Items, Knob, Perturb, Renderings,
    ReportLayout, Solver, SuiteEntry, default_suite,
)
from rlvr.prompting import FamilyConfig, PromptOptions, PromptStyle
from rlvr.task import Task

log = logging.getLogger(__name__)

#: built-in providers: family name or group prefix -> module exposing ``FAMILIES`` (imported lazily).
#: A new built-in family is one module plus one line here.
PROVIDERS: dict[str, str] = {
    "stoich": "rlvr.families.stoich",
    "mol": "rlvr.families.molecules",
}
#: the entry-point group through which an installed package provides families (same keys as :data:`PROVIDERS`)
ENTRY_POINT_GROUP = "rlvr.families"
#: what ``rlvr train`` trains on when a recipe names no family
DEFAULT_TRAIN_FAMILIES: tuple[str, ...] = ("stoich.t1",)
#: the mixture of ``rlvr/ChemMix-v0`` when none is given
DEFAULT_MIX = "stoich.t1,stoich.t2,mol.count,mol.index"
#: the mixture of a text environment (``ChemEnv``) when none is given
DEFAULT_ENV_MIX = "stoich.t2"


#: a family name's shape: ``group.short``
_FAMILY_NAME = re.compile(r"[A-Za-z_][\w-]*\.[\w.-]+")


def _prefix(name: str) -> str:
    return name.split(".", 1)[0]


class Registry:
    """Families by name: provider modules (imported on first use) plus families registered at run time."""

    def __init__(self, providers: Mapping[str, str], entry_point_group: str | None = None) -> None:
        self._providers = [(key.rstrip("."), module) for key, module in providers.items()]
        self._builtin = {module for _, module in self._providers}  # the providers given, not entry points
        self._entry_point_group = entry_point_group
        self._entry_points_read = entry_point_group is None
        self._loaded: dict[str, dict[str, FamilySpec]] = {}
        self._failed: dict[str, str] = {}  # provider module -> why it could not be imported
        self._runtime: dict[str, FamilySpec] = {}
        self._found: dict[str, FamilySpec] = {}  # provided families already looked up (providers never change)

    # ------------------------------------------------------------------ providers
    def _read_entry_points(self) -> None:
        if self._entry_points_read:
            return
        self._entry_points_read = True
        try:
            found = metadata.entry_points(group=self._entry_point_group)
        except Exception as exc:  # noqa: BLE001 - broken package metadata must not stop the built-in families
            log.warning("rlvr: could not read the %r entry points (%s: %s)", self._entry_point_group,
                        type(exc).__name__, exc)
            return
        known = {module for _, module in self._providers}
        for ep in found:
            if ep.module not in known:
                self._providers.append((ep.name.rstrip("."), ep.module))
                known.add(ep.module)

    def providers(self) -> list[tuple[str, str]]:
        """Every ``(key, module)`` provider: :data:`PROVIDERS`, then the installed entry points."""
        self._read_entry_points()
        return list(self._providers)

    def _load(self, module: str) -> dict[str, FamilySpec]:
        """The families of a provider module (empty, with one warning, when it fails to import)."""
        if module in self._loaded:
            return self._loaded[module]
        specs: dict[str, FamilySpec] = {}
        try:
            imported = importlib.import_module(module)
            specs = {spec.name: spec for spec in getattr(imported, "FAMILIES", ())}
        except Exception as exc:  # noqa: BLE001 - one broken provider must not break the others
            self._failed[module] = f"{type(exc).__name__}: {exc}"
            log.warning("rlvr: task family provider %s failed to import and is skipped (%s)", module,
                        self._failed[module])
        self._loaded[module] = specs
        return specs

    def _candidates(self, name: str) -> Iterator[str]:
        """Provider modules to search for ``name``: its exact key, then its prefix, then every other one."""
        providers = self.providers()
        for wanted in (name, _prefix(name)):
            yield from (module for key, module in providers if key == wanted)
        yield from (module for key, module in providers if key not in (name, _prefix(name)))

    def _provided(self, name: str) -> FamilySpec | None:
        spec = self._found.get(name)
        if spec is None:
            for module in dict.fromkeys(self._candidates(name)):
                spec = self._load(module).get(name)
                if spec is not None:
                    self._found[name] = spec
                    break
        return spec

    def failures(self) -> dict[str, str]:
        """Provider modules that failed to import, with why."""
        return dict(self._failed)

    # ------------------------------------------------------------------ run time
    def register(self, spec: FamilySpec, *, replace: bool = False) -> FamilySpec:
        """Add ``spec`` (``ValueError`` if the name is taken, unless ``replace``)."""
        if not isinstance(spec, FamilySpec):
            raise TypeError(f"register_family takes a FamilySpec, got {type(spec).__name__}")
        if not replace and (spec.name in self._runtime or self._provided(spec.name)):
            raise ValueError(self.clash_message(spec.name))
        self._runtime[spec.name] = spec
        return spec

    def _origin(self, name: str) -> str:
        if name in self._runtime:
            return "registered at run time by another module"
        module = next((m for m, specs in self._loaded.items() if name in specs), None)
        return f"built in, from {module}" if module in self._builtin else f"from the installed package's module {module}"

    def clash_message(self, name: str) -> str:
        """The one line for a family registered under a name already taken: where that name comes from and
        how to rename."""
        short = name.split(".", 1)[-1]
        return (f"task family {name!r} is already registered ({self._origin(name)}): give yours a name of its own "
                f"in its FamilySpec, with a group prefix of your own (e.g. name='mine.{short}'); in Python, "
                f"register_family(spec, replace=True) overrides the existing one instead")

    def unregister(self, name: str) -> None:
        """Remove a family registered at run time (``KeyError`` otherwise)."""
        if name not in self._runtime:
            raise KeyError(f"{name!r} was not registered at run time")
        del self._runtime[name]

    # ------------------------------------------------------------------ lookup
    def get(self, name: str) -> FamilySpec:
        """The family called ``name`` (``KeyError`` naming the known families, or the provider that failed)."""
        spec = self._runtime.get(name) or self._provided(name)
        if spec is None:
            broken = [f"{module} ({self._failed[module]})" for key, module in self.providers()
                      if key in (name, _prefix(name)) and module in self._failed]
            if broken:
                raise KeyError(f"task family {name!r} is unavailable: its provider failed to import: {'; '.join(broken)}")
            raise KeyError(self.unknown_message(name))
        return spec

    def unknown_message(self, name: str) -> str:
        """The one line for a name no family has: the known families, a close name, the providers that
        failed to import, and for a ``group.short`` name with no close match how a plugin's family is found."""
        known = self.names()
        message = f"unknown task family {name!r}; known families: {known}"
        close = difflib.get_close_matches(str(name), known, n=1, cutoff=0.8)
        if close:
            message += f"; did you mean {close[0]!r}?"
        elif _FAMILY_NAME.fullmatch(str(name)):
            message += ("; a family from a plugin is known only once its module is loaded: pass --plugin "
                        "MODULE_OR_FILE to the command (rlvr.registry.register_family in Python), and a built-in "
                        "family needs its line in rlvr.registry.PROVIDERS")
        if self._failed:
            failed = "; ".join(f"{module} ({why})" for module, why in self._failed.items())
            message += f"; providers that failed to import: {failed}"
        return message

    def specs(self) -> list[FamilySpec]:
        """Every family, provided ones in provider order, then those registered at run time."""
        out: dict[str, FamilySpec] = {}
        for _, module in self.providers():
            for spec in self._load(module).values():
                out.setdefault(spec.name, spec)
        return list({**out, **self._runtime}.values())

    def names(self) -> list[str]:
        """Every family name, sorted."""
        return sorted(spec.name for spec in self.specs())

    def runtime_names(self) -> list[str]:
        """The families added with :meth:`register` (unknown to a fresh process)."""
        return sorted(self._runtime)


#: the process-wide registry behind the module functions
REGISTRY = Registry(PROVIDERS, ENTRY_POINT_GROUP)


def register_family(spec: FamilySpec, *, replace: bool = False) -> FamilySpec:
    """Register ``spec`` so every consumer (``rlvr.sample``, envs, rewards, eval, train) can use it."""
    return REGISTRY.register(spec, replace=replace)


def register_module(module: Any) -> list[FamilySpec]:
    """Register the families a module lists in ``FAMILIES`` (a family module used as a plugin); a family
    already known under its name as the same spec is left alone. Returns the families registered."""
    added = []
    for spec in getattr(module, "FAMILIES", ()):
        try:
            if REGISTRY.get(spec.name) is spec:
                continue
        except KeyError:
            pass
        added.append(REGISTRY.register(spec))
    return added


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


def group_default_family(group: FamilyGroup) -> str:
    """The group's ``default_family``, else its first family."""
    return group.default_family or group_families(group)[0]


def group_suite(group: FamilyGroup) -> tuple[SuiteEntry, ...]:
    """The group's eval suite: its own ``suite``, else :func:`~rlvr.family_spec.default_suite` of its families."""
    return tuple(group.suite) or default_suite([spec for spec in REGISTRY.specs() if spec.group is group])


def resolve_in_group(group: FamilyGroup, name: str | None) -> str:
    """A family of ``group`` from its full name or the part after the group's prefix (``count``).

    None gives the group's default family; a family of another group is a ``ValueError``.
    """
    members = group_families(group)
    if name is None:
        name = group_default_family(group)
    if name in members:
        return name
    short = [m for m in members if m.split(".", 1)[-1] == name]
    if len(short) == 1:
        return short[0]
    raise ValueError(f"{group.env_id or group.name} takes a family of the {group.name!r} group "
                     f"({', '.join(members)}), got {name!r}")


__all__ = [
    "DEFAULT_ENV_MIX", "DEFAULT_MIX", "DEFAULT_SUITE_SIZE", "DEFAULT_TRAIN_FAMILIES", "ENTRY_POINT_GROUP", "PROVIDERS",
    "REGISTRY", "Baseline", "Difficulty", "FamilyConfig", "FamilyGroup", "FamilySpec", "Feedback", "Items", "Knob", "Perturb",
    "PromptOptions", "PromptStyle", "Registry", "Renderings", "ReportLayout", "Solver", "SuiteEntry", "default_suite",
    "get_family", "get_group", "group_default_family", "group_families", "group_for_env", "group_suite",
    "list_families", "list_groups", "read_task_file", "register_family", "register_module", "resolve_in_group", "unregister_family",
]
