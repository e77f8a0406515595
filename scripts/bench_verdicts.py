#!/usr/bin/env python3
"""Latency of one verdict: median microseconds of ``rlvr.verify`` per family and encoding.

Tasks and their oracle completions are generated in a separate process and written to a
temporary file, so the measuring process has seen none of their species or molecules: every
verdict of a molecular task is on a molecule new to the process (the numbers include whatever
parsing or feature computation a first verdict needs: ``first``). Each task is then verified a
second time with another completion giving the same answer (``again``: reasoning before the
answer block, terms in another order, built before the timed call; the next sample of a group
on the same prompt, once the task's species are known to the process). Times are the thread's CPU time (``time.thread_time_ns``,
which other processes on the machine do not inflate), with the wall-clock time of the first
verdict alongside. Tasks are :class:`rlvr.Task` objects (what the trainer
adapters pass); the default verdict deadline applies. The case ``stoich.t2 smiles, written otherwise``
writes every SMILES of the oracle answer in another atom order (what a model that does not copy
the task's strings writes), which the checker scores on its canonical path.

For reference, ``rdkit_parse_us`` is the median time of ``Chem.MolFromSmiles`` on the same
molecules (for SMILES tasks: all the task's species; for molecular tasks: the molecule the
verdict is about), the floor of any verifier that parses what it checks, timed after the verdicts
(a repeated parse); ``rdkit_first_parse_us`` times the parses in a fresh process, each molecule
parsed once, when a task first names it (a molecule met in an earlier task costs nothing there):
what a first verdict that parses each molecule once per process pays at least.

    taskset -c 0 python scripts/bench_verdicts.py            # 300 tasks per family, 3 repeats
    taskset -c 0 python scripts/bench_verdicts.py --quick    # 60 tasks, 1 repeat
    python scripts/bench_verdicts.py --json out.json
    taskset -c 0 python scripts/bench_verdicts.py --only stoich   # the cases whose label contains "stoich"
    taskset -c 0 python scripts/bench_verdicts.py --batched       # each repeat prepared as a batch (rlvr.prepare)
"""
from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any

#: (family, generator options, label)
CASES: tuple[tuple[str, dict[str, Any], str], ...] = (
    ("stoich.balance", {"encoding": "formula"}, "stoich.balance formula"),
    ("stoich.balance", {"encoding": "smiles"}, "stoich.balance smiles"),
    ("stoich.t1", {"encoding": "formula"}, "stoich.t1 formula"),
    ("stoich.t1", {"encoding": "smiles"}, "stoich.t1 smiles"),
    ("stoich.t2", {"encoding": "formula"}, "stoich.t2 formula"),
    ("stoich.t2", {"encoding": "smiles"}, "stoich.t2 smiles"),
    ("stoich.t2", {"encoding": "smiles"}, "stoich.t2 smiles, written otherwise"),
    ("stoich.byproduct", {"encoding": "formula"}, "stoich.byproduct formula"),
    ("stoich.byproduct", {"encoding": "smiles"}, "stoich.byproduct smiles"),
    ("mol.count", {}, "mol.count"),
    ("mol.index", {}, "mol.index"),
    ("mol.gen", {}, "mol.gen"),
)


def selected(only: str | None) -> tuple[tuple[str, dict[str, Any], str], ...]:
    """The cases whose label contains ``only`` (all of them when None)."""
    return tuple(case for case in CASES if only is None or only in case[2])


def generate(path: str, n: int, repeats: int, only: str | None = None) -> None:
    """Write ``{"case", "repeat", "task", "completion"}`` lines: ``n`` fresh tasks per case and repeat."""
    import rlvr

    with open(path, "w", encoding="utf-8") as fh:
        for family, options, label in selected(only):
            rewrite = label.endswith("written otherwise")
            for r in range(repeats):
                start = (50_000 if rewrite else 10_000) + r * n  # other tasks than the case written as the task
                tasks = rlvr.sample(family, n=n, split="train", seed=r, start=start, **options)
                for i, task in enumerate(tasks):
                    completion = rlvr.oracle_completion(task)
                    if rewrite:
                        completion = _written_otherwise(completion, seed=r * n + i)
                    record = {"case": label, "repeat": r, "task": task.to_dict(), "completion": completion}
                    fh.write(json.dumps(record) + "\n")


def _written_otherwise(completion: str, seed: int) -> str:
    """The same bag answer with every SMILES written in another (random, seeded) atom order: the
    answer a model writes without copying the task's strings, scored on the canonical path."""
    from rdkit import Chem

    start, end = completion.rfind("<answer>"), completion.rfind("</answer>")
    terms = []
    for n, term in enumerate(re.split(r"\.(?=\{)", completion[start + len("<answer>"):end])):
        k, _, species = term[1:].partition("}")
        Chem.rdBase.SeedRandomNumberGenerator(seed * 100 + n)
        terms.append(f"{{{k}}}{Chem.MolToSmiles(Chem.MolFromSmiles(species), doRandom=True)}")
    return "<answer>" + ".".join(terms) + "</answer>"


