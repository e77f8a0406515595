"""``rlvr export``: write tasks to JSONL, parquet, a ``datasets`` folder, or verl's RL parquet layout."""
from __future__ import annotations

import argparse
import json
import sys

from rlvr.commands.common import add_task_option_args, task_options


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "export",
        help="write tasks to jsonl / parquet / a datasets folder / verl parquet",
        description=(
            "Write N tasks of a family or a weighted mixture to a file. --family takes one family or a mixture "
            "'fam[@split][:weight],...' (e.g. 'stoich.t1:2,mol.count@easy:1'); -o options apply to every family."
        ),
    )
    p.add_argument("--family", required=True, help="family or mixture, e.g. stoich.t2 or 'stoich.t1:2,mol.count:1'")
    p.add_argument("--split", default="train")
    p.add_argument("-n", type=int, default=1000, help="number of tasks")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--start", type=int, default=0, help="first row index")
    p.add_argument("--format", dest="fmt", default="jsonl", choices=["jsonl", "parquet", "hf", "verl"])
    p.add_argument("--out", required=True, help="output file (jsonl/parquet/verl) or folder (hf)")
    add_task_option_args(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from rlvr.datasets import FamilyMix, parse_mix
    from rlvr.export import export_tasks

    options = task_options(args)
    mix = [FamilyMix(m.family, m.weight, {**m.options, **options}, m.split) for m in parse_mix(args.family)]
    count = export_tasks(mix, args.split, args.n, args.fmt, args.out, seed=args.seed, start=args.start,
                         with_solution=args.with_solution, style=args.style)
    print(json.dumps({"written": count, "format": args.fmt, "out": args.out}), file=sys.stdout)
    return 0
