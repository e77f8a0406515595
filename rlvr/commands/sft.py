"""``rlvr sft``: SFT cold start on verified worked solutions, then GRPO/RLOO from it (see docs/solutions.md).

Every argument belongs to TRL's parser (TaskArguments + SFTArguments + GRPOConfig/RLOOConfig + ModelConfig).
"""
from __future__ import annotations

from rlvr.commands.common import register_passthrough


def register(sub) -> None:
    register_passthrough(
        sub, "sft",
        help="SFT cold start on worked solutions, then RL, in one run (rlvr sft --config recipes/sft/stoich_t1_formula.yaml)",
        entry="rlvr.train.sft:main",
    )
