"""``rlvr verify``: score completions against tasks and print a summary."""
from __future__ import annotations

import argparse
import json
import sys
from collections import Counter


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "verify",
        help="score completions against tasks",
        description=(
            "Score completions. Either --tasks T.jsonl --completions C.jsonl (C lines: {\"id\":..., \"completion\":...} "
            "or plain strings, matched by id or by order), or --tasks T.jsonl --oracle to check every task's oracle answer, "
            "or --tasks T.jsonl alone when each record has a `completion` field."
        ),
    )
    p.add_argument("--tasks", required=True, help="tasks JSONL (from rlvr sample), or - for stdin")
    p.add_argument("--completions", help="completions JSONL")
    p.add_argument("--oracle", action="store_true", help="verify each task's oracle answer (sanity check)")
    p.add_argument("--reward", help="reward mode passed to the checker (e.g. em, f1, jaccard, shaped)")
    p.add_argument("--out", help="write per-task verdicts as JSONL")
    p.set_defaults(func=run)


def _completion_of(record):
    if isinstance(record, str):
        return record
    completion = record.get("completion")
    return completion


def run(args: argparse.Namespace) -> int:
    from rlvr.api import oracle_completion, verify
    from rlvr.commands.common import open_out, read_jsonl, read_tasks, write_jsonl

    tasks = read_tasks(args.tasks)
    if args.oracle:
        completions = [oracle_completion(t) for t in tasks]
    elif args.completions:
        records = list(read_jsonl(args.completions))
        by_id = {r["id"]: _completion_of(r) for r in records if isinstance(r, dict) and "id" in r}
        if by_id:
            completions = [by_id.get(t.id) for t in tasks]
        else:
            if len(records) != len(tasks):
                raise ValueError(f"{len(records)} completions for {len(tasks)} tasks (match by order needs equal counts)")
            completions = [_completion_of(r) for r in records]
    else:
        raw = list(read_jsonl(args.tasks))
        completions = [r.get("completion") for r in raw]
    options = {"reward": args.reward} if args.reward else {}
    verdicts = []
    reasons: Counter = Counter()
    for task, completion in zip(tasks, completions):
        v = verify(task, completion if completion is not None else "", **options)
        verdicts.append({"id": task.id, "family": task.family, **v.to_dict()})
        reasons[v.reason] += 1
    if args.out:
        with open_out(args.out) as fh:
            write_jsonl(verdicts, fh)
    n = len(verdicts)
    mean = sum(v["reward"] for v in verdicts) / n if n else 0.0
    acc = sum(v["correct"] for v in verdicts) / n if n else 0.0
    summary = {"n": n, "mean_reward": round(mean, 4), "accuracy": round(acc, 4), "reasons": dict(reasons.most_common())}
    print(json.dumps(summary), file=sys.stdout)
    return 0
