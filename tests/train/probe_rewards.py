"""A reward function for the distributed test: records what each rank scored, then defers to rlvr's reward.

Loaded by dotted path (``probe_rewards.probe_reward``) inside ``accelerate launch`` workers; it writes
one JSON line per call to ``$RLVR_PROBE_DIR/rank<R>.jsonl`` with the rank, world size, task ids and
rewards it saw, so the test can check that ranks got disjoint tasks and that the logged reward is
the mean over all ranks (i.e. rewards were gathered).
"""
from __future__ import annotations

import json
import os


def probe_reward(prompts, completions, **kwargs):
    import torch.distributed as dist

    from rlvr.rewards import chem_reward

    rewards = chem_reward(prompts, completions, **kwargs)
    # a deterministic spread so group advantages are not all zero for an untrained tiny model
    texts = [c[-1]["content"] if isinstance(c, list) else str(c) for c in completions]
    rewards = [float(r or 0.0) + (len(t) % 5) / 10.0 for r, t in zip(rewards, texts)]
    rank = dist.get_rank() if dist.is_available() and dist.is_initialized() else 0
    world = dist.get_world_size() if dist.is_available() and dist.is_initialized() else 1
    out = os.environ.get("RLVR_PROBE_DIR")
    if out:
        state = kwargs.get("trainer_state")
        record = {
            "rank": rank,
            "world_size": world,
            "env_world_size": int(os.environ.get("WORLD_SIZE", "1")),
            "step": getattr(state, "global_step", None),
            "ids": list(kwargs.get("id", [])),
            "rewards": rewards,
        }
        with open(os.path.join(out, f"rank{rank}.jsonl"), "a", encoding="utf-8") as fh:
            fh.write(json.dumps(record) + "\n")
    return rewards
