"""RL fine-tuning: recipes, GRPO/RLOO wiring, the SFT cold start (``rlvr train``, ``rlvr sft``).

Heavy dependencies (torch, transformers, trl, peft) are imported only inside the functions that
need them, so importing this package is cheap. Model loading lives in :mod:`rlvr.models`.
"""
from __future__ import annotations

from rlvr.models import load_model_and_tokenizer, resolve_model
from rlvr.train.tiny import build_tiny_model

__all__ = ["build_tiny_model", "load_model_and_tokenizer", "resolve_model"]
