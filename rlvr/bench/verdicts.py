"""Tasks/s, verdicts/s (first and again) and the RDKit parse floor, per family, in fresh processes.

Two child processes (``python -m rlvr.bench.verdicts generate|measure``): the first draws ``n`` tasks
per case at fresh indices, timing the draw (tasks/s, after one warm-up task that loads the family's
data), and writes them with their oracle completions; the second, which has seen none of their
molecules, times ``rlvr.verify`` on each task's oracle completion (first verdict), then on another
completion with the same answer (again: reasoning in front, terms in another order, the next sample
of a GRPO group), then ``Chem.MolFromSmiles`` on the molecules each verdict is about (the floor of
any verifier that parses what it checks). Rates are wall-clock, one process, one core.
"""
from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Sequence

from rlvr.rewards.isolation import load_plugins

#: index of the warm-up task of each case; timed tasks start at FIRST_INDEX
WARMUP_INDEX, FIRST_INDEX = 0, 100_000
#: seconds a child process may take before the benchmark gives up
CHILD_TIMEOUT = 900


@dataclass(frozen=True)
class Case:
    """One measured row: a family with generator options."""

    family: str
    options: dict[str, Any] = field(default_factory=dict)

    @property
    def label(self) -> str:
        extra = " ".join(str(v) for v in self.options.values())
        return f"{self.family} {extra}".strip()


def default_cases(families: list[str] | None = None) -> list[Case]:
    """Every registered family with a ``train`` split (or ``families``), and its SMILES encoding where it has one."""
    import rlvr
    from rlvr.registry import get_family, list_families

    cases = []
    for name in families or list_families():
        spec = get_family(name)
        if "train" not in spec.splits:
            continue
        base = rlvr.generate(name, "train", 0, WARMUP_INDEX)
        cases.append(Case(name, {"encoding": base.meta["encoding"]} if "encoding" in base.meta else {}))
        if base.meta.get("encoding") not in (None, "smiles"):
            try:
                spec.make_config(encoding="smiles")
            except (TypeError, ValueError):
                continue
            cases.append(Case(name, {"encoding": "smiles"}))
    return cases


def molecules(task: Any) -> list[str]:
    """The SMILES a verdict on ``task`` is about: the task's molecule, or its species in the SMILES encoding."""
    meta, truth = task.meta, task.ground_truth
    for key in ("reference_smiles", "smiles", "canonical_smiles"):
        if meta.get(key):
            return [meta[key]]
    if meta.get("encoding") != "smiles":
        return []
    species: list[str] = []
    for key in ("reactants", "products", "byproducts", "inputs"):
        value = truth.get(key) if key != "inputs" else meta.get(key)
        if isinstance(value, (list, dict)):
            species += [s for s in value if isinstance(s, str)]
    return list(dict.fromkeys(species))


def variant(completion: str) -> str:
    """Another completion with the same answer: reasoning first, bag terms in reverse order."""
    start, end = completion.rfind("<answer>"), completion.rfind("</answer>")
    if start < 0 or end < start:
        return "<think>Checking once more.</think>\n" + completion
    body = completion[start + len("<answer>"):end]
    if not body.startswith("{\""):  # a bag or equation answer: reverse each side's terms
        body = ">>".join(".".join(reversed(re.split(r"\.(?=\{)", side))) for side in body.split(">>"))
    return f"<think>Checking the atoms once more.</think>\nSo the answer is:\n<answer>{body}</answer>"


def generate(cases: list[Case], n: int, path: Path) -> dict[str, float]:
    """Write ``n`` tasks per case (plus a warm-up task) to ``path``; tasks/s of each case's draw."""
    import rlvr

    rates = {}
    with open(path, "w", encoding="utf-8") as fh:
        for case in cases:
            warm = rlvr.generate(case.family, "train", 0, WARMUP_INDEX, **case.options)  # loads the data
            t0 = time.perf_counter()
            tasks = list(rlvr.sample(case.family, n=n, split="train", seed=0, start=FIRST_INDEX, **case.options))
            rates[case.label] = n / (time.perf_counter() - t0)
            for role, task in [("warmup", warm)] + [("timed", t) for t in tasks]:
                record = {"case": case.label, "role": role, "task": task.to_dict(),
                          "completion": rlvr.oracle_completion(task)}
                fh.write(json.dumps(record) + "\n")
    return rates


