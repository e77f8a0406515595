"""``--plugin MODULE_OR_FILE``: modules that register task families, imported before a command runs,
and help texts that list the registry's families and suites when they are shown (not when parsed).

The ``rlvr`` entry point reads every ``--plugin`` of the command line before it builds its parser, so a
plugin's families are known to the command, its checks of ``--family`` and ``--suite`` and its ``--help``.
Loading them is :func:`rlvr.rewards.isolation.load_plugins`, which the scoring child processes use too.
"""
from __future__ import annotations

import argparse
from collections import UserString
from typing import Callable, Sequence


FLAG = "--plugin"
PLUGIN_HELP = ("module or .py file to import first, e.g. one that registers task families with "
               "rlvr.registry.register_family (repeatable)")


def add_plugin_arg(p: argparse.ArgumentParser) -> None:
    """The repeatable ``--plugin MODULE_OR_FILE`` option."""
    p.add_argument(FLAG, action="append", default=[], metavar="MODULE_OR_FILE", help=PLUGIN_HELP)


def plugin_specs(argv: Sequence[str]) -> list[str]:
    """The values of every ``--plugin X`` / ``--plugin=X`` in ``argv``."""
    specs, args = [], list(argv)
    for i, arg in enumerate(args):
        if arg == FLAG and i + 1 < len(args):
            specs.append(args[i + 1])
        elif arg.startswith(FLAG + "="):
            specs.append(arg.split("=", 1)[1])
    return specs


def strip_plugins(argv: Sequence[str]) -> list[str]:
    """``argv`` without its ``--plugin`` options (for commands that hand their arguments to another parser)."""
    out, skip = [], False
    for arg in argv:
        if skip:
            skip = False
        elif arg == FLAG:
            skip = True
        elif not arg.startswith(FLAG + "="):
            out.append(arg)
    return out


class LazyHelp(UserString):
    """A help text computed the first time it is shown, so that building the parser imports no family."""

    def __init__(self, make: Callable[[], str] | str) -> None:
        self._make = make if callable(make) else None
        self._text = None if callable(make) else str(make)

    @property
    def data(self) -> str:  # type: ignore[override]
        if self._text is None:
            self._text = self._make().replace("%", "%%")
        return self._text

    def __mod__(self, args: object) -> str:  # argparse expands ``%(default)s`` into a plain string
        return self.data % args


def families_help(prefix: str) -> LazyHelp:
    """``prefix`` followed by the registered families."""
    def make() -> str:
        from rlvr.registry import list_families

        return f"{prefix}: {', '.join(list_families())}"
    return LazyHelp(make)


def suites_help(prefix: str) -> LazyHelp:
    """``prefix`` followed by the eval suites (one per family group, and ``all``)."""
    def make() -> str:
        from rlvr.eval.suites import builtin_suites

        return f"{prefix}: {' | '.join(builtin_suites())}"
    return LazyHelp(make)


__all__ = ["FLAG", "LazyHelp", "add_plugin_arg", "families_help", "plugin_specs", "strip_plugins", "suites_help"]
