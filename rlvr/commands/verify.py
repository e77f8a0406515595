"""``rlvr verify``: score completions against tasks and print a summary."""
from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from typing import Any

from rlvr.commands.common import add_out_args, open_out, out_path, read_jsonl, read_tasks, write_jsonl
from rlvr.commands.errors import UsageError
from rlvr.commands.plugins import add_plugin_arg
from rlvr.task import Task


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "verify",
        help="score completions against tasks",
        description=(
            "Score completions. Either --tasks T.jsonl --completions C.jsonl (C lines: {\"id\":..., \"completion\":...} "
            "or plain strings, matched by id or by order), or --tasks T.jsonl --oracle to check every task's oracle answer, "
            "or --tasks T.jsonl alone when every record has a `completion` field (rlvr sample --with-solution writes one)."
        ),
    )
    p.add_argument("--tasks", required=True, help="tasks JSONL (from rlvr sample), or - for stdin")
    source = p.add_mutually_exclusive_group()
    source.add_argument("--completions", help="completions JSONL, one {\"id\": ..., \"completion\": ...} or string per line")
    source.add_argument("--oracle", action="store_true", help="verify each task's oracle answer (sanity check)")
    p.add_argument("--reward", help="reward mode passed to the checker (e.g. em, f1, jaccard, shaped)")
    add_out_args(p, "verdicts.jsonl", what="write per-task verdicts as JSONL to this file")
    add_plugin_arg(p)
    p.set_defaults(func=run)


def _completion_of(record: Any) -> Any:
    return record if isinstance(record, str) else record.get("completion") if isinstance(record, dict) else None


def _from_file(path: str, tasks: list[Task]) -> list[Any]:
    records = list(read_jsonl(path, "--completions"))
    by_id = {r["id"]: _completion_of(r) for r in records if isinstance(r, dict) and "id" in r}
    if by_id:
        missing = sum(t.id not in by_id for t in tasks)
        if missing == len(tasks):
            raise UsageError(f"no id in {path} matches a task id of --tasks; are they completions of these tasks?")
        if missing:
            print(f"note: {missing} of {len(tasks)} tasks have no completion in {path}; they score 0 (no_answer)",
                  file=sys.stderr)
        return [by_id.get(t.id) for t in tasks]
    if len(records) != len(tasks):
        raise UsageError(f"{path} has {len(records)} completions for {len(tasks)} tasks and no ids; "
                         "matching by order needs equal counts (or add an \"id\" to each line)")
    return [_completion_of(r) for r in records]


def _embedded(path: str, records: list[Any]) -> list[Any]:
    missing = [i for i, r in enumerate(records, 1) if r.get("completion") is None]
    if len(missing) == len(records):
        raise UsageError(f"{path} has no `completion` field: pass --completions FILE (your model's outputs) "
                         "or --oracle (check the tasks' own answers)")
    if missing:
        raise UsageError(f"{path}: {len(missing)} of {len(records)} records have no `completion` "
                         f"(first: record {missing[0]}); pass --completions FILE instead")
    return [r["completion"] for r in records]


def run(args: argparse.Namespace) -> int:
    from rlvr.api import oracle_completion, verify

    path = out_path(args.out, "verdicts.jsonl", args.overwrite)
    records = list(read_jsonl(args.tasks, "--tasks"))
    tasks = read_tasks(args.tasks, records)
    if not tasks:
        raise UsageError(f"{args.tasks} holds no tasks")
    if args.oracle:
        completions = [oracle_completion(t) for t in tasks]
    elif args.completions:
        completions = _from_file(args.completions, tasks)
    else:
        completions = _embedded(args.tasks, records)
    options = {"reward": args.reward} if args.reward else {}
    verdicts = []
    reasons: Counter = Counter()
    for task, completion in zip(tasks, completions):
        v = verify(task, completion if completion is not None else "", **options)
        verdicts.append({"id": task.id, "family": task.family, **v.to_dict()})
        reasons[str(v.reason)] += 1
    if path is not None:
        with open_out(path) as fh:
            write_jsonl(verdicts, fh)
    n = len(verdicts)
    mean = sum(v["reward"] for v in verdicts) / n
    acc = sum(v["correct"] for v in verdicts) / n
    summary = {"n": n, "mean_reward": round(mean, 4), "accuracy": round(acc, 4), "reasons": dict(reasons.most_common())}
    print(json.dumps(summary), file=sys.stdout)
    if path is not None:
        print(f"wrote {n} verdicts to {path}", file=sys.stderr)
    return 0
