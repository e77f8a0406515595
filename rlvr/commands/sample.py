"""``rlvr sample``: generate tasks to JSONL."""
from __future__ import annotations

import argparse

from rlvr.commands.common import add_task_option_args, open_out, task_options, write_jsonl


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("sample", help="generate tasks of a family to JSONL", description=__doc__)
    p.add_argument("--family", required=True, help="task family, e.g. stoich.t2, mol.index (see `rlvr sample --list`)")
    p.add_argument("--split", default="train")
    p.add_argument("-n", type=int, default=10, help="number of tasks")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--start", type=int, default=0, help="first task index")
    p.add_argument("--out", help="output JSONL (default stdout)")
    add_task_option_args(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from rlvr.api import sample

    options = task_options(args)

    def records():
        for task in sample(args.family, n=args.n, split=args.split, seed=args.seed, start=args.start, **options):
            record = task.to_dict()
            if args.with_solution:
                from rlvr.solutions import worked_solution

                record["completion"] = [{"role": "assistant", "content": worked_solution(task, style=args.style)}]
            yield record

    with open_out(args.out) as fh:
        write_jsonl(records(), fh)
    return 0
