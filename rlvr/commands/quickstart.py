"""``rlvr quickstart``: evaluate the embedded model, warm-start it on verified worked solutions, train it with GRPO + LoRA on CPU beside a control arm of more SFT, evaluating every stage on the same tasks."""
from __future__ import annotations

import argparse
import logging
import sys

from rlvr.commands.common import positive_int
from rlvr.commands.plugins import add_plugin_arg


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "quickstart",
        help="the CPU proof: the embedded model evaluated before, after a short warm start, after GRPO+LoRA and beside a "
             "control arm of more SFT at the same budget (about 15 min on 2 cores; a larger GPU budget on a CUDA GPU)",
        description=__doc__,
    )
    p.add_argument("--recipe", default=None,
                   help="recipe path or name in ./recipes (default: quickstart on CPU, quickstart_gpu on a CUDA GPU)")
    p.add_argument("--device", choices=["auto", "cpu", "cuda"], default="auto",
                   help="where to train and evaluate (default auto: a CUDA GPU when torch sees one, which also picks "
                        "the GPU budget; cpu: the CPU budget even on a GPU machine)")
    p.add_argument("--output-dir", default="outputs/quickstart",
                   help="folder for the adapter, the before/after scores, the report and the figure")
    p.add_argument("--minutes", type=float, help="optional wall-clock cap in minutes on top of the step budget (default: none; the recipe's max_steps decide)")
    p.add_argument("--max-steps", type=int, help="GRPO steps, and so the control arm's (default: the recipe's; the warm start's: -s sft_steps=N)")
    p.add_argument("--seed", type=int, help="training seed: LoRA initialisation, sampling, data order; the eval and "
                   "training tasks stay the same (default: the recipe's, 0)")
    p.add_argument("--eval-size", type=int, help="eval tasks per split, every split (default: the recipe's eval sets: 100 in, 50 cross, 50 out)")
    p.add_argument("--max-new-tokens", type=int, help="eval generation length (default: the recipe's max_completion_length)")
    p.add_argument("--skip-before", action="store_true", help="reuse the before-training scores of a previous run in OUTPUT_DIR")
    p.add_argument("--no-base-cache", action="store_true",
                   help="evaluate the base model even when an earlier run on this machine cached its answers on the same tasks")
    p.add_argument("--eval-every", type=positive_int, metavar="N",
                   help="also keep a checkpoint every N GRPO steps and score it like the final model: the RL stage's "
                   "paired tests against the step budget (summary.json's budget; default: final model only)")
    p.add_argument("--one-process", action="store_true",
                   help="train and measure every arm in this process (default: each arm in a fresh process, which is "
                        "faster on CPU; the outputs are the same)")
    p.add_argument("-s", "--set", action="append", default=[], metavar="KEY=VALUE", help="any recipe field override (repeatable)")
    add_plugin_arg(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from rlvr.device import resolve_device
    from rlvr.quickstart import QuickstartOptions, report_markdown, run_quickstart
    from rlvr.quickstart.recipe_choice import choose_recipe

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s", datefmt="%H:%M:%S")
    overrides: list[str] = []
    for item in args.set:
        if "=" not in item:
            raise ValueError(f"--set {item!r} must look like KEY=VALUE")
        key, value = item.split("=", 1)
        overrides += [f"--{key.strip()}", value]
    if args.seed is not None:
        overrides += ["--seed", str(args.seed)]
    try:
        device = resolve_device(args.device)  # the one decision: training and every evaluation run there
    except ValueError as exc:
        print(f"rlvr quickstart: error: {exc}", file=sys.stderr)
        return 2
    choice = choose_recipe(args.recipe, device)
    print(f"[rlvr quickstart] {choice.describe()}", flush=True)
    options = QuickstartOptions(
        recipe=choice.recipe, eval_batch_size=choice.eval_batch_size, output_dir=args.output_dir, minutes=args.minutes,
        max_steps=args.max_steps, eval_size=args.eval_size, max_new_tokens=args.max_new_tokens, overrides=overrides,
        skip_before=args.skip_before, base_cache=not args.no_base_cache, eval_every=args.eval_every, device=device,
        fresh_arms=not args.one_process, plugins=tuple(args.plugin))
    try:
        result = run_quickstart(options)
    except RuntimeError as exc:
        print(f"rlvr quickstart: error: {exc}", file=sys.stderr)
        return 2
    print()
    print(report_markdown(result))
    print(f"[rlvr quickstart] ran the {choice.name} budget ({choice.recipe} on {device.name})", flush=True)
    return 0
