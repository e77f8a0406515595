"""``rlvr sft``: SFT cold start on verified worked solutions, then GRPO/RLOO from it (see docs/solutions.md)."""
from __future__ import annotations

import argparse
import sys


def register(sub: argparse._SubParsersAction) -> None:
    # like `rlvr train`, every argument belongs to TRL's parser (TaskArguments + SFTArguments +
    # GRPOConfig/RLOOConfig + ModelConfig), so this subparser takes none of its own ('+' prefix)
    p = sub.add_parser(
        "sft",
        help="SFT cold start on worked solutions, then RL, in one run (rlvr sft --config recipes/sft/stoich_t1_formula.yaml)",
        add_help=False,
        prefix_chars="+",
    )
    p.add_argument("args", nargs="*", help="--config RECIPE.yaml and --KEY VALUE overrides")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from rlvr.train.sft import main

    try:
        return main(args.args, prog="rlvr sft")
    except RuntimeError as exc:
        print(f"rlvr sft: error: {exc}", file=sys.stderr)
        return 2
