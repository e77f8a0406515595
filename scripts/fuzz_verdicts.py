#!/usr/bin/env python3
"""A long fuzzing run: many verdicts per family on fuzzed answers, over several processes.

Each worker draws answers with :func:`rlvr.families.fuzz.write_answer` (oracle mutations, answers
in the family's format, hostile completions) from a seeded generator, and counts reasons, verdicts
outside the vocabulary or [0, 1], ``checker_error`` / ``timeout`` and rewards of 1.0 that the
independent judge calls wrong. Example (the run recorded in docs/verification.md):

    python3 scripts/fuzz_verdicts.py --verdicts 1000000 --processes 2 --seed 0 --json fuzz.json

Exit status 1 when any invariant broke.
"""
from __future__ import annotations

import argparse
import json
import logging
import multiprocessing
import random
import sys
import time
from collections import Counter


def _work(args: tuple[str, int, int]) -> dict:
    import rlvr
    from rlvr.families.fuzz import independently_right, write_answer
    from rlvr.reasons import Reason
    from rlvr.registry import get_family

    logging.disable(logging.WARNING)
    family, n, seed = args
    rng = random.Random(f"{family}:{seed}")
    splits = get_family(family).splits
    tasks = [rlvr.generate(family, split=splits[i % len(splits)], seed=seed, index=i) for i in range(64)]
    oracles = [rlvr.oracle_completion(t) for t in tasks]
    vocabulary = {str(r) for r in Reason}
    reasons: Counter = Counter()
    problems: list[str] = []
    slowest = 0.0
    for _ in range(n):
        i = rng.randrange(len(tasks))
        completion = write_answer(tasks[i], oracles[i], rng)
        start = time.perf_counter()
        verdict = rlvr.verify(tasks[i], completion)
        slowest = max(slowest, time.perf_counter() - start)
        reason = str(verdict.reason)
        reasons[reason] += 1
        bad = (reason not in vocabulary or reason in ("checker_error", "timeout") or not 0.0 <= verdict.reward <= 1.0
               or (verdict.reward == 1.0 and independently_right(tasks[i], completion) is False))
        if bad and len(problems) < 20:
            problems.append(f"{family} {tasks[i].id} {reason} {verdict.reward} {completion[:200]!r}")
    return {"family": family, "verdicts": n, "reasons": dict(reasons), "problems": problems, "slowest_s": slowest}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--verdicts", type=int, default=100_000, help="verdicts in all (default 100000)")
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--chunk", type=int, default=20_000, help="verdicts per job")
    parser.add_argument("--json", help="write the result here")
    args = parser.parse_args(argv)
    import rlvr

    families = rlvr.list_families()
    per_family = max(1, args.verdicts // len(families))
    jobs = [(f, min(args.chunk, per_family - k), args.seed * 1000 + k // args.chunk)
            for f in families for k in range(0, per_family, args.chunk)]
    start = time.monotonic()
    with multiprocessing.get_context("spawn").Pool(args.processes) as pool:
        results = pool.map(_work, jobs, chunksize=1)
    seconds = time.monotonic() - start
    by_family: dict[str, Counter] = {}
    problems = [p for r in results for p in r["problems"]]
    for r in results:
        by_family.setdefault(r["family"], Counter()).update(r["reasons"])
    total = sum(sum(c.values()) for c in by_family.values())
    summary = {"verdicts": total, "seconds": round(seconds, 1), "processes": args.processes, "seed": args.seed,
               "checker_error": sum(c.get("checker_error", 0) for c in by_family.values()),
               "timeout": sum(c.get("timeout", 0) for c in by_family.values()),
               "problems": problems[:50], "slowest_verdict_s": round(max(r["slowest_s"] for r in results), 3),
               "reasons": {f: dict(c.most_common()) for f, c in by_family.items()}}
    print(f"{total} verdicts in {seconds:.0f} s ({total / seconds:.0f}/s, {args.processes} processes): "
          f"checker_error {summary['checker_error']}, timeout {summary['timeout']}, problems {len(problems)}, "
          f"slowest verdict {summary['slowest_verdict_s']} s")
    for p in problems[:10]:
        print("  ", p)
    if args.json:
        from rlvr.files import atomic_open

        with atomic_open(args.json) as fh:
            json.dump(summary, fh, indent=1)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
