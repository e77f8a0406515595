"""A tiny randomly initialised causal LM with the SmolLM2 tokenizer, for tests and smoke runs.

It has the embedded model's tokenizer and chat template (so prompts, padding and stop tokens
behave like the real model) but only a few hundred thousand transformer weights, so a training
step on CPU takes a fraction of a second. Same seed -> identical weights.
"""
from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

from rlvr.models import configure_tokenizer, ensure_default_model

_MARKER = "rlvr_tiny.json"


def build_tiny_model(
    path: str | os.PathLike,
    *,
    hidden_size: int = 32,
    num_layers: int = 2,
    num_heads: int = 4,
    intermediate_size: int = 64,
    num_kv_heads: int | None = None,
    tie_embeddings: bool = True,
    seed: int = 0,
    overwrite: bool = False,
) -> str:
    """Build (or reuse) a tiny Llama-style causal LM at ``path``; returns ``path`` as a string.

    ``num_kv_heads`` below ``num_heads`` gives grouped key/value heads, as SmolLM2 has (default: as many).
    ``tie_embeddings=False`` gives the output layer its own random weights: tied ones make a random model
    repeat the prompt's last token, so its greedy texts hardly differ between prompts.
    The tokenizer is copied from the converted embedded model (converted first if needed).
    An existing folder built with the same settings is reused unless ``overwrite``.
    """
    import torch
    from transformers import AutoTokenizer, LlamaForCausalLM

    target = Path(path)
    settings = {"hidden_size": hidden_size, "num_layers": num_layers, "num_heads": num_heads,
                "intermediate_size": intermediate_size, "seed": seed}
    if num_kv_heads not in (None, num_heads):  # the key of a grouped model; an ungrouped one keeps its old key
        settings["num_kv_heads"] = int(num_kv_heads)
    if not tie_embeddings:
        settings["tie_embeddings"] = False
    if not overwrite and _built_with(target, settings):
        return str(target)
    tokenizer = configure_tokenizer(AutoTokenizer.from_pretrained(str(ensure_default_model())))
    config = _tiny_config(tokenizer, hidden_size, intermediate_size, num_layers, num_heads, num_kv_heads or num_heads,
                          tie_embeddings)
    # seed for determinism, then restore the global RNG so callers see no side effect
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        model = LlamaForCausalLM(config)
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    _save_folder(target, model, tokenizer, settings)
    return str(target)


def _built_with(target: Path, settings: dict) -> bool:
    """Whether ``target`` holds a tiny model built with ``settings``."""
    try:
        return json.loads((target / _MARKER).read_text()) == settings
    except (OSError, json.JSONDecodeError):
        return False


def _tiny_config(tokenizer: Any, hidden_size: int, intermediate_size: int, num_layers: int, num_heads: int,
                 num_kv_heads: int, tie_embeddings: bool = True) -> Any:
    """A ``LlamaConfig`` of the given size over ``tokenizer``'s vocabulary, embeddings tied unless told."""
    from transformers import LlamaConfig

    return LlamaConfig(
        vocab_size=len(tokenizer), hidden_size=hidden_size, intermediate_size=intermediate_size,
        num_hidden_layers=num_layers, num_attention_heads=num_heads, num_key_value_heads=num_kv_heads,
        max_position_embeddings=2048, tie_word_embeddings=tie_embeddings, bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id, pad_token_id=tokenizer.pad_token_id,
    )


def _save_folder(target: Path, model: Any, tokenizer: Any, settings: dict) -> None:
    """Write the model, tokenizer and marker into a temporary folder beside ``target``, then swap it in."""
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=str(target.parent)))
    try:
        model.save_pretrained(str(tmp))
        tokenizer.save_pretrained(str(tmp))
        (tmp / _MARKER).write_text(json.dumps(settings))
        if target.exists():
            shutil.rmtree(target)
        os.rename(tmp, target)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
