"""Activation (gradient) checkpointing under the name the installed transformers reads.

transformers 5 renamed ``gradient_checkpointing`` to ``activation_checkpointing`` and warns
(``FutureWarning``) whenever a training config is built with the old name set and the new one unset,
which TRL's configs always do (their ``gradient_checkpointing`` defaults to True). Recipes keep the
portable ``gradient_checkpointing`` key; these helpers resolve its value (command line over recipe
over the config class's default) and pass it under the new name where it exists, so the old name
is never the only one set.

TRL's trainers and peft also read ``model.is_gradient_checkpointing`` (and toggle
``gradient_checkpointing_disable/enable``), model-level aliases transformers 5 deprecates:
:func:`rlvr.models.quiet_checkpointing_aliases` silences exactly those while they run.
"""
from __future__ import annotations

import dataclasses
from typing import Any, Mapping, Sequence

NEW = "activation_checkpointing"
OLD = "gradient_checkpointing"
_TRUE = {"true", "1", "yes", "y", "t"}


def _fields(config_cls: type) -> dict[str, dataclasses.Field]:
    return {f.name: f for f in dataclasses.fields(config_cls)}


def checkpointing_field(config_cls: type) -> str:
    """``activation_checkpointing`` where the config class has it, else ``gradient_checkpointing``."""
    return NEW if NEW in _fields(config_cls) else OLD


def default_checkpointing(config_cls: type) -> bool:
    """The config class's own default (TRL: True)."""
    field = _fields(config_cls).get(OLD)
    return bool(field.default) if field is not None and field.default is not dataclasses.MISSING else False


def checkpointing_kwargs(config_cls: type, enabled: bool | None) -> dict[str, bool]:
    """Keyword arguments enabling (or not) checkpointing; None keeps the class default."""
    value = default_checkpointing(config_cls) if enabled is None else bool(enabled)
    return {checkpointing_field(config_cls): value}


def truthy(value: Any) -> bool:
    """Whether a recipe or command-line value means true (HfArgumentParser's words: true, 1, yes, y, t)."""
    return str(value).lower() in _TRUE


def cli_flag(argv: Sequence[str], names: Sequence[str]) -> bool | None:
    """The boolean the command line gives any of ``names`` (``--name``, ``--name VALUE``, ``--name=VALUE``;
    the last one wins), or None where it names none of them."""
    value = None
    for i, arg in enumerate(argv):
        for name in names:
            flag = f"--{name}"
            if arg == flag:
                nxt = argv[i + 1] if i + 1 < len(argv) else ""
                value = truthy(nxt) if nxt and not nxt.startswith("--") else True
            elif arg.startswith(flag + "="):
                value = truthy(arg.split("=", 1)[1])
    return value


def checkpointing_argv(argv: Sequence[str], config_cls: type, recipe: Mapping[str, Any] | None,
                       default: bool | None = None) -> list[str]:
    """``argv`` plus ``--activation_checkpointing VALUE`` (``--gradient_checkpointing`` on older transformers).

    VALUE is the command line's ``--activation_checkpointing`` / ``--gradient_checkpointing``, else
    the recipe's, else ``default``, else the class default. Nothing is added when neither the
    command line, the recipe nor ``default`` says and the class has no new name (nothing to fix).
    """
    argv = list(argv)
    field = checkpointing_field(config_cls)
    value = cli_flag(argv, (OLD, NEW))
    if value is None and recipe:
        for key in (NEW, OLD):
            if recipe.get(key) is not None:
                value = truthy(recipe[key])
                break
    if value is None:
        value = default
    if value is None:
        if field != NEW:
            return argv
        value = default_checkpointing(config_cls)
    return argv + [f"--{field}", str(value).lower()]


def recipe_checkpointing(training_args: Any) -> bool | None:
    """Whether parsed training arguments enable checkpointing (None when they do not say)."""
    for name in (NEW, OLD):
        value = getattr(training_args, name, None)
        if value is not None:
            return bool(value)
    return None

