"""Fixtures for the quickstart tests: a tiny local causal LM with the SmolLM2 tokenizer."""
from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def tiny_model() -> str:
    """A tiny random Llama with the embedded model's tokenizer (built once per machine, then cached)."""
    from rlvr.paths import cache_dir
    from rlvr.train.tiny import build_tiny_model

    return build_tiny_model(cache_dir("test-models") / "tiny-quickstart")
