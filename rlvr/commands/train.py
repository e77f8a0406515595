"""``rlvr train``: RL fine-tuning (TRL GRPO/RLOO + LoRA) from a YAML recipe; see docs/training.md."""
from __future__ import annotations

import argparse
import sys


def register(sub: argparse._SubParsersAction) -> None:
    # every argument belongs to TRL's parser (TaskArguments + GRPOConfig/RLOOConfig + ModelConfig), so
    # this subparser recognises no options of its own ('+' prefix) and hands everything through
    p = sub.add_parser(
        "train",
        help="RL fine-tuning with TRL GRPO/RLOO from a YAML recipe (rlvr train --config recipes/quickstart.yaml)",
        add_help=False,
        prefix_chars="+",
    )
    p.add_argument("args", nargs="*", help="--config RECIPE.yaml and --KEY VALUE overrides")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from rlvr.train.entry import main

    try:
        return main(args.args, prog="rlvr train")
    except RuntimeError as exc:
        print(f"rlvr train: error: {exc}", file=sys.stderr)
        return 2
