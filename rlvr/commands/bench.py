"""``rlvr bench``: tasks/s, verdicts/s and reward-server throughput on this machine (see :mod:`rlvr.bench`);
``rlvr bench --gpu``: eval and GRPO speed on this machine's CUDA GPU (see :mod:`rlvr.bench.gpu`)."""
from __future__ import annotations

import argparse
import json
import os
import tempfile
from dataclasses import asdict
from pathlib import Path

from rlvr.commands.common import positive_int
from rlvr.commands.errors import UsageError
from rlvr.commands.plugins import add_plugin_arg
from rlvr.eval.config import DECODINGS
from rlvr.files import atomic_open
from rlvr.generation.grouped_attention import ATTENTION_CHOICES, GROUPED_SDPA

#: (tasks per family, seconds of server load per worker count) of a full run and of --quick
FULL, QUICK = (500, 10.0), (100, 3.0)
#: the eval rows ``rlvr bench --gpu`` measures beside the default one, each lever on its own and then together
EVAL_LEVERS = ("decoding=static", "decoding=fixed", f"attention={GROUPED_SDPA}", f"decoding=fixed,attention={GROUPED_SDPA}")
#: the GRPO rows ``rlvr bench --gpu`` measures beside the recipe as written
GRPO_LEVERS = ("generate_merged=true", "generate_merged=true,compile_generation=true")
#: the settings an eval lever may set, and their values
EVAL_LEVER_CHOICES = {"decoding": DECODINGS, "attention": ATTENTION_CHOICES}


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "bench", help="measure tasks/s, verdicts/s and the reward server on this machine",
        description=("Per family: tasks drawn per second, verdicts per second on a first completion and on the "
                     "next one of its group, and the RDKit parse floor, each in a fresh process; then "
                     "`rlvr serve-rewards` on 127.0.0.1 at 1 and N workers under bounded load, and how many "
                     "rollouts/s that serves. --quick finishes in under a minute on an idle machine."),
    )
    p.add_argument("--quick", action="store_true", help=f"{QUICK[0]} tasks per family, {QUICK[1]:g} s per server row")
    p.add_argument("-n", "--n", type=positive_int, help=f"tasks per family (default {FULL[0]}; --quick {QUICK[0]})")
    p.add_argument("--families", help="comma-separated families (default: every registered family)")
    p.add_argument("--workers", type=positive_int, default=os.cpu_count() or 1,
                   help="N, the larger worker count of the server rows")
    p.add_argument("--duration", type=float, help=f"seconds of load per server row (default {FULL[1]:g}; --quick {QUICK[1]:g})")
    p.add_argument("--clients", type=positive_int, default=4, help="load-generating client threads")
    p.add_argument("--batch", type=positive_int, default=64, help="completions per request")
    p.add_argument("--group", type=positive_int, default=8, help="completions per prompt in a request (GRPO group)")
    p.add_argument("--no-server", action="store_true", help="skip the reward-server rows")
    p.add_argument("--json", metavar="PATH", help="also write the results as JSON here")
    p.add_argument("--overwrite", action="store_true", help="replace an existing --json file")
    g = p.add_argument_group("accelerator (--gpu)")
    g.add_argument("--gpu", action="store_true",
                   help="instead: on this machine's CUDA GPU, greedy eval completions/s, GRPO seconds per step split "
                        "into generation and update, and GPU utilisation")
    g.add_argument("--model", default="default", help="--gpu: the model (default: the embedded SmolLM2-135M-Instruct)")
    g.add_argument("--eval-tasks", type=positive_int, default=512, help="--gpu: greedy completions per eval row")
    g.add_argument("--eval-batch", type=positive_int, action="append",
                   help="--gpu: eval batch size (repeatable; default 64 and 256)")
    g.add_argument("--max-new-tokens", type=positive_int, default=80, help="--gpu: eval generation length")
    g.add_argument("--eval-lever", action="append", metavar="KEY=VALUE[,KEY=VALUE]",
                   help="--gpu: one more eval row per batch size with these backend settings (repeatable; keys: "
                        "decoding, attention), against the default row: its speed, and the share of greedy texts and "
                        f"verdicts that differ. Default: {'; '.join(EVAL_LEVERS)}")
    g.add_argument("--no-eval-levers", action="store_true", help="--gpu: only the default eval rows")
    g.add_argument("--static-cache", action="store_true", help="--gpu: one more eval lever, decoding=static")
    g.add_argument("--grpo-recipe", default="quickstart_gpu", help="--gpu: recipe whose GRPO steps are timed")
    g.add_argument("--grpo-steps", type=positive_int, default=9, help="--gpu: GRPO steps (the first is left out)")
    g.add_argument("--no-grpo", action="store_true", help="--gpu: skip the GRPO rows")
    g.add_argument("--grpo-lever", action="append", metavar="KEY=VALUE[,KEY=VALUE]",
                   help="--gpu: one more GRPO row with these recipe fields set (repeatable), e.g. lora_layers=top:8: "
                        f"each lever measured on its own against the recipe as written. Default: {'; '.join(GRPO_LEVERS)}")
    g.add_argument("--no-grpo-levers", action="store_true", help="--gpu: only the recipe's own GRPO row")
    add_plugin_arg(p)
    p.set_defaults(func=run)


def _check(args: argparse.Namespace) -> None:
    if args.duration is not None and args.duration <= 0:
        raise UsageError("--duration must be positive")
    if args.json and Path(args.json).exists() and not args.overwrite:
        raise UsageError(f"{args.json} exists; pass --overwrite to replace it")
    if args.json and Path(args.json).is_dir():
        raise UsageError(f"--json {args.json} is a folder; name a file")


