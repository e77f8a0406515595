"""Helpers shared by subcommands: option parsing and JSONL I/O."""
from __future__ import annotations

import json
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterable, Iterator, TextIO

from rlvr.task import Task


def parse_option_pairs(pairs: list[str] | None) -> dict[str, Any]:
    """``["encoding=smiles", "coef_in=[1,5]"]`` -> dict, values parsed as JSON when they parse."""
    options: dict[str, Any] = {}
    for pair in pairs or []:
        if "=" not in pair:
            raise ValueError(f"option {pair!r} must look like KEY=VALUE")
        key, value = pair.split("=", 1)
        try:
            options[key.strip().replace("-", "_")] = json.loads(value)
        except json.JSONDecodeError:
            options[key.strip().replace("-", "_")] = value
    return options


def add_task_option_args(p) -> None:
    """The family-option flags shared by ``rlvr sample`` and ``rlvr export``."""
    p.add_argument("--encoding", help="stoichiometry: formula or smiles")
    p.add_argument("--load", type=int, help="molecular tasks: features per question (1, 2, 3, 5)")
    p.add_argument("-o", "--option", action="append", metavar="KEY=VALUE", help="any family option (repeatable)")
    p.add_argument("--with-solution", action="store_true", help="add a worked-solution `completion` column")
    p.add_argument("--style", default="terse", choices=["terse", "detailed"], help="worked-solution style")


def task_options(args) -> dict[str, Any]:
    """Family options from ``-o KEY=VALUE`` plus the ``--encoding`` / ``--load`` shortcuts."""
    options = parse_option_pairs(args.option)
    if args.encoding is not None:
        options["encoding"] = args.encoding
    if args.load is not None:
        options["load"] = args.load
    return options


@contextmanager
def open_out(path: str | None) -> Iterator[TextIO]:
    """Open ``path`` for writing (atomically via a temp file), or stdout for None/``-``."""
    if path in (None, "-"):
        yield sys.stdout
        return
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(target.name + ".tmp")
    with tmp.open("w", encoding="utf-8") as fh:
        yield fh
    tmp.replace(target)


def read_jsonl(path: str) -> Iterator[dict[str, Any]]:
    """Records of a JSONL file (or stdin for ``-``); blank lines skipped, bad JSON named by line."""
    fh = sys.stdin if path == "-" else open(path, encoding="utf-8")
    try:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                yield json.loads(line)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}:{lineno}: not valid JSON ({exc})") from exc
    finally:
        if fh is not sys.stdin:
            fh.close()


def read_tasks(path: str) -> list[Task]:
    """Load and validate every task of a JSONL file (errors name the line)."""
    tasks = []
    for i, record in enumerate(read_jsonl(path), 1):
        try:
            tasks.append(Task.from_dict(record))
        except ValueError as exc:
            raise ValueError(f"{path}: record {i}: {exc}") from exc
    return tasks


def write_jsonl(records: Iterable[dict[str, Any]], fh: TextIO) -> int:
    n = 0
    for record in records:
        fh.write(json.dumps(record, ensure_ascii=False) + "\n")
        n += 1
    return n


def register_passthrough(sub, name: str, help: str, entry: str) -> None:
    """A subcommand whose every argument belongs to another parser (e.g. TRL's ``TrlParser``).

    The subparser recognises no options of its own (``+`` prefix) and hands ``argv`` to
    ``entry`` (``"module:function"``, called as ``function(argv, prog="rlvr NAME")``).
    """
    import argparse

    def run(args: argparse.Namespace) -> int:
        import importlib

        module_name, _, attr = entry.partition(":")
        main = getattr(importlib.import_module(module_name), attr)
        try:
            return main(args.args, prog=f"rlvr {name}")
        except RuntimeError as exc:
            print(f"rlvr {name}: error: {exc}", file=sys.stderr)
            return 2

    p = sub.add_parser(name, help=help, add_help=False, prefix_chars="+")
    p.add_argument("args", nargs="*", help="--config RECIPE.yaml and --KEY VALUE overrides")
    p.set_defaults(func=run)
