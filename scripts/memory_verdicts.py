#!/usr/bin/env python3
"""RSS of one scoring process over many verdicts on new molecules and new reactions.

Each round draws fresh tasks of every family (new indices: new molecules, new reactions) and scores
right, mutated and generated answers (new SMILES each time), so every cache sees new keys. RSS is
read from /proc after each checkpoint; the caches are bounded (LRU), so RSS levels off once they are
full. Example (the figures in docs/scale.md):

    python3 scripts/memory_verdicts.py --verdicts 1000000 --json memory.json
"""
from __future__ import annotations

import argparse
import json
import logging
import os
import random
import sys
import time


def rss_mb() -> float:
    """This process's resident memory in MB."""
    with open("/proc/self/statm", encoding="utf-8") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1e6


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--verdicts", type=int, default=200_000)
    p.add_argument("--checkpoints", type=int, default=10)
    p.add_argument("--tasks-per-round", type=int, default=50, help="new tasks per family per round")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", help="write the figures here")
    args = p.parse_args(argv)
    import rlvr
    from rlvr.families.fuzz import write_answer

    logging.disable(logging.WARNING)
    rng = random.Random(args.seed)
    families = rlvr.list_families()
    start_rss, start = rss_mb(), time.monotonic()
    points, done, index = [], 0, 0
    step = max(1, args.verdicts // args.checkpoints)
    per_task = max(1, step // (args.tasks_per_round * len(families)))
    while done < args.verdicts:
        for family in families:
            for _ in range(args.tasks_per_round):
                task = rlvr.generate(family, seed=args.seed, index=index)
                index += 1
                oracle = rlvr.oracle_completion(task)
                for _ in range(per_task):
                    rlvr.verify(task, write_answer(task, oracle, rng))
                    done += 1
        if done >= step * (len(points) + 1) or done >= args.verdicts:
            points.append({"verdicts": done, "tasks": index, "rss_mb": round(rss_mb(), 1),
                           "seconds": round(time.monotonic() - start, 1)})
            print(points[-1], flush=True)
    result = {"start_rss_mb": round(start_rss, 1), "points": points,
              "growth_after_first_checkpoint_mb": round(points[-1]["rss_mb"] - points[0]["rss_mb"], 1)}
    print(f"{done} verdicts on {index} new tasks: RSS {start_rss:.0f} -> {points[0]['rss_mb']:.0f} (first checkpoint) "
          f"-> {points[-1]['rss_mb']:.0f} MB")
    if args.json:
        from rlvr.files import atomic_open

        with atomic_open(args.json) as fh:
            json.dump(result, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
