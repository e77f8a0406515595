"""Fixed-shape decoding: one static KV cache kept across ``generate`` calls, so the decoding step compiles once.

transformers compiles ``generate``'s decoding step (``torch.compile``) when the KV cache is static and the model is
on a GPU. Left to itself it builds a new, zero-filled static cache on every call, sized by that call's rows, so a
short last batch compiles again. :class:`FixedShapeDecoder` keeps one cache per number of samples, resets it before
each call, fills a short batch up to the most rows it has seen with copies of its first row (dropped again
afterwards) and left-pads prompts to a multiple of ``length_multiple`` tokens (few distinct prefill shapes). The
decoding step then has one shape: a prompt longer than the cache, or a batch with more rows, grows the cache once
(one more compilation). Padding changes no greedy text: padded positions are masked, and the filler rows are
separate rows. Sampled texts differ from unpadded decoding (the filler rows draw random numbers too).
"""
from __future__ import annotations

import copy
import math
from typing import Any


#: prompts are left-padded to a multiple of this many tokens
LENGTH_MULTIPLE = 64


def compile_config(backend: Any = None) -> Any:
    """The ``CompileConfig`` for the decoding step: ``None`` without ``backend`` (transformers' default, inductor
    with CUDA graphs, on accelerators only); with ``backend`` (e.g. ``"eager"`` in tests) a config that compiles
    on any device, for one fixed shape (``dynamic=False``)."""
    if backend is None:
        return None
    from transformers.generation.configuration_utils import CompileConfig

    config = CompileConfig(backend=backend, mode=None, dynamic=False)
    config._compile_all_devices = True  # transformers otherwise compiles on accelerators only
    return config


class FillerRowsDone:
    """A ``generate`` stopping criterion (transformers calls it with the ids so far): every row from ``real`` on is
    done, so a batch stops when its real rows have."""

    def __init__(self, real: int) -> None:
        self.real = int(real)

    def __call__(self, input_ids: Any, scores: Any, **kwargs: Any) -> Any:
        import torch

        done = torch.zeros(input_ids.shape[0], dtype=torch.bool, device=input_ids.device)
        done[self.real:] = True
        return done


def fixed_shape_generate(model: Any, decoder: "FixedShapeDecoder") -> Any:
    """``model`` whose ``generate(input_ids=..., attention_mask=..., generation_config=...)`` runs through
    ``decoder`` and returns prompt and new tokens, as ``generate`` does (the call TRL's RL sampling makes); a call
    with anything else goes to the model's own ``generate``. The tokens are joined outside inference mode, so the
    result is an ordinary tensor that a loss's backward pass may use."""
    import torch

    plain = model.generate

    def generate(input_ids: Any = None, attention_mask: Any = None, generation_config: Any = None, **kwargs: Any) -> Any:
        if kwargs or input_ids is None or attention_mask is None or generation_config is None:
            return plain(input_ids=input_ids, attention_mask=attention_mask, generation_config=generation_config,
                         **kwargs)
        return torch.cat([input_ids, decoder.generate(input_ids, attention_mask, generation_config)], dim=1)

    generate.decoder = decoder  # type: ignore[attr-defined]
    model.generate = generate
    return model


class FixedShapeDecoder:
    """Greedy or sampled ``generate`` calls on ``model`` with fixed shapes (see the module's docstring).

    ``caches_built`` counts the static caches made: one per number of samples, plus one each time a batch
    outgrows them; each new cache shape is one more compilation of the decoding step.
    """

    def __init__(self, model: Any, *, pad_token_id: int, length_multiple: int = LENGTH_MULTIPLE,
                 compile: Any = None) -> None:
        self.model = model
        self.length_multiple = max(1, int(length_multiple))
        self.pad_token_id = int(pad_token_id)
        self.compile = compile
        self.rows = 0
        self.caches_built = 0
        self._caches: dict[int, tuple[Any, int, int]] = {}  # samples -> (cache, rows, length)

    def padded_length(self, length: int) -> int:
        """``length`` rounded up to a multiple of ``length_multiple``."""
        return int(math.ceil(length / self.length_multiple) * self.length_multiple)

    def generate(self, input_ids: Any, attention_mask: Any, generation_config: Any) -> Any:
        """The new tokens of each real row (``samples`` consecutive rows per prompt, as ``generate`` returns them),
        from a left-padded batch; runs under ``torch.inference_mode``, so they are inference tensors.
        The cache keeps room for the padded prompt and ``generation_config.max_new_tokens``; filler rows count as
        finished from the start, so they never keep the batch decoding."""
        import torch
        from transformers import StoppingCriteriaList

        n, length = int(input_ids.shape[0]), int(input_ids.shape[1])
        self.rows = max(self.rows, n)
        width = self.padded_length(length)
        ids = torch.full((self.rows, width), self.pad_token_id, dtype=input_ids.dtype, device=input_ids.device)
        mask = torch.zeros((self.rows, width), dtype=attention_mask.dtype, device=attention_mask.device)
        ids[:n, width - length:], mask[:n, width - length:] = input_ids, attention_mask
        ids[n:], mask[n:] = ids[0], mask[0]  # filler rows: copies of the first, dropped below
        samples = int(getattr(generation_config, "num_return_sequences", 1) or 1)
        config = copy.deepcopy(generation_config)
        config.cache_implementation = None
        config.disable_compile = False
        config.compile_config = self.compile
        with torch.inference_mode():
            cache = self._cache(samples, width + int(generation_config.max_new_tokens))
            out = self.model.generate(input_ids=ids, attention_mask=mask, cache=cache, generation_config=config,
                                      stopping_criteria=StoppingCriteriaList([FillerRowsDone(n * samples)]))
        return out[: n * samples, width:]

    def _cache(self, samples: int, length: int) -> Any:
        """The static cache for ``samples`` samples per prompt, reset; a new one when the rows or ``length`` outgrow it."""
        from transformers import StaticCache

        held = self._caches.get(samples)
        if held is not None and held[1] == self.rows and held[2] >= length:
            held[0].reset()
            return held[0]
        length = max(length, held[2] if held else 0)
        cache = StaticCache(config=self.model.config, max_cache_len=length)
        self._caches[samples] = (cache, self.rows, length)
        self.caches_built += 1
        return cache
