"""``rlvr eval``: score a model on fixed eval sets; ``rlvr eval compare A.json B.json``."""
from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from pathlib import Path

from rlvr.commands.common import add_out_args, open_out, out_path, parse_option_pairs, positive_int
from rlvr.commands.errors import UsageError
from rlvr.commands.plugins import add_plugin_arg, suites_help
from rlvr.eval.config import DECODINGS
from rlvr.generation.draw import DRAWS
from rlvr.generation.grouped_attention import ATTENTION_CHOICES, GROUPED_SDPA


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "eval",
        help="evaluate a model (or a reference backend) on the eval suites of the family groups",
        description=(
            "Evaluate a model on fixed, versioned eval sets and write results.json, report.md, a resumable verdict "
            "log and, where the suite's report layouts draw any, PNG plots into --out. "
            "`rlvr eval compare A.json B.json` shows two runs side by side."
        ),
    )
    p.add_argument("--model", default="default", help="local path, hub id, 'default' (embedded SmolLM2-135M-Instruct), "
                   "or the model name sent to an --backend openai endpoint")
    p.add_argument("--adapter", help="LoRA adapter folder (peft) applied on top of --model")
    p.add_argument("--suite", default="all", help=suites_help("eval suite, one per family group, or all of them"))
    p.add_argument("--tasks", dest="tasks_file", help="evaluate an exported eval set (JSONL) instead of a suite")
    p.add_argument("--splits", nargs="+", help="keep these splits (in/cross/out are short for test_in/test_cross/test_out)")
    p.add_argument("--limit", type=positive_int,
                   help="at most N tasks per suite entry (a prefix of the fixed set): the run generates up to "
                        "entries x N x --samples completions (rlvr eval --list-suites shows the entries); "
                        "the count is printed before generation starts")
    p.add_argument("--samples", type=positive_int, default=1, help="rollouts per task K (greedy when 1)")
    p.add_argument("--out", help="output folder (always a folder: a run writes several files) for results.json, "
                   "report.md, run.json and the verdict log, and plots/ when a family group's report layout draws "
                   "plots (the built-in groups' do; the generic per-family layout draws none) and some completion "
                   "had an answer (default runs/eval/<suite>-<model>-<backend>-s<seed>); "
                   "a folder of an earlier run is resumed; --overwrite replaces only those files, other files in it stay")
    p.add_argument("--backend", default="auto", choices=["auto", "transformers", "vllm", "openai", "oracle", "copy-input"],
                   help="who answers: a local model (auto: vllm on a CUDA GPU when installed, else transformers; "
                        "transformers; vllm), an OpenAI-compatible endpoint, or a "
                        "model-free reference (oracle: the right answers, the ceiling; copy-input: the input copied as the answer, the floor)")
    p.add_argument("--seed", type=int, default=0, help="eval-set seed (and sampling seed)")
    p.add_argument("--max-new-tokens", type=positive_int, default=256, help="generation length limit per completion")
    p.add_argument("--batch-size", type=positive_int, default=8, help="tasks generated together")
    p.add_argument("--temperature", type=float, help="default 0 (greedy) for one sample, 0.7 for several")
    p.add_argument("--top-p", type=float, default=0.95, help="nucleus sampling (with --temperature > 0)")
    p.add_argument("--draw", choices=DRAWS, default="multinomial",
                   help="transformers backend, with --temperature > 0: how a sampled token is drawn. multinomial "
                        "(default): transformers' torch.multinomial, a race over every token; block_race: the same "
                        "distribution from a race over blocks of the vocabulary, then within the winning block "
                        "(faster on CPU; another random stream)")
    p.add_argument("--device", default="auto", help="transformers backend: cpu, cuda, cuda:1, auto")
    p.add_argument("--dtype", default="auto", help="float32, bfloat16, float16, auto")
    p.add_argument("--static-cache", action="store_true",
                   help="transformers backend: --decoding static")
    p.add_argument("--decoding", choices=DECODINGS, default="dynamic",
                   help="transformers backend: the KV cache. dynamic (default): grows as it decodes; static: "
                        "transformers' static cache, new on every batch; fixed: one static cache kept across batches, "
                        "short batches filled up and prompts padded to a multiple of 64 tokens, so the decoding step "
                        "compiles once. static and fixed compile with torch.compile on CUDA (the first batch pays); "
                        "compact: rlvr's loop, each distinct prompt prefilled once, the cache written in place, "
                        "finished rows dropped (the same greedy text; about 0.8x the time on CPU)")
    p.add_argument("--attention", choices=ATTENTION_CHOICES,
                   help=f"transformers backend: attention implementation (default: the model's own; {GROUPED_SDPA}: "
                        "sdpa that never copies grouped key/value heads)")
    p.add_argument("--threads", type=int, help="transformers backend on CPU: torch intra-op threads (default: torch's choice)")
    p.add_argument("--no-chat-template", dest="chat_template", action="store_false",
                   help="feed raw prompt text (for base models without a chat template)")
    p.add_argument("--base-url", help="openai backend: endpoint base URL, e.g. http://127.0.0.1:8000/v1")
    p.add_argument("--api-key-env", default="OPENAI_API_KEY", help="environment variable holding the API key")
    p.add_argument("--concurrency", type=int, default=4, help="openai backend: parallel requests")
    p.add_argument("--timeout", dest="request_timeout", type=float, default=120.0, help="openai backend: seconds per request")
    p.add_argument("-o", "--option", action="append", metavar="KEY=VALUE",
                   help="family option applied to every suite entry whose family has it (e.g. semantics=paper)")
    p.add_argument("--export", metavar="FILE",
                   help="write the eval set as JSONL to FILE and exit (no generation); an existing folder or a path "
                        "ending in / gets eval-SUITE.jsonl inside it; an existing file is replaced only with --overwrite")
    p.add_argument("--overwrite", action="store_true",
                   help="discard earlier results in --out instead of resuming (with --export: replace FILE)")
    p.add_argument("--no-plots", dest="plots", action="store_false", help="skip the PNG plots (plots/ is not made)")
    p.add_argument("--no-progress", dest="progress", action="store_false", help="no progress bar on stderr")
    p.add_argument("--list-suites", action="store_true", help="print the suites and their entries, then exit")
    add_plugin_arg(p)
    p.set_defaults(func=run)
    sp = p.add_subparsers(dest="eval_command", metavar="{compare}")
    sp.required = False
    c = sp.add_parser("compare", help="two results.json side by side with deltas (Markdown)")
    c.add_argument("a", help="results.json (or out dir) A")
    c.add_argument("b", help="results.json (or out dir) B")
    c.add_argument("--only", help="keep metric paths with this prefix, e.g. stoich/table4")
    add_out_args(c, "compare.md", what="also write the Markdown to this file")
    c.set_defaults(func=run_compare)


