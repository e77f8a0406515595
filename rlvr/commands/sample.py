"""``rlvr sample``: generate tasks of a family as JSONL (one task record per line)."""
from __future__ import annotations

import argparse
import sys

from rlvr.commands.common import (
    add_common_args, add_out_args, add_task_option_args, capped_n, open_out, out_path, task_options, write_jsonl,
)
from rlvr.commands.errors import UsageError
from rlvr.commands.plugins import add_plugin_arg, families_help


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("sample", help="generate tasks of a family to JSONL", description=__doc__)
    p.add_argument("--family", help=families_help("task family (rlvr sample --list shows their splits)"))
    p.add_argument("--list", action="store_true", help="list the task families with their splits, then exit")
    add_common_args(p, n_default=10, n_help="number of tasks", index_help="index of the first task")
    add_out_args(p, "FAMILY-SPLIT.jsonl", what="output JSONL (default: stdout)")
    add_task_option_args(p)
    add_plugin_arg(p)
    p.set_defaults(func=run)


def list_families_text() -> str:
    """One line per family: name, splits, description."""
    from rlvr.registry import get_family, list_families

    specs = [get_family(name) for name in list_families()]
    width = max((len(s.name) for s in specs), default=8)
    lines = [f"{s.name.ljust(width)}  splits: {' '.join(s.splits)}" + (f"\n{'':{width}}  {s.description}" if s.description else "")
             for s in specs]
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    from rlvr.api import sample
    from rlvr.solutions import worked_solution

    if args.list:
        print(list_families_text())
        return 0
    if not args.family:
        raise UsageError("--family is required (rlvr sample --list shows the families)")
    options = task_options(args)
    path = out_path(args.out, f"{args.family}-{args.split}.jsonl", args.overwrite)
    n = capped_n(args.n)

    def records():
        for task in sample(args.family, n=n, split=args.split, seed=args.seed, start=args.start, **options):
            record = task.to_dict()
            if args.with_solution:
                record["completion"] = [{"role": "assistant", "content": worked_solution(task, style=args.style)}]
            yield record

    with open_out(path) as fh:
        count = write_jsonl(records(), fh)
    if path is not None:
        print(f"wrote {count} tasks to {path}", file=sys.stderr)
    return 0