def run(args: argparse.Namespace) -> int:
    from rlvr.bench import report, server, verdicts
    from rlvr.registry import list_families

    _check(args)
    if args.gpu:
        return run_gpu(args)
    n = args.n or (QUICK if args.quick else FULL)[0]
    duration = args.duration or (QUICK if args.quick else FULL)[1]
    families = [f.strip() for f in args.families.split(",") if f.strip()] if args.families else None
    unknown = sorted(set(families or []) - set(list_families()))
    if unknown:
        raise UsageError(f"unknown families {unknown}; `rlvr sample --list` lists them")
    result = {"machine": report.machine()}
    cases = verdicts.default_cases(families)
    if not cases:
        raise UsageError("none of these families has a train split to draw from")
    with tempfile.TemporaryDirectory(prefix="rlvr-bench-") as folder:
        result["families"] = verdicts.run(cases, n, Path(folder), plugins=args.plugin)
    settings = server.LoadSettings(duration=duration, clients=args.clients, batch=args.batch, group=args.group)
    result["settings"] = {"n": n, **asdict(settings)}
    result["server"] = []
    if not args.no_server:
        bodies = server.build_bodies(cases, settings)
        result["server"] = [server.measure(w, bodies, settings, args.plugin) for w in sorted({1, args.workers})]
    result["sizing"] = report.sizing(result["server"])
    print(report.text(result), flush=True)
    if args.json:
        with atomic_open(args.json) as fh:
            json.dump(result, fh, indent=2)
    return 0


def lever_pairs(lever: str, option: str = "--grpo-lever") -> list[tuple[str, str]]:
    """``a=1,b=2`` -> ``[("a", "1"), ("b", "2")]``; UsageError (naming ``option``) on an item without ``=``."""
    pairs: list[tuple[str, str]] = []
    for item in filter(None, (part.strip() for part in lever.split(","))):
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"{option} {lever!r}: each item must look like KEY=VALUE")
        pairs.append((key.strip(), value.strip()))
    return pairs


def lever_argv(lever: str, option: str = "--grpo-lever") -> list[str]:
    """``a=1,b=2`` -> ``["--a", "1", "--b", "2"]``; UsageError (naming ``option``) on an item without ``=``."""
    return [part for key, value in lever_pairs(lever, option) for part in (f"--{key}", value)]


def eval_lever(lever: str) -> dict[str, str]:
    """An ``--eval-lever`` as backend settings; UsageError on an unknown key or value."""
    settings = dict(lever_pairs(lever, "--eval-lever"))
    for key, value in settings.items():
        if key not in EVAL_LEVER_CHOICES:
            raise UsageError(f"--eval-lever {lever!r}: unknown key {key!r}; choose from {sorted(EVAL_LEVER_CHOICES)}")
        if value not in EVAL_LEVER_CHOICES[key]:
            raise UsageError(f"--eval-lever {lever!r}: {key} must be one of {list(EVAL_LEVER_CHOICES[key])}")
    return settings


def eval_levers(args: argparse.Namespace) -> list[str]:
    """The eval levers of a ``--gpu`` run: ``--eval-lever`` as given, else :data:`EVAL_LEVERS`; none with
    ``--no-eval-levers``; ``--static-cache`` adds ``decoding=static``."""
    levers = [] if args.no_eval_levers else list(args.eval_lever or EVAL_LEVERS)
    if args.static_cache and "decoding=static" not in levers:
        levers.append("decoding=static")
    return levers


def run_gpu(args: argparse.Namespace) -> int:
    """``rlvr bench --gpu``: the accelerator rows (:mod:`rlvr.bench.gpu`); one line and exit 2 without CUDA."""
    from rlvr.bench import gpu, report
    from rlvr.device import resolve_device

    grpo_levers = [] if args.no_grpo_levers else list(args.grpo_lever or GRPO_LEVERS)
    for lever in grpo_levers:  # a malformed lever fails before the GPU is touched
        lever_argv(lever)
    levers = {lever: eval_lever(lever) for lever in eval_levers(args)}
    try:
        device = resolve_device("cuda").name
    except ValueError:
        raise UsageError("--gpu needs a CUDA GPU visible to torch, and there is none on this machine; "
                         "run `rlvr bench` without --gpu for the CPU figures") from None
    result = {"machine": report.machine(), "device": gpu.device_name(device), "eval": [], "grpo": None}
    tasks = gpu.eval_tasks(args.eval_tasks)
    for batch in args.eval_batch or [64, 256]:
        default = gpu.measure_eval(args.model, device=device, tasks=tasks, batch_size=batch,
                                   max_new_tokens=args.max_new_tokens)
        rows = [(None, default)] + [
            (lever, gpu.measure_eval(args.model, device=device, tasks=tasks, batch_size=batch,
                                     max_new_tokens=args.max_new_tokens, **settings))
            for lever, settings in levers.items()]
        for lever, row in rows:
            reported = {"lever": lever, **row.to_dict()} if lever else row.to_dict()
            if lever:
                reported["vs_default"] = gpu.differences(row, default)
            result["eval"].append(reported)
            print(gpu.text({"device": result["device"], "eval": [reported]}).splitlines()[-1], flush=True)
    if not args.no_grpo:
        model = None if args.model == "default" else args.model
        result["grpo"] = gpu.measure_grpo(args.grpo_recipe, model=model, steps=args.grpo_steps, device=device).to_dict()
        result["grpo_levers"] = [
            {"lever": lever, **gpu.measure_grpo(args.grpo_recipe, model=model, steps=args.grpo_steps, device=device,
                                                overrides=lever_argv(lever)).to_dict()}
            for lever in grpo_levers]
    print(gpu.text(result), flush=True)
    if args.json:
        with atomic_open(args.json) as fh:
            json.dump(result, fh, indent=2)
    return 0