def run_compare(args: argparse.Namespace) -> int:
    from rlvr.eval.compare import compare_files

    path = out_path(args.out, "compare.md", args.overwrite)
    for name in (args.a, args.b):
        if not Path(name).exists():
            raise UsageError(f"{name} does not exist; give a results.json or the --out folder of an rlvr eval run")
    text = compare_files(args.a, args.b, only=args.only)
    sys.stdout.write(text)
    if path is not None:
        with open_out(path) as fh:
            fh.write(text)
    return 0


def _looks_local(model: str) -> bool:
    return model.startswith(("/", "./", "../", "~", ".\\")) or model.endswith(("/", os.sep)) or model in (".", "..")


def check_inputs(args: argparse.Namespace) -> None:
    """Fail in one line, before loading anything, on a model, adapter or tasks path that is not there."""
    if args.backend in ("auto", "transformers", "vllm") and _looks_local(args.model):
        if not Path(args.model).expanduser().exists():
            raise UsageError(f"--model {args.model} does not exist; give a local model folder, 'default' (the "
                             "embedded SmolLM2-135M-Instruct) or a model id in the local Hugging Face cache")
    if args.adapter and not Path(args.adapter).expanduser().is_dir():
        raise UsageError(f"--adapter {args.adapter} is not a folder; give a LoRA adapter folder saved by peft "
                         "(e.g. the output_dir of rlvr train)")
    if args.out and Path(args.out).expanduser().exists() and not Path(args.out).expanduser().is_dir():
        raise UsageError(f"--out {args.out} is a file; rlvr eval writes a run folder (results.json, report.md, "
                         "verdicts.jsonl, maybe plots/): give a folder")
    if args.tasks_file and not Path(args.tasks_file).is_file():
        raise UsageError(f"--tasks {args.tasks_file} is not a file; give an eval set JSONL (rlvr eval --export FILE)")


def _config(args: argparse.Namespace):
    from rlvr.eval.config import EvalConfig

    return EvalConfig(
        model=args.model, adapter=args.adapter, suite=args.suite, splits=tuple(args.splits) if args.splits else None,
        limit=args.limit, samples=args.samples, out=args.out, backend=args.backend, seed=args.seed,
        max_new_tokens=args.max_new_tokens, batch_size=args.batch_size, temperature=args.temperature,
        top_p=args.top_p, device=args.device, dtype=args.dtype, chat_template=args.chat_template,
        threads=args.threads, static_cache=args.static_cache, decoding=args.decoding, attention=args.attention,
        draw=args.draw, base_url=args.base_url, api_key_env=args.api_key_env, request_timeout=args.request_timeout,
        concurrency=args.concurrency, options=parse_option_pairs(args.option), tasks_file=args.tasks_file,
        overwrite=args.overwrite, progress=args.progress, plots=args.plots,
    )


def run(args: argparse.Namespace) -> int:
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    logging.getLogger("rlvr.eval").setLevel(logging.INFO)
    if args.list_suites:
        from rlvr.eval.suites import builtin_suites

        for suite in builtin_suites().values():
            print(f"{suite.version_string}: {suite.description} ({len(suite.entries)} entries)")
            for e in suite.entries:
                print(f"  {e.label()} n={e.n}")
        return 0
    check_inputs(args)
    config = _config(args)
    if args.export:
        from rlvr.eval.runner import load_eval_set
        from rlvr.eval.suites import eval_set_digest

        path = out_path(args.export, f"eval-{args.suite}.jsonl", args.overwrite)
        pairs, info = load_eval_set(config)
        tasks = [t for _, t in pairs]
        with open_out(path) as fh:
            for task in tasks:
                fh.write(task.to_json() + "\n")
        print(json.dumps({"exported": len(tasks), "path": str(path), "suite": info["suite"],
                          "suite_version": info["suite_version"], "digest": eval_set_digest(tasks)}))
        return 0
    from rlvr.eval.backends import BackendUnavailable
    from rlvr.eval.backends.openai_backend import EndpointError
    from rlvr.eval.runner import run_eval

    try:
        result = run_eval(config)
    except (BackendUnavailable, EndpointError) as exc:
        if getattr(args, "debug", False):
            raise
        print(f"rlvr eval: error: {exc}", file=sys.stderr)
        return 2
    sys.stdout.write(result.report)
    print(f"\nwrote {result.paths['results']} and {result.paths['report']}", file=sys.stderr)
    return 0
