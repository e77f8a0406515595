"""RL fine-tuning: recipes, the embedded default model, GRPO/RLOO wiring (``rlvr train``).

Heavy dependencies (torch, transformers, trl, peft) are imported only inside the functions that
need them, so importing this package is cheap.
"""
from __future__ import annotations

__all__ = ["resolve_model", "load_model_and_tokenizer", "build_tiny_model"]


def __getattr__(name: str):
    if name in ("resolve_model", "load_model_and_tokenizer"):
        from rlvr.train import model

        return getattr(model, name)
    if name == "build_tiny_model":
        from rlvr.train.tiny import build_tiny_model

        return build_tiny_model
    raise AttributeError(name)
