"""Throughput of the molecular task families on one core: tasks/s and verifications/s.

Verification is compared with a baseline that recomputes each asked property from a fresh RDKit
parse on every call (what a verifier without precomputed ground truth or caches has to do).
Each number is the median over ``--repeats`` runs.

``--fresh-process`` measures what a new training job sees: tasks/s in a fresh Python process
(imports, pool and table loading excluded, then ``--n`` tasks), reading the pool's feature table
(``rlvr features build-table``; shipped for the embedded pool) and, for comparison, without it.

    python scripts/bench_molecules.py --n 300 --repeats 3 [--pool my_pool.smi] [--json out.json]
    python scripts/bench_molecules.py --fresh-process --n 1000 --repeats 3
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from typing import Any, Callable

import rlvr
from rlvr.chem.molecules import features
from rlvr.checkers.molecules import check, check_value


def _median_rate(fn: Callable[[], int], repeats: int, before: Callable[[], None] | None = None) -> float:
    rates = []
    for _ in range(repeats):
        if before is not None:
            before()
        start = time.perf_counter()
        n = fn()
        rates.append(n / (time.perf_counter() - start))
    return statistics.median(rates)


def _fresh_parse_verify(task: rlvr.Task, completion: str) -> bool:
    """Baseline: recompute every asked property from a fresh parse, then compare."""
    from rlvr.answer import extract_json_answer

    features.clear_caches()
    answer, _ = extract_json_answer(completion)
    values = features.molecule_features(task.meta["smiles"], list(task.ground_truth))
    return isinstance(answer, dict) and all(check_value(k, answer.get(k), values[k])[1] for k in values)


def run(n: int, repeats: int, pool: str | None) -> dict[str, Any]:
    options: dict[str, Any] = {"pool": pool} if pool else {}
    results: dict[str, Any] = {"n": n, "repeats": repeats}
    # build the pool split and the frequency statistics once (cached on disk), outside the timings
    list(rlvr.sample("mol.count", n=1, split="train", **options))
    for family in ("mol.count", "mol.index", "mol.gen"):
        for load in (1, 3):
            key = f"{family}/load{load}"

            def gen(start: int = 0) -> int:
                return sum(1 for _ in rlvr.sample(family, n=n, split="train", start=start, load=load, **options))

            cold = _median_rate(gen, repeats, before=features.clear_caches)
            warm = _median_rate(gen, repeats)
            tasks = list(rlvr.sample(family, n=n, split="train", load=load, **options))
            good = [rlvr.oracle_completion(t) for t in tasks]
            if family == "mol.gen":
                bad = ['<answer>{"smiles": "CCO.CC"}</answer>'] * len(tasks)
            else:
                bad = ["<answer>" + json.dumps({k: 0 for k in t.ground_truth}) + "</answer>" for t in tasks]

            def verify_all(completions: list[str] = good) -> int:
                for t, c in zip(tasks, completions):
                    check(t, c)
                return len(tasks)

            row = {
                "tasks_per_s_cold": round(cold, 1),
                "tasks_per_s_warm": round(warm, 1),
                "verify_per_s_correct": round(_median_rate(verify_all, repeats), 1),
                "verify_per_s_wrong": round(_median_rate(lambda: verify_all(bad), repeats), 1),
            }
            if family == "mol.gen":
                # a generated molecule must be recomputed: cold = every answer new to the caches
                row["verify_per_s_correct_cold"] = round(_median_rate(verify_all, repeats, before=_clear_gen_caches), 1)
            else:
                def baseline() -> int:
                    for t, c in zip(tasks, good):
                        _fresh_parse_verify(t, c)
                    return len(tasks)

                row["verify_per_s_fresh_parse_baseline"] = round(_median_rate(baseline, repeats), 1)
            results[key] = row
    return results


#: run in a fresh process: argv = family, n, load, pool ("" = embedded), use the table ("1"/"0")
_FRESH = """
import json, sys, time
import rlvr
from rlvr.generators.molecules import splits
family, n, load, pool, use_table = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5] == "1"
if not use_table:
    splits.cached_table = lambda smiles: None
options = {"pool": pool} if pool else {}
list(rlvr.sample(family, n=1, split="train", start=10**7, load=load, **options))  # pool, table, statistics
table = splits.pool_table(splits.load_split_pool(pool or None))
start = time.perf_counter()
count = sum(1 for _ in rlvr.sample(family, n=n, split="train", load=load, **options))
print(json.dumps({"rate": count / (time.perf_counter() - start), "table": table is not None}))
"""


def fresh_process(n: int, repeats: int, pool: str | None) -> dict[str, Any]:
    """Cold tasks/s in a fresh process, with and without the pool's feature table."""
    results: dict[str, Any] = {"n": n, "repeats": repeats}
    for family in ("mol.count", "mol.index", "mol.gen"):
        for load in (1, 3):
            row: dict[str, Any] = {}
            for use_table in (True, False):
                rates, found = [], False
                for _ in range(repeats):
                    out = subprocess.run([sys.executable, "-c", _FRESH, family, str(n if use_table else max(n // 10, 50)),
                                          str(load), pool or "", "1" if use_table else "0"],
                                         capture_output=True, text=True, check=True)
                    data = json.loads(out.stdout.strip().splitlines()[-1])
                    rates.append(data["rate"])
                    found = data["table"]
                name = "tasks_per_s_with_table" if use_table else "tasks_per_s_without_table"
                row[name] = round(statistics.median(rates), 1)
                if use_table and not found:
                    row[name] = None  # no table for this pool: build it with rlvr features build-table
            results[f"{family}/load{load}"] = row
    return results


def _clear_gen_caches() -> None:
    from rlvr.checkers import molecules_gen

    features.clear_caches()
    molecules_gen._generated.cache_clear()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=300, help="tasks per measurement")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--pool", help="user pool file (default: the embedded pool)")
    parser.add_argument("--json", help="also write the results here")
    parser.add_argument("--fresh-process", action="store_true",
                        help="cold generation in fresh processes, with and without the feature table")
    args = parser.parse_args()
    results = fresh_process(args.n, args.repeats, args.pool) if args.fresh_process else run(args.n, args.repeats, args.pool)
    print(json.dumps(results, indent=2))
    if args.json:
        from rlvr.files import atomic_open

        with atomic_open(args.json) as fh:
            json.dump(results, fh, indent=2)


if __name__ == "__main__":
    main()
