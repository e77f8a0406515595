"""The ``rlvr`` command: one entry point, one module per subcommand in :mod:`rlvr.commands`.

Subcommands only parse arguments and call library functions.
"""
from __future__ import annotations

import argparse
import importlib
import sys

#: subcommand modules, in help order; each exposes ``register(subparsers)``
COMMANDS = (
    "sample", "verify", "corpus", "features", "export", "serve_rewards", "train", "sft", "eval", "quickstart",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="rlvr", description="Verifiable-reward tasks, environments and training for chemistry.")
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
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        result = args.func(args)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # e.g. `rlvr features | head`
        sys.stderr.close()
        return 0
    except (ValueError, KeyError, FileNotFoundError, TypeError) as exc:
        if getattr(args, "debug", False):
            raise
        print(f"rlvr {args.command}: error: {exc}", file=sys.stderr)
        return 2
    return int(result or 0)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
