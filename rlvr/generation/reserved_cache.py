"""A KV cache that writes each new token in place: room reserved up front, no copy of the whole cache per step.

transformers' ``DynamicCache`` grows by ``torch.cat`` at every decoding step, so each step copies every layer's
keys and values: for a batch of 64 rows of SmolLM2-135M at 200 tokens about 44 ms of a 200 ms step on a 2-core
CPU. :class:`ReservedLayer` keeps them in buffers with room for ``reserve`` more tokens past the prompt, writes each
step's token into that room and hands attention views of the filled part. Attention reads the same numbers, so
the outputs do not change. Imported only where transformers is installed.
"""
from __future__ import annotations

from typing import Any

import torch
from transformers import DynamicCache
from transformers.cache_utils import Cache, DynamicLayer


class ReservedLayer(DynamicLayer):
    """A ``DynamicLayer`` whose keys and values live in buffers with room for ``reserve`` more tokens past what an
    update needs; ``keys``/``values`` are views of the filled part. Rows are selected by copying that part only."""

    def __init__(self, reserve: int) -> None:
        super().__init__()
        self.reserve = max(0, int(reserve))
        self.length = 0
        self._k: torch.Tensor | None = None
        self._v: torch.Tensor | None = None

    def update(self, key_states: torch.Tensor, value_states: torch.Tensor, *args: Any,
               **kwargs: Any) -> tuple[torch.Tensor, torch.Tensor]:
        """Write the new tokens' keys and values after the filled part (growing the buffers when they are full) and
        return views of everything filled."""
        if not self.is_initialized:
            self.lazy_initialization(key_states, value_states)
        new = int(key_states.shape[-2])
        if self._k is None or self._v is None or self.length + new > self._k.shape[-2]:
            self._copy_into(self.length + new + self.reserve, key_states, value_states)
        assert self._k is not None and self._v is not None
        self._k[:, :, self.length:self.length + new].copy_(key_states)
        self._v[:, :, self.length:self.length + new].copy_(value_states)
        self.length += new
        self._views()
        return self.keys, self.values

    def _copy_into(self, capacity: int, key_like: torch.Tensor, value_like: torch.Tensor,
                   rows: torch.Tensor | None = None) -> None:
        """New buffers of ``capacity`` tokens (``rows`` of the old ones, default all), the filled part copied."""
        fresh = []
        for old, like in ((self._k, key_like), (self._v, value_like)):
            shape = list(like.shape)
            if rows is not None:
                shape[0] = int(rows.numel())
            shape[-2] = capacity
            buffer = torch.empty(shape, dtype=like.dtype, device=like.device)
            if old is not None and self.length:
                filled = old[:, :, :self.length]
                buffer[:, :, :self.length] = filled[rows] if rows is not None else filled
            fresh.append(buffer)
        self._k, self._v = fresh

    def _views(self) -> None:
        assert self._k is not None and self._v is not None
        self.keys = self._k[:, :, :self.length]
        self.values = self._v[:, :, :self.length]

    def get_seq_length(self) -> int:
        """Tokens held."""
        return self.length

    def reset(self) -> None:
        """Drop everything held."""
        self._k = self._v = None
        self.length = 0
        super().reset()

    def crop(self, tokens_to_remove: int) -> None:
        """Forget the last ``-tokens_to_remove`` tokens (a negative number, as ``DynamicLayer.crop`` takes)."""
        if tokens_to_remove > 0:
            raise ValueError("crop takes the negative number of tokens to remove")
        if tokens_to_remove and self.length:
            self.length = max(0, self.length + int(tokens_to_remove))
            self._views()

    def batch_repeat_interleave(self, repeats: int) -> None:
        """Each row ``repeats`` times, consecutively."""
        if self.length:
            assert self._k is not None
            self.batch_select_indices(torch.arange(self._k.shape[0], device=self._k.device).repeat_interleave(repeats))

    def batch_select_indices(self, indices: torch.Tensor) -> None:
        """Keep the rows ``indices`` names, in that order (a row may be named more than once)."""
        if self.length:
            assert self._k is not None and self._v is not None
            self._copy_into(int(self._k.shape[-2]), self._k, self._v, rows=indices)
            self._views()


def reserved_cache(model_config: Any, reserve: int) -> Cache:
    """A ``DynamicCache`` of :class:`ReservedLayer` layers with room for ``reserve`` tokens past the prompt; a plain
    ``DynamicCache`` for a model with any layer other than full attention (sliding windows keep theirs)."""
    decoder = model_config.get_text_config(decoder=True)
    kinds = getattr(decoder, "layer_types", None) or ["full_attention"] * int(decoder.num_hidden_layers)
    if any(kind != "full_attention" for kind in kinds):
        return DynamicCache(config=model_config)
    cache = DynamicCache.__new__(DynamicCache)
    Cache.__init__(cache, layers=[ReservedLayer(reserve) for _ in kinds])
    return cache


__all__ = ["ReservedLayer", "reserved_cache"]
