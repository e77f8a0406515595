"""``rlvr bench``: tasks/s, verdicts/s and reward-server throughput on this machine (see :mod:`rlvr.bench`)."""
from __future__ import annotations

import argparse
import json
import os
import tempfile
from dataclasses import asdict
from pathlib import Path

from rlvr.commands.common import positive_int
from rlvr.commands.errors import UsageError
from rlvr.files import atomic_open

#: (tasks per family, seconds of server load per worker count) of a full run and of --quick
FULL, QUICK = (500, 10.0), (100, 3.0)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "bench", help="measure tasks/s, verdicts/s and the reward server on this machine",
        description=("Per family: tasks drawn per second, verdicts per second on a first completion and on the "
                     "next one of its group, and the RDKit parse floor, each in a fresh process; then "
                     "`rlvr serve-rewards` on 127.0.0.1 at 1 and N workers under bounded load, and how many "
                     "rollouts/s that serves. --quick finishes in under a minute on an idle machine."),
    )
    p.add_argument("--quick", action="store_true", help=f"{QUICK[0]} tasks per family, {QUICK[1]:g} s per server row")
    p.add_argument("-n", "--n", type=positive_int, help=f"tasks per family (default {FULL[0]}; --quick {QUICK[0]})")
    p.add_argument("--families", help="comma-separated families (default: every registered family)")
    p.add_argument("--workers", type=positive_int, default=os.cpu_count() or 1,
                   help="N, the larger worker count of the server rows")
    p.add_argument("--duration", type=float, help=f"seconds of load per server row (default {FULL[1]:g}; --quick {QUICK[1]:g})")
    p.add_argument("--clients", type=positive_int, default=4, help="load-generating client threads")
    p.add_argument("--batch", type=positive_int, default=64, help="completions per request")
    p.add_argument("--group", type=positive_int, default=8, help="completions per prompt in a request (GRPO group)")
    p.add_argument("--no-server", action="store_true", help="skip the reward-server rows")
    p.add_argument("--json", metavar="PATH", help="also write the results as JSON here")
    p.add_argument("--overwrite", action="store_true", help="replace an existing --json file")
    p.set_defaults(func=run)


def _check(args: argparse.Namespace) -> None:
    if args.duration is not None and args.duration <= 0:
        raise UsageError("--duration must be positive")
    if args.json and Path(args.json).exists() and not args.overwrite:
        raise UsageError(f"{args.json} exists; pass --overwrite to replace it")
    if args.json and Path(args.json).is_dir():
        raise UsageError(f"--json {args.json} is a folder; name a file")


def run(args: argparse.Namespace) -> int:
    from rlvr.bench import report, server, verdicts
    from rlvr.registry import list_families

    _check(args)
    n = args.n or (QUICK if args.quick else FULL)[0]
    duration = args.duration or (QUICK if args.quick else FULL)[1]
    families = [f.strip() for f in args.families.split(",") if f.strip()] if args.families else None
    unknown = sorted(set(families or []) - set(list_families()))
    if unknown:
        raise UsageError(f"unknown families {unknown}; `rlvr sample --list` lists them")
    result = {"machine": report.machine()}
    cases = verdicts.default_cases(families)
    if not cases:
        raise UsageError("none of these families has a train split to draw from")
    with tempfile.TemporaryDirectory(prefix="rlvr-bench-") as folder:
        result["families"] = verdicts.run(cases, n, Path(folder))
    settings = server.LoadSettings(duration=duration, clients=args.clients, batch=args.batch, group=args.group)
    result["settings"] = {"n": n, **asdict(settings)}
    result["server"] = []
    if not args.no_server:
        bodies = server.build_bodies(cases, settings)
        result["server"] = [server.measure(w, bodies, settings) for w in sorted({1, args.workers})]
    result["sizing"] = report.sizing(result["server"])
    print(report.text(result), flush=True)
    if args.json:
        with atomic_open(args.json) as fh:
            json.dump(result, fh, indent=2)
    return 0
