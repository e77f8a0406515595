"""``rlvr export``: write tasks to JSONL, parquet, a ``datasets`` folder, verl's RL parquet or NeMo-Gym samples."""
from __future__ import annotations

import argparse
import json
import sys
import time

from rlvr.commands.common import (
    add_common_args, add_out_args, add_task_option_args, capped_n, positive_int, task_options,
)
from rlvr.commands.errors import UsageError
from rlvr.commands.plugins import add_plugin_arg, families_help


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "export",
        help="write tasks to jsonl / parquet / a datasets folder / verl parquet / NeMo-Gym jsonl",
        description=(
            "Write N tasks of a family or a weighted mixture. --family takes one family or a mixture "
            "'fam[@split][:weight],...' (e.g. 'stoich.t1:2,mol.count@easy:1'); -o options apply to every family. "
            "In a folder the file is SPLIT.jsonl or SPLIT.parquet (jsonl, nemo-gym, parquet, verl) or the datasets folder SPLIT "
            "(hf), e.g. --format verl --out data/ writes data/train.parquet."
        ),
    )
    p.add_argument("--family", required=True,
                   help=families_help("family or mixture 'fam[@split][:weight],...' of the families"))
    add_common_args(p, n_default=1000, n_help="number of tasks", index_help="index of the first row")
    p.add_argument("--format", dest="fmt", default="jsonl", choices=["jsonl", "parquet", "hf", "verl", "nemo-gym"],
                   help="jsonl: task records; parquet / hf: dataset rows as a file / a save_to_disk folder; "
                        "verl: verl's RL parquet layout; nemo-gym: NeMo-Gym's JSONL samples")
    add_out_args(p, "SPLIT.jsonl / SPLIT.parquet / SPLIT (hf)",
                 what="output file (a datasets folder for --format hf)", required=True)
    p.add_argument("--num-proc", type=positive_int, default=1,
                   help="processes generating rows (the output is byte-identical for any value)")
    p.add_argument("--no-progress", dest="progress", action="store_false", help="no progress bar on stderr")
    add_task_option_args(p)
    add_plugin_arg(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from rlvr.datasets import FamilyMix, Mixture, parse_mix
    from rlvr.export import export_path, export_tasks

    if args.fmt in ("verl", "nemo-gym") and args.with_solution:
        raise UsageError(f"--format {args.fmt} has no completion column; export solutions with --format jsonl, "
                         "parquet or hf")
    options = task_options(args)
    mix = [FamilyMix(m.family, m.weight, {**m.options, **options}, m.split) for m in parse_mix(args.family)]
    path = export_path(args.out, args.fmt, args.split, overwrite=args.overwrite)
    mixture = Mixture(mix, args.split, args.seed)  # unknown families, splits and options fail before any work
    n = capped_n(args.n)
    print(f"exporting {n} tasks of {mixture!r} as {args.fmt} to {path} "
          f"({args.num_proc} process{'es' if args.num_proc > 1 else ''})", file=sys.stderr, flush=True)
    t0 = time.perf_counter()
    count = export_tasks(mix, args.split, n, args.fmt, path, seed=args.seed, start=args.start,
                         with_solution=args.with_solution, style=args.style, overwrite=args.overwrite,
                         num_proc=args.num_proc, progress=None if args.progress else False)
    seconds = time.perf_counter() - t0
    print(json.dumps({"written": count, "format": args.fmt, "out": str(path), "seconds": round(seconds, 2)}))
    return 0
