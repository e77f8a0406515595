#!/usr/bin/env python3
"""Throughput of the stoichiometry families: tasks/s and verifications/s per core.

For each family and encoding, after a warm-up (corpus loaded, split pools built), this generates
``--n`` tasks at fresh indices and verifies their oracle completions, in one process (so the numbers
are per core), and reports the median over ``--repeats`` runs, both per wall-clock second and per
CPU second of the process (the latter does not depend on what else the machine is running). ``--build`` also times a fresh build of
the embedded and classic corpora in a temporary cache directory.

    python scripts/bench_stoich.py --n 2000 --repeats 3
    python scripts/bench_stoich.py --build --json bench.json
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import time

FAMILIES = ("stoich.balance", "stoich.t1", "stoich.t2", "stoich.byproduct")
SPLIT = {"stoich.balance": "train", "stoich.t1": "train", "stoich.t2": "train", "stoich.byproduct": "train"}


def bench_family(family: str, encoding: str, n: int, repeats: int) -> dict:
    import rlvr

    rlvr.generate(family, SPLIT[family], 0, 0, encoding=encoding)  # warm-up: corpus, pools
    gen_rates, ver_rates, gen_cpu, ver_cpu = [], [], [], []
    for r in range(repeats):
        start = 1_000 + r * n
        t0, c0 = time.perf_counter(), time.process_time()
        tasks = list(rlvr.sample(family, n=n, split=SPLIT[family], seed=r, start=start, encoding=encoding))
        t1, c1 = time.perf_counter(), time.process_time()
        completions = [rlvr.oracle_completion(t) for t in tasks]
        t2, c2 = time.perf_counter(), time.process_time()
        rewards = [rlvr.verify(t, c).reward for t, c in zip(tasks, completions)]
        t3, c3 = time.perf_counter(), time.process_time()
        if min(rewards) != 1.0:
            raise SystemExit(f"{family}/{encoding}: an oracle completion scored below 1.0")
        gen_rates.append(n / (t1 - t0))
        ver_rates.append(n / (t3 - t2))
        gen_cpu.append(n / max(c1 - c0, 1e-9))
        ver_cpu.append(n / max(c3 - c2, 1e-9))
    return {
        "family": family,
        "encoding": encoding,
        "n": n,
        "repeats": repeats,
        "tasks_per_s": round(statistics.median(gen_rates), 1),
        "verifications_per_s": round(statistics.median(ver_rates), 1),
        "tasks_per_cpu_s": round(statistics.median(gen_cpu), 1),
        "verifications_per_cpu_s": round(statistics.median(ver_cpu), 1),
    }


def bench_build() -> dict:
    """Fresh builds in a temporary cache (molecule pool scan, embedded corpus, classic corpus)."""
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["RLVR_CACHE"] = tmp
        from rlvr.generators.stoich import corpus as corpus_mod
        from rlvr.generators.stoich.molecule_pool import load_molecule_pool

        load_molecule_pool.cache_clear()
        t0 = time.perf_counter()
        load_molecule_pool()
        t1 = time.perf_counter()
        embedded = corpus_mod.load_embedded()
        t2 = time.perf_counter()
        classic = corpus_mod.load_classic()
        t3 = time.perf_counter()
        corpus_mod.load_embedded()
        t4 = time.perf_counter()
        load_molecule_pool.cache_clear()
        del os.environ["RLVR_CACHE"]
    return {
        "pool_scan_s": round(t1 - t0, 1),
        "embedded_build_s": round(t2 - t1, 1),
        "embedded_reactions": len(embedded),
        "classic_build_s": round(t3 - t2, 1),
        "classic_reactions": len(classic),
        "cached_load_s": round(t4 - t3, 2),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=2000, help="tasks per repeat")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--families", nargs="*", default=list(FAMILIES))
    ap.add_argument("--encodings", nargs="*", default=["formula", "smiles"])
    ap.add_argument("--build", action="store_true", help="also time a fresh corpus build")
    ap.add_argument("--json", help="write the results to this file")
    args = ap.parse_args(argv)

    result: dict = {"python": platform.python_version(), "machine": platform.machine(), "cpus": os.cpu_count()}
    if args.build:
        result["build"] = bench_build()
        print(f"build: {result['build']}", flush=True)
    rows = []
    print(f"{'family':18s} {'encoding':8s} {'tasks/s':>10s} {'verif/s':>10s} {'tasks/cpu-s':>12s} {'verif/cpu-s':>12s}")
    for family in args.families:
        for encoding in args.encodings:
            row = bench_family(family, encoding, args.n, args.repeats)
            rows.append(row)
            print(f"{family:18s} {encoding:8s} {row['tasks_per_s']:10.1f} {row['verifications_per_s']:10.1f} "
                  f"{row['tasks_per_cpu_s']:12.1f} {row['verifications_per_cpu_s']:12.1f}", flush=True)
    result["rows"] = rows
    if args.json:
        from rlvr.files import atomic_open

        with atomic_open(args.json) as fh:
            json.dump(result, fh, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
