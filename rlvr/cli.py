"""The ``rlvr`` command: one entry point, one module per subcommand in :mod:`rlvr.commands`.

Subcommands only parse arguments and call library functions. Every mistake of the user's ends in
one line on stderr and exit code 2; an unexpected error ends in one line naming the file that holds
its traceback (``--debug`` or ``RLVR_DEBUG=1`` shows it instead) and exit code 1.
"""
from __future__ import annotations

import argparse
import importlib
import sys

from rlvr.commands.plugins import plugin_specs
from rlvr.errors import run_reporting
from rlvr.rewards.isolation import PluginError, load_plugins

#: subcommand modules, in help order; each exposes ``register(subparsers)``
COMMANDS = (
    "sample", "verify", "corpus", "features", "export", "serve_rewards", "train", "sft", "eval", "quickstart", "bench",
)


class Parser(argparse.ArgumentParser):
    """An argument parser whose usage errors are one line naming ``--help``."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


class DefaultsFormatter(argparse.HelpFormatter):
    """Shows ``(default: X)`` for options whose default is a value (not None, not a flag)."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        if "%(default)" in text or "(default" in text or not action.option_strings or action.default in (None, argparse.SUPPRESS):
            return text
        if isinstance(action.default, bool) or action.nargs == 0:
            return text
        return f"{text} (default: %(default)s)" if text else "(default: %(default)s)"


class RawDefaultsFormatter(argparse.RawDescriptionHelpFormatter, DefaultsFormatter):
    """:class:`DefaultsFormatter` keeping the description's line breaks."""


def _finish(parser: argparse.ArgumentParser) -> None:
    """Defaults shown in help and ``--debug`` on ``parser`` and every subparser below it."""
    raw = issubclass(parser.formatter_class, argparse.RawDescriptionHelpFormatter)
    parser.formatter_class = RawDefaultsFormatter if raw else DefaultsFormatter
    if "-" in parser.prefix_chars and "--debug" not in parser._option_string_actions:
        parser.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                            help="show the full traceback of an unexpected error")
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in dict.fromkeys(action.choices.values()):
                _finish(child)


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="rlvr", description="Verifiable-reward tasks, environments and training for chemistry.")
    parser.add_argument("--debug", action="store_true", help="show the full traceback of an unexpected error")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name in COMMANDS:
        module_name = f"rlvr.commands.{name}"
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name == module_name:
                continue  # subcommand not part of this build
            raise
        module.register(sub)
    for child in dict.fromkeys(sub.choices.values()):
        _finish(child)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    try:  # before the parser: a plugin's families are known to its checks and its --help
        load_plugins(plugin_specs(argv))
    except PluginError as exc:
        print(f"rlvr: error: {exc}", file=sys.stderr)
        return 2
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, or a usage error already printed in one line
        return exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 2
    # --debug, else RLVR_DEBUG (read by run_reporting), lets an unexpected error's traceback through
    return run_reporting(f"rlvr {args.command}", lambda: args.func(args), debug=bool(getattr(args, "debug", False)) or None,
                         debug_hint="--debug shows it")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
