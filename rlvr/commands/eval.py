"""``rlvr eval``: score a model on fixed eval sets; ``rlvr eval compare A.json B.json``."""
from __future__ import annotations

import argparse
import sys


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "eval",
        help="evaluate a model (or a reference backend) on the stoichiometry / molecular eval suites",
        description=(
            "Evaluate a model on fixed, versioned eval sets and write results.json, report.md, plots and a "
            "resumable verdict log into --out. `rlvr eval compare A.json B.json` shows two runs side by side."
        ),
    )
    p.add_argument("--model", default="default", help="local path, hub id, 'default' (embedded SmolLM2-135M-Instruct), "
                   "or the model name sent to an --backend openai endpoint")
    p.add_argument("--adapter", help="LoRA adapter folder (peft) applied on top of --model")
    p.add_argument("--suite", default="all", help="stoich | molecules | all (default all)")
    p.add_argument("--tasks", dest="tasks_file", help="evaluate an exported eval set (JSONL) instead of a suite")
    p.add_argument("--splits", nargs="+", help="keep these splits (in/cross/out are short for test_in/test_cross/test_out)")
    p.add_argument("--limit", type=int, help="at most N tasks per suite entry (a prefix of the fixed set)")
    p.add_argument("--samples", type=int, default=1, help="rollouts per task K (greedy when 1; default 1)")
    p.add_argument("--out", help="output folder (default runs/eval/<suite>-<model>-<backend>-s<seed>)")
    p.add_argument("--backend", default="transformers", choices=["transformers", "vllm", "openai", "oracle", "copy-input"])
    p.add_argument("--seed", type=int, default=0, help="eval-set seed (and sampling seed)")
    p.add_argument("--max-new-tokens", type=int, default=256)
    p.add_argument("--batch-size", type=int, default=8)
    p.add_argument("--temperature", type=float, help="default 0 (greedy) for one sample, 0.7 for several")
    p.add_argument("--top-p", type=float, default=0.95)
    p.add_argument("--device", default="auto", help="transformers backend: cpu, cuda, cuda:1, auto")
    p.add_argument("--dtype", default="auto", help="float32, bfloat16, float16, auto")
    p.add_argument("--threads", type=int, help="transformers backend on CPU: torch intra-op threads (default: torch's choice)")
    p.add_argument("--no-chat-template", dest="chat_template", action="store_false",
                   help="feed raw prompt text (for base models without a chat template)")
    p.add_argument("--base-url", help="openai backend: endpoint base URL, e.g. http://127.0.0.1:8000/v1")
    p.add_argument("--api-key-env", default="OPENAI_API_KEY", help="environment variable holding the API key")
    p.add_argument("--concurrency", type=int, default=4, help="openai backend: parallel requests")
    p.add_argument("--timeout", dest="request_timeout", type=float, default=120.0, help="openai backend: seconds per request")
    p.add_argument("-o", "--option", action="append", metavar="KEY=VALUE",
                   help="family option applied to every suite entry whose family has it (e.g. semantics=paper)")
    p.add_argument("--export", metavar="FILE", help="write the eval set as JSONL to FILE and exit (no generation)")
    p.add_argument("--overwrite", action="store_true", help="discard earlier results in --out instead of resuming")
    p.add_argument("--no-plots", dest="plots", action="store_false")
    p.add_argument("--no-progress", dest="progress", action="store_false")
    p.add_argument("--list-suites", action="store_true", help="print the suites and their entries, then exit")
    p.add_argument("--debug", action="store_true", help="show tracebacks")
    p.set_defaults(func=run)
    sp = p.add_subparsers(dest="eval_command", metavar="{compare}")
    sp.required = False
    c = sp.add_parser("compare", help="two results.json side by side with deltas (Markdown)")
    c.add_argument("a", help="results.json (or out dir) A")
    c.add_argument("b", help="results.json (or out dir) B")
    c.add_argument("--only", help="keep metric paths with this prefix, e.g. stoich/table4")
    c.add_argument("--out", dest="compare_out", help="also write the Markdown to this file")
    c.set_defaults(func=run_compare)


def run_compare(args: argparse.Namespace) -> int:
    from pathlib import Path

    from rlvr.eval.compare import compare_files

    text = compare_files(args.a, args.b, only=args.only)
    sys.stdout.write(text)
    if args.compare_out:
        Path(args.compare_out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.compare_out).write_text(text, encoding="utf-8")
    return 0


def _config(args: argparse.Namespace):
    from rlvr.commands.common import parse_option_pairs
    from rlvr.eval.config import EvalConfig

    return EvalConfig(
        model=args.model, adapter=args.adapter, suite=args.suite, splits=tuple(args.splits) if args.splits else None,
        limit=args.limit, samples=args.samples, out=args.out, backend=args.backend, seed=args.seed,
        max_new_tokens=args.max_new_tokens, batch_size=args.batch_size, temperature=args.temperature,
        top_p=args.top_p, device=args.device, dtype=args.dtype, chat_template=args.chat_template,
        threads=args.threads,
        base_url=args.base_url, api_key_env=args.api_key_env, request_timeout=args.request_timeout,
        concurrency=args.concurrency, options=parse_option_pairs(args.option), tasks_file=args.tasks_file,
        overwrite=args.overwrite, progress=args.progress, plots=args.plots,
    )


def run(args: argparse.Namespace) -> int:
    import json
    import logging

    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    logging.getLogger("rlvr.eval").setLevel(logging.INFO)
    if args.list_suites:
        from rlvr.eval.suites import builtin_suites

        for suite in builtin_suites().values():
            print(f"{suite.version_string}: {suite.description} ({len(suite.entries)} entries)")
            for e in suite.entries:
                print(f"  {e.label()} n={e.n}")
        return 0
    config = _config(args)
    if args.export:
        from rlvr.eval.runner import load_eval_set
        from rlvr.eval.suites import eval_set_digest, export_eval_set

        pairs, info = load_eval_set(config)
        tasks = [t for _, t in pairs]
        n = export_eval_set(tasks, args.export)
        print(json.dumps({"exported": n, "path": args.export, "suite": info["suite"],
                          "suite_version": info["suite_version"], "digest": eval_set_digest(tasks)}))
        return 0
    from rlvr.eval.backends import BackendUnavailable
    from rlvr.eval.backends.openai_backend import EndpointError
    from rlvr.eval.runner import run_eval

    try:
        result = run_eval(config)
    except (BackendUnavailable, EndpointError) as exc:
        if args.debug:
            raise
        print(f"rlvr eval: error: {exc}", file=sys.stderr)
        return 2
    sys.stdout.write(result.report)
    print(f"\nwrote {result.paths['results']} and {result.paths['report']}", file=sys.stderr)
    return 0