def _molecules(task: Any) -> list[str]:
    """The SMILES a verdict on ``task`` is about (empty for the formula encoding)."""
    meta, gt = task.meta, task.ground_truth
    if task.family.startswith("mol."):
        smiles = meta.get("reference_smiles") if task.family == "mol.gen" else meta.get("smiles")
        return [smiles] if smiles else []
    if meta.get("encoding") != "smiles":
        return []
    if isinstance(gt.get("coefficients"), list):
        return [*gt["reactants"], *gt["products"]]
    species = list(gt.get("products") or gt.get("byproducts") or {})
    return species + list(meta.get("inputs") or {})


def _variant(completion: str) -> str:
    """Another completion with the same answer: reasoning first, bag terms in reverse order (as ``rlvr bench``)."""
    from rlvr.bench.verdicts import variant

    return variant(completion)


def first_parse_floor(path: str, only: str | None = None) -> dict[str, float]:
    """Per case: the median time (µs) of ``Chem.MolFromSmiles`` on each task's molecules not met in an
    earlier task, each string parsed for the first time in this process (run in a fresh process: what a
    first verdict that parses its molecules once per process pays at least)."""
    from rdkit import Chem

    from rlvr.task import Task

    Chem.MolFromSmiles("CCO")  # load RDKit's parser
    seen: set[str] = set()
    times: dict[str, list[int]] = {}
    clock = time.thread_time_ns
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            rec = json.loads(line)
            if only is not None and only not in rec["case"]:
                continue
            molecules = _molecules(Task.from_dict(rec["task"]))
            if not molecules:
                continue
            fresh = [m for m in dict.fromkeys(molecules) if m not in seen]  # a molecule met before costs nothing here
            seen.update(fresh)
            t0 = clock()
            for smiles in fresh:
                Chem.MolFromSmiles(smiles)
            times.setdefault(rec["case"], []).append(clock() - t0)
    return {case: round(statistics.median(t) / 1000, 1) for case, t in times.items()}


