"""What every molecular checker shares: the reward modes and the verdict built from per-key results."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rlvr.reasons import Reason
from rlvr.task import Verdict

REWARD_MODES = {"binary": "binary", "strict": "binary", "em": "binary", "exact": "binary",
                "shaped": "shaped", "fraction": "shaped", "partial": "shaped"}


def reward_mode(options: Mapping[str, Any]) -> str:
    """The reward mode named by a checker's keyword ``options`` (only ``reward``): ``binary`` or ``shaped``."""
    if not options:
        return "binary"
    unknown = sorted(set(options) - {"reward"})
    if unknown:
        raise TypeError(f"molecular checkers got an unexpected keyword argument {unknown[0]!r} (valid: reward)")
    mode = options.get("reward") or "binary"
    if mode not in REWARD_MODES:
        raise ValueError(f"unknown reward mode {mode!r}; use one of {sorted(REWARD_MODES)}")
    return REWARD_MODES[mode]


def verdict(results: dict[str, dict[str, Any]], extra: dict[str, Any], reason: Reason, mode: str) -> Verdict:
    """The verdict of per-key ``results`` (plus ``extra`` metrics): binary, or the share of correct keys (``shaped``)."""
    n = len(results)
    n_correct = sum(1 for r in results.values() if r["correct"])
    correct = reason == Reason.OK
    key_accuracy = n_correct / n if n else 0.0
    metrics = {
        "keys": results,
        "key_accuracy": key_accuracy,
        "type_valid": bool(n) and all(r["valid_type"] for r in results.values()),
        "n_keys": n,
        "wrong_keys": [k for k, r in results.items() if not r["correct"]],
        **extra,
    }
    reward = 1.0 if correct else (key_accuracy if mode == "shaped" else 0.0)
    return Verdict(reward=float(reward), correct=correct, metrics=metrics, reason=reason)


__all__ = ["REWARD_MODES", "reward_mode", "verdict"]
