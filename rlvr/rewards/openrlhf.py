"""OpenRLHF adapter: ``reward_func(queries, prompts, labels, **kw)`` loaded from this file's path.

OpenRLHF 0.11 imports it with ``--reward.remote_url /path/to/rlvr/rewards/openrlhf.py`` (older
releases: ``--remote_rm_url``). Train on a JSONL/parquet written by ``rlvr export`` with
``--data.input_key prompt --data.label_key task_json --data.apply_chat_template``: each
``labels[i]`` is then the full task record, and the response is the part of ``queries[i]``
(templated prompt + response) after ``prompts[i]``. Returns ``rewards`` and ``scores`` (the
verifier reward in [0, 1]) and ``extra_logs`` (``acc``, ``answered``), as torch tensors when torch
is importable (what OpenRLHF expects), else lists. For a reward *server* see
:mod:`rlvr.rewards.server` (``rlvr serve-rewards``).
"""
from __future__ import annotations

from typing import Any

from rlvr.rewards.scoring import score_queries


def reward_func(queries: list[str], prompts: list[str], labels: list[Any], **kwargs: Any) -> dict[str, Any]:
    """Score a batch: ``{"rewards", "scores", "extra_logs": {"acc", "answered"}}``.

    ``reward_mode`` in ``kwargs`` selects the checkers' reward mode. A label that is not a task
    record raises ``ValueError`` naming its row.
    """
    result = score_queries(list(queries), None if prompts is None else list(prompts), labels,
                           reward=kwargs.get("reward_mode"))
    try:
        import torch
    except ImportError:  # pragma: no cover - torch is optional for this adapter
        return result
    as_tensor = lambda values: torch.tensor(values, dtype=torch.float32)
    return {
        "rewards": as_tensor(result["rewards"]),
        "scores": as_tensor(result["scores"]),
        "extra_logs": {key: as_tensor(values) for key, values in result["extra_logs"].items()},
    }


__all__ = ["reward_func"]