def measure(path: str, only: str | None = None, batched: bool = False) -> dict[str, dict[str, Any]]:
    """Per case: the median verdict time and RDKit parse floor (µs) of each repeat, and the reward check.

    ``batched``: each repeat's pairs are prepared as one batch first (:func:`rlvr.prepare`, as the
    trainer adapters do), then verified; a first verdict's time is its share of the preparation
    (as ``rlvr.prepare`` reports it) plus its verification.
    """
    from rdkit import Chem

    import rlvr
    from rlvr.task import Task

    records: dict[str, dict[int, list[tuple[Task, str]]]] = {}
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            rec = json.loads(line)
            records.setdefault(rec["case"], {}).setdefault(rec["repeat"], []).append(
                (Task.from_dict(rec["task"]), rec["completion"]))
    cases = [case for case in selected(only) if case[2] in records]
    if not cases:
        raise SystemExit(f"bench_verdicts: no tasks for the selected cases in {path}")
    rlvr.verify(*records[cases[0][2]][0][0])  # import the families and start the deadline watchdog
    for _family, _options, label in cases:  # import every family provider before timing
        rlvr.api.get_family(records[label][0][0][0].family)
    clock, wall = time.thread_time_ns, time.perf_counter_ns
    out: dict[str, dict[str, Any]] = {}
    for _family, _options, label in cases:
        verdict_medians, warm_medians, wall_medians, parse_medians, means, wrong = [], [], [], [], [], 0
        for repeat in sorted(records[label]):
            pairs = records[label][repeat]
            times, warm, walls, parses = [], [], [], []
            prepared = [0.0] * len(pairs)
            if batched:  # the batch prepared first; each pair's share as rlvr.prepare reports it
                prepared = rlvr.prepare([t for t, _ in pairs], [c for _, c in pairs])
            for (task, completion), before in zip(pairs, prepared):
                w0, t0 = wall(), clock()
                verdict = rlvr.verify(task, completion)
                times.append(before * 1e9 + clock() - t0)
                walls.append(wall() - w0)
                wrong += verdict.reward != 1.0
            variants = [_variant(completion) for _task, completion in pairs]  # built outside the timing
            for (task, _completion), variant in zip(pairs, variants):  # the task's next completion (a group)
                t0 = clock()
                rlvr.verify(task, variant)
                warm.append(clock() - t0)
            for task, _completion in pairs:
                molecules = _molecules(task)
                if molecules:  # the parse floor, in the same clock
                    t0 = clock()
                    for smiles in molecules:
                        Chem.MolFromSmiles(smiles)
                    parses.append(clock() - t0)
            verdict_medians.append(statistics.median(times) / 1000)
            means.append(statistics.fmean(times) / 1000)
            warm_medians.append(statistics.median(warm) / 1000)
            wall_medians.append(statistics.median(walls) / 1000)
            if parses:
                parse_medians.append(statistics.median(parses) / 1000)
        out[label] = {
            "n": sum(len(p) for p in records[label].values()),
            "verdict_us": round(statistics.median(verdict_medians), 1),
            "verdict_us_per_repeat": [round(v, 1) for v in verdict_medians],
            "first_mean_us": round(statistics.median(means), 1),  # the tail: a few slow keys weigh here
            "again_us": round(statistics.median(warm_medians), 1),
            "first_wall_us": round(statistics.median(wall_medians), 1),
            "rdkit_parse_us": round(statistics.median(parse_medians), 1) if parse_medians else None,
            "oracle_below_1": wrong,
        }
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=300, help="tasks per family and repeat (default 300)")
    parser.add_argument("--repeats", type=int, default=3, help="runs on fresh tasks; the median is reported")
    parser.add_argument("--quick", action="store_true", help="60 tasks, 1 repeat")
    parser.add_argument("--tasks", help="reuse (or keep) the generated tasks in this JSONL file")
    parser.add_argument("--json", help="also write the results to this file")
    parser.add_argument("--only", help="only the cases whose label contains this text (e.g. stoich, smiles)")
    parser.add_argument("--batched", action="store_true",
                        help="prepare each repeat's pairs as one batch first (rlvr.prepare), as the trainer adapters do")
    parser.add_argument("--generate-only", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--parse-floor-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.quick:
        args.n, args.repeats = 60, 1
    if args.n < 1 or args.repeats < 1:
        print("bench_verdicts: --n and --repeats must be positive", file=sys.stderr)
        return 2
    if args.only is not None and not selected(args.only):
        print(f"bench_verdicts: no case label contains {args.only!r}", file=sys.stderr)
        return 2
    if args.generate_only:
        generate(args.tasks, args.n, args.repeats, args.only)
        return 0
    if args.parse_floor_only:
        print(json.dumps(first_parse_floor(args.tasks, args.only)))
        return 0
    path = args.tasks or os.path.join(tempfile.mkdtemp(prefix="rlvr-bench-"), "tasks.jsonl")
    only = ["--only", args.only] if args.only is not None else []
    if not (args.tasks and os.path.exists(args.tasks)):
        # a separate process, so the measuring one has seen none of the molecules
        subprocess.run([sys.executable, __file__, "--generate-only", "--tasks", path, "--n", str(args.n),
                        "--repeats", str(args.repeats), *only], check=True)
    results = measure(path, args.only, args.batched)
    floor = subprocess.run([sys.executable, __file__, "--parse-floor-only", "--tasks", path, *only],
                           check=True, capture_output=True, text=True)  # a fresh process: first parses
    for label, first in json.loads(floor.stdout).items():
        results[label]["rdkit_first_parse_us"] = first
    width = max(len(label) for label in results)
    print("median CPU µs per verdict (thread time; wall-clock for the first verdict alongside; the mean of first verdicts last)"
          + ("; a first verdict includes its share of the batch's preparation" if args.batched else ""))
    print(f"{'family/encoding':<{width}}  {'n':>5}  {'first':>8}  {'again':>8}  {'first wall':>10}  "
          f"{'RDKit parse':>11}  {'first parse':>11}  {'first mean':>10}  first, per repeat")
    for label, row in results.items():
        parse = "-" if row["rdkit_parse_us"] is None else f"{row['rdkit_parse_us']:.1f}"
        first = row.get("rdkit_first_parse_us")
        first_text = "-" if first is None else f"{first:.1f}"
        print(f"{label:<{width}}  {row['n']:>5}  {row['verdict_us']:>8.1f}  {row['again_us']:>8.1f}  "
              f"{row['first_wall_us']:>10.1f}  {parse:>11}  {first_text:>11}  {row['first_mean_us']:>10.1f}  "
              f"{row['verdict_us_per_repeat']}")
    bad = {label: row["oracle_below_1"] for label, row in results.items() if row["oracle_below_1"]}
    if bad:
        print(f"oracle completions scored below 1.0: {bad}", file=sys.stderr)
    if args.json:
        from rlvr.files import atomic_open

        with atomic_open(args.json) as fh:
            json.dump(results, fh, indent=2)
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
