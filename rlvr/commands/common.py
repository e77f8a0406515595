"""Helpers shared by subcommands: option parsing, checked numbers, the ``--out`` rule and JSONL I/O."""
from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterable, Iterator, TextIO

from rlvr.commands.errors import UsageError
from rlvr.commands.plugins import strip_plugins
from rlvr.files import atomic_open, out_help, resolve_out
from rlvr.task import Task

#: test-only cap on every ``-n`` (tests/test_readme.py runs the README's commands as written, smaller)
TEST_MAX_N_ENV = "RLVR_TEST_MAX_N"


def whole_number(text: str, minimum: int, bound: str) -> int:
    """``text`` as an integer of at least ``minimum`` (``argparse.ArgumentTypeError`` saying ``must be {bound}``)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < minimum:
        raise argparse.ArgumentTypeError(f"must be {bound}, got {value}")
    return value


def positive_int(text: str) -> int:
    """argparse type: an integer >= 1."""
    return whole_number(text, 1, "at least 1")


def non_negative_int(text: str) -> int:
    """argparse type: an integer >= 0."""
    return whole_number(text, 0, "0 or more")


def capped_n(n: int) -> int:
    """``n``, capped by ``$RLVR_TEST_MAX_N`` when that is set (a test-only knob)."""
    cap = os.environ.get(TEST_MAX_N_ENV, "").strip()
    return min(int(n), int(cap)) if cap else int(n)


def parse_option_pairs(pairs: list[str] | None) -> dict[str, Any]:
    """``["encoding=smiles", "coef_in=[1,5]"]`` -> dict, values parsed as JSON when they parse."""
    options: dict[str, Any] = {}
    for pair in pairs or []:
        if "=" not in pair:
            raise UsageError(f"option {pair!r} must look like KEY=VALUE (e.g. -o encoding=smiles)")
        key, value = pair.split("=", 1)
        try:
            options[key.strip().replace("-", "_")] = json.loads(value)
        except json.JSONDecodeError:
            options[key.strip().replace("-", "_")] = value
    return options


def add_common_args(p: argparse.ArgumentParser, *, n_default: int, n_help: str, index_help: str) -> None:
    """``--split``, ``-n``, ``--seed``, ``--start``: which tasks of a family (or mixture) to draw."""
    p.add_argument("--split", default="train",
                   help="split to draw from (each family's splits: rlvr sample --list)")
    p.add_argument("-n", type=positive_int, default=n_default, help=n_help)
    p.add_argument("--seed", type=non_negative_int, default=0,
                   help="generation seed: the same (family, options, seed, split, index) always gives the same task")
    p.add_argument("--start", type=non_negative_int, default=0, help=index_help)


def add_task_option_args(p: argparse.ArgumentParser) -> None:
    """The family-option flags shared by ``rlvr sample`` and ``rlvr export``."""
    p.add_argument("--encoding", choices=["formula", "smiles"], help="stoichiometry families: formula or smiles")
    p.add_argument("--load", type=positive_int,
                   help="molecular families: features (or constraints) per question, 1-10 (the paper uses 1, 2, 3, 5)")
    p.add_argument("-o", "--option", action="append", metavar="KEY=VALUE",
                   help="any family option, value parsed as JSON when it parses (repeatable; "
                        "unknown keys are listed in the error)")
    p.add_argument("--with-solution", action="store_true", help="add a worked-solution `completion` column")
    p.add_argument("--style", default="terse", choices=["brief", "terse", "detailed"],
                   help="worked-solution style: brief (fewest lines), terse or detailed")


def add_out_args(p: argparse.ArgumentParser, name: str, *, what: str = "output file", required: bool = False) -> None:
    """``--out`` (stating the rule, ``name`` being the file made inside a folder) and ``--overwrite``."""
    p.add_argument("--out", required=required, help=out_help(name, what))
    p.add_argument("--overwrite", action="store_true", help="replace an existing --out file")


def task_options(args: argparse.Namespace) -> dict[str, Any]:
    """Family options from ``-o KEY=VALUE`` plus the ``--encoding`` / ``--load`` shortcuts."""
    options = parse_option_pairs(args.option)
    if args.encoding is not None:
        options["encoding"] = args.encoding
    if args.load is not None:
        options["load"] = args.load
    return options


def out_path(out: str | None, name: str, overwrite: bool) -> Path | None:
    """The file ``--out`` names (None for stdout: no ``--out`` or ``-``), checked before any work starts."""
    if out in (None, "-"):
        return None
    return resolve_out(out, name, overwrite=overwrite)


@contextmanager
def open_out(path: Path | None) -> Iterator[TextIO]:
    """Write to ``path`` atomically (nothing is left behind on error), or to stdout for None."""
    if path is None:
        yield sys.stdout
        return
    with atomic_open(path) as fh:
        yield fh


def _open_text(path: str, what: str) -> TextIO:
    if path == "-":
        return sys.stdin
    if Path(path).is_dir():
        raise UsageError(f"{what} {path} is a folder; give a JSONL file")
    if not Path(path).exists():
        raise UsageError(f"{what} {path} does not exist")
    return open(path, encoding="utf-8")


def read_jsonl(path: str, what: str = "file") -> Iterator[Any]:
    """Records of a JSONL file (or stdin for ``-``); blank lines skipped, bad JSON named by line."""
    fh = _open_text(path, what)
    try:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                yield json.loads(line)
            except json.JSONDecodeError as exc:
                raise UsageError(f"{path}:{lineno}: not valid JSON ({exc.msg}); expected one JSON record per line") from None
    finally:
        if fh is not sys.stdin:
            fh.close()


def read_tasks(path: str, records: list[Any] | None = None) -> list[Task]:
    """Validate every task record of a JSONL file (read from ``path`` unless ``records`` are given)."""
    tasks = []
    for i, record in enumerate(read_jsonl(path, "--tasks") if records is None else records, 1):
        if not isinstance(record, dict):
            raise UsageError(f"{path}: record {i} is not a task (a JSON object from rlvr sample)")
        try:
            tasks.append(Task.from_dict(record))
        except (ValueError, KeyError, TypeError) as exc:
            raise UsageError(f"{path}: record {i} is not a task ({exc}); write tasks with rlvr sample") from None
    return tasks


def write_jsonl(records: Iterable[dict[str, Any]], fh: TextIO) -> int:
    """Write ``records`` one JSON object per line; returns the count."""
    n = 0
    for record in records:
        fh.write(json.dumps(record, ensure_ascii=False) + "\n")
        n += 1
    return n


def register_passthrough(sub: argparse._SubParsersAction, name: str, help: str, entry: str) -> None:
    """A subcommand whose every argument belongs to another parser (e.g. TRL's ``TrlParser``).

    The subparser recognises no options of its own (``+`` prefix) and hands ``argv`` to
    ``entry`` (``"module:function"``, called as ``function(argv, prog="rlvr NAME")``).
    """
    def run(args: argparse.Namespace) -> int:
        module_name, _, attr = entry.partition(":")
        main = getattr(importlib.import_module(module_name), attr)
        try:
            return main(strip_plugins(args.args), prog=f"rlvr {name}")  # plugins: imported by rlvr.cli.main
        except RuntimeError as exc:
            print(f"rlvr {name}: error: {exc}", file=sys.stderr)
            return 2

    p = sub.add_parser(name, help=help, add_help=False, prefix_chars="+")
    p.add_argument("args", nargs="*", help="--config RECIPE.yaml, --KEY VALUE overrides and --plugin MODULE_OR_FILE "
                                          "(a module registering task families; repeatable)")
    p.set_defaults(func=run)
