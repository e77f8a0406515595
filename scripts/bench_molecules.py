"""Throughput of the molecular task families on one core: tasks/s and verifications/s.

Verification is compared with a baseline that recomputes each asked property from a fresh RDKit
parse on every call (what a verifier without precomputed ground truth or caches has to do).
Each number is the median over ``--repeats`` runs.

    python scripts/bench_molecules.py --n 300 --repeats 3 [--pool my_pool.smi] [--json out.json]
"""
from __future__ import annotations

import argparse
import json
import statistics
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


def _clear_gen_caches() -> None:
    from rlvr.checkers import molecules

    features.clear_caches()
    molecules._features_of.cache_clear()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=300, help="tasks per measurement")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--pool", help="user pool file (default: the embedded pool)")
    parser.add_argument("--json", help="also write the results here")
    args = parser.parse_args()
    results = run(args.n, args.repeats, args.pool)
    print(json.dumps(results, indent=2))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(results, fh, indent=2)


if __name__ == "__main__":
    main()