def _rate(count: int, seconds: float) -> float:
    return count / seconds if seconds > 0 else float("inf")


def measure(path: Path) -> dict[str, dict[str, Any]]:
    """Per case: first and again verdicts/s, median µs of each, the parse floor and oracle misses."""
    from rdkit import Chem

    import rlvr
    from rlvr.task import Task

    cases: dict[str, dict[str, list[tuple[Task, str]]]] = {}
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            rec = json.loads(line)
            cases.setdefault(rec["case"], {}).setdefault(rec["role"], []).append(
                (Task.from_dict(rec["task"]), rec["completion"]))
    Chem.MolFromSmiles("CCO")  # load RDKit's parser
    out: dict[str, dict[str, Any]] = {}
    clock = time.perf_counter_ns
    for label, roles in cases.items():
        for task, completion in roles.get("warmup", []):  # imports the family's checker, starts the watchdog
            rlvr.verify(task, completion)
        pairs = roles["timed"]
        again = [variant(c) for _, c in pairs]  # built outside the timing
        first_ns, again_ns, parse_ns, misses = [], [], [], 0
        for task, completion in pairs:
            t0 = clock()
            verdict = rlvr.verify(task, completion)
            first_ns.append(clock() - t0)
            misses += verdict.reward != 1.0
        for (task, _), text in zip(pairs, again):
            t0 = clock()
            rlvr.verify(task, text)
            again_ns.append(clock() - t0)
        for task, _ in pairs:
            found = molecules(task)
            if found:
                t0 = clock()
                for smiles in found:
                    Chem.MolFromSmiles(smiles)
                parse_ns.append(clock() - t0)
        out[label] = {
            "n": len(pairs),
            "first_per_s": round(_rate(len(first_ns), sum(first_ns) / 1e9), 1),
            "again_per_s": round(_rate(len(again_ns), sum(again_ns) / 1e9), 1),
            "first_median_us": round(statistics.median(first_ns) / 1e3, 1),
            "again_median_us": round(statistics.median(again_ns) / 1e3, 1),
            "parse_floor_per_s": round(_rate(len(parse_ns), sum(parse_ns) / 1e9), 1) if parse_ns else None,
            "parse_floor_median_us": round(statistics.median(parse_ns) / 1e3, 1) if parse_ns else None,
            "oracle_below_1": misses,
        }
    return out


def _child(*args: str, plugins: Sequence[str] = ()) -> Any:
    plugin_args = [a for spec in plugins for a in ("--plugin", spec)]
    proc = subprocess.run([sys.executable, "-m", "rlvr.bench.verdicts", *args, *plugin_args], capture_output=True,
                          text=True, timeout=CHILD_TIMEOUT)
    if proc.returncode != 0:
        tail = proc.stderr.strip().splitlines()[-1:] or ["no output"]
        raise RuntimeError(f"benchmark process failed: {tail[0]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def run(cases: list[Case], n: int, folder: Path, plugins: Sequence[str] = ()) -> list[dict[str, Any]]:
    """One row per case: tasks/s from a drawing process, verdict rates from a fresh measuring one (each
    loads the ``--plugin`` modules ``plugins`` first, so plugin families are measured too)."""
    path = folder / "tasks.jsonl"
    rates = _child("generate", "--tasks", str(path), "--n", str(n),
                   "--cases", json.dumps([asdict(c) for c in cases]), plugins=plugins)
    verdicts = _child("measure", "--tasks", str(path), plugins=plugins)
    return [{"case": c.label, "family": c.family, "options": c.options,
             "tasks_per_s": round(rates[c.label], 1), **verdicts[c.label]} for c in cases]


def main(argv: list[str] | None = None) -> int:
    """The child processes' entry point; prints one JSON line."""
    parser = argparse.ArgumentParser(prog="python -m rlvr.bench.verdicts")
    parser.add_argument("step", choices=["generate", "measure"])
    parser.add_argument("--tasks", required=True, type=Path)
    parser.add_argument("--n", type=int, default=100)
    parser.add_argument("--cases", default="[]", help="JSON list of {family, options}")
    parser.add_argument("--plugin", action="append", default=[], help="a plugin module or file to load first")
    args = parser.parse_args(argv)
    load_plugins(args.plugin)
    if args.step == "generate":
        result: Any = generate([Case(**c) for c in json.loads(args.cases)], args.n, args.tasks)
    else:
        result = measure(args.tasks)
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
