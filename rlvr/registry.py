"""The family registry: a name (``stoich.t2``, ``mol.index``) bound to its config, generator, checker,
oracle and solution writer.

Families live in provider modules that expose ``FAMILIES: list[FamilySpec]``; a provider is
imported only when one of its families is first asked for, so importing :mod:`rlvr` stays cheap.
"""
from __future__ import annotations

import dataclasses
import importlib
import json
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Callable, Mapping

from rlvr.task import Task, Verdict

#: family-name prefix -> provider module (imported lazily)
PROVIDERS: dict[str, str] = {
    "stoich.": "rlvr.families.stoich",
    "mol.": "rlvr.families.molecules",
}


@dataclass(frozen=True)
class FamilySpec:
    """Everything the rest of rlvr needs to know about one task family.

    - ``generate(config, split, seed, index) -> Task``: deterministic and random-access.
    - ``check(task, completion, **options) -> Verdict``: a pure function with bounded work.
    - ``oracle(task) -> str``: a minimal completion that scores 1.0 (from the ground truth).
    - ``solve(task, style) -> str``: a worked solution ending in the answer block (optional).
    - ``reward_modes``: the values ``check`` accepts for its ``reward`` option (checked up front).
    """

    name: str
    config_cls: type
    generate: Callable[[Any, str, int, int], Task]
    check: Callable[..., Verdict]
    oracle: Callable[[Task], str]
    splits: tuple[str, ...]
    description: str = ""
    solve: Callable[..., str] | None = None
    reward_modes: tuple[str, ...] = ()
    ability: str = "chemistry"
    extra: Mapping[str, Any] = field(default_factory=dict)

    def make_config(self, **options: Any) -> Any:
        """Build the family's config dataclass from keyword options, naming unknown ones clearly."""
        names = {f.name for f in dataclasses.fields(self.config_cls)}
        unknown = sorted(set(options) - names)
        if unknown:
            raise TypeError(f"{self.name}: unknown option(s) {unknown}; valid options: {sorted(names)}")
        return self.config_cls(**options)


def _provider_for(name: str) -> str:
    for prefix, module in PROVIDERS.items():
        if name.startswith(prefix):
            return module
    raise KeyError(f"unknown task family {name!r}; known families: {list_families()}")


@lru_cache(maxsize=None)
def _load_provider(module: str) -> dict[str, FamilySpec]:
    mod = importlib.import_module(module)
    return {spec.name: spec for spec in mod.FAMILIES}


def get_family(name: str) -> FamilySpec:
    """The :class:`FamilySpec` registered under ``name`` (``KeyError`` listing known names otherwise)."""
    specs = _load_provider(_provider_for(name))
    if name not in specs:
        raise KeyError(f"unknown task family {name!r}; known families: {list_families()}")
    return specs[name]


def list_families() -> list[str]:
    """All registered family names."""
    names: list[str] = []
    for module in PROVIDERS.values():
        try:
            names.extend(_load_provider(module))
        except ModuleNotFoundError as exc:
            if exc.name != module:
                raise
    return sorted(names)


def config_key(config: Any) -> str:
    """A short stable fingerprint of a config (used in task ids)."""
    from rlvr.rng import stable_hash

    payload = json.dumps(dataclasses.asdict(config), sort_keys=True, default=str)
    return format(stable_hash(payload) & 0xFFFFFFFF, "08x")
