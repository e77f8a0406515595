"""A reward function for the dynamic-sampling test: constant on tasks with an even index, spread on odd ones.

Groups of even-index tasks therefore have zero reward variance (no GRPO gradient) and groups of
odd-index tasks do not; it records the task ids it saw in ``$RLVR_PROBE_DIR/parity.jsonl``.
"""
from __future__ import annotations

import json
import os


def parity_reward(prompts, completions, **kwargs):
    ids = list(kwargs.get("id", []))
    texts = [c[-1]["content"] if isinstance(c, list) else str(c) for c in completions]
    rewards = []
    for task_id, text in zip(ids, texts):
        index = int(task_id.split(":")[3])
        rewards.append(1.0 if index % 2 == 0 else (len(text) % 7) / 10.0 + (0.05 if "<" in text else 0.0))
    out = os.environ.get("RLVR_PROBE_DIR")
    if out:
        with open(os.path.join(out, "parity.jsonl"), "a", encoding="utf-8") as fh:
            fh.write(json.dumps({"ids": ids, "rewards": rewards}) + "\n")
    return rewards
