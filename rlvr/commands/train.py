"""``rlvr train``: RL fine-tuning (TRL GRPO/RLOO + LoRA) from a YAML recipe; see docs/training.md.

Every argument belongs to TRL's parser (TaskArguments + GRPOConfig/RLOOConfig + ModelConfig).
"""
from __future__ import annotations

from rlvr.commands.common import register_passthrough


def register(sub) -> None:
    register_passthrough(
        sub, "train",
        help="RL fine-tuning with TRL GRPO/RLOO from a YAML recipe (rlvr train --config recipes/cpu_long.yaml)",
        entry="rlvr.train.entry:main",
    )
