"""Generation backends for ``rlvr eval``.

Every backend turns a batch of tasks into ``samples`` completions per task. Model backends
(``transformers``, ``vllm``, ``openai``) import their dependencies only when built; the reference
backends (``oracle``, ``copy-input``) need no model and give the ceiling and the floor of every table.
"""
from __future__ import annotations

import importlib.util

from rlvr.device import resolve_device
from rlvr.eval.backends.base import Backend, BackendUnavailable, Completion
from rlvr.eval.backends.hf import TransformersBackend
from rlvr.eval.backends.openai_backend import OpenAIBackend
from rlvr.eval.backends.reference import CopyInputBackend, OracleBackend, copy_input_completion
from rlvr.eval.backends.vllm_backend import VLLMBackend

__all__ = [
    "Backend", "BackendUnavailable", "Completion", "CopyInputBackend", "OpenAIBackend", "OracleBackend",
    "TransformersBackend", "VLLMBackend", "copy_input_completion", "make_backend",
    "resolve_backend",
]


def resolve_backend(name: str, device: str = "auto") -> str:
    """The backend ``auto`` stands for: ``vllm`` on a CUDA device when vLLM is importable, else ``transformers``.

    Any other name is returned unchanged. ``device`` is the eval device setting (``auto``, ``cpu``,
    ``cuda``, ``cuda:N``); ``auto`` means CUDA when torch sees one.
    """
    if name != "auto":
        return name
    if importlib.util.find_spec("vllm") is None:
        return "transformers"
    on_cuda = resolve_device("auto").is_cuda if device == "auto" else str(device).startswith("cuda")
    return "vllm" if on_cuda else "transformers"


def make_backend(config) -> Backend:
    """The backend named by ``config.backend`` (an :class:`~rlvr.eval.config.EvalConfig`)."""
    name = resolve_backend(config.backend, config.device)
    if name == "oracle":
        return OracleBackend()
    if name == "copy-input":
        return CopyInputBackend()
    if name == "transformers":
        return TransformersBackend(
            config.model, adapter=config.adapter, device=config.device, dtype=config.dtype,
            max_new_tokens=config.max_new_tokens, temperature=config.effective_temperature,
            top_p=config.top_p, seed=config.seed, chat_template=config.chat_template, threads=config.threads,
            decoding=config.decoding, attention=config.attention, draw=config.draw,
        )
    if name == "vllm":
        return VLLMBackend(
            config.model, adapter=config.adapter, dtype=config.dtype, max_new_tokens=config.max_new_tokens,
            temperature=config.effective_temperature, top_p=config.top_p, seed=config.seed,
        )
    if name == "openai":
        return OpenAIBackend(
            config.base_url, config.model, api_key_env=config.api_key_env, max_new_tokens=config.max_new_tokens,
            temperature=config.effective_temperature, top_p=config.top_p, seed=config.seed,
            timeout=config.request_timeout, concurrency=config.concurrency,
        )
    raise ValueError(f"unknown backend {name!r}")
