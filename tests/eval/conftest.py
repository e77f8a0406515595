"""Shared fixtures of the evaluation tests."""
from __future__ import annotations

import pytest

from rlvr.eval import EvalConfig


@pytest.fixture(scope="session")
def tiny_model() -> str:
    """A tiny random causal LM with the embedded model's tokenizer and chat template (built once, cached)."""
    from rlvr.paths import cache_dir
    from rlvr.train.tiny import build_tiny_model

    return build_tiny_model(cache_dir("test-models") / "tiny-eval")


@pytest.fixture
def make_config(tmp_path):
    """EvalConfig factory with test defaults (no progress bar, no plots, out dir in tmp_path)."""

    def make(**kwargs) -> EvalConfig:
        kwargs.setdefault("out", str(tmp_path / "run"))
        kwargs.setdefault("progress", False)
        kwargs.setdefault("plots", False)
        return EvalConfig(**kwargs)

    return make

