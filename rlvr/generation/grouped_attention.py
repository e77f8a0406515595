"""Attention for grouped key/value heads that never copies them, compiled or not.

SmolLM2-135M has 9 query heads over 3 key/value heads. transformers' ``sdpa`` attention copies the 3 KV heads
to 9 (``repeat_kv``) whenever it cannot hand the grouping to SDPA: under a padding mask on CUDA, and at every
decoding step inside ``torch.compile``. Its eager decoding steps avoid the copy by packing each KV head's
query heads into one (``pack_gqa``), but it leaves that out under compilation. :func:`grouped_sdpa_forward`
packs them at every single-token step, compiled or not, and hands everything else to transformers' ``sdpa``.
It is registered with transformers' ``AttentionInterface`` as :data:`GROUPED_SDPA`.
"""
from __future__ import annotations

from typing import Any

#: the name :func:`register` gives the attention function (``model.set_attn_implementation(GROUPED_SDPA)``)
GROUPED_SDPA = "rlvr_grouped_sdpa"
#: attention implementations a backend or recipe may ask for
ATTENTION_CHOICES = ("sdpa", "eager", "flex_attention", GROUPED_SDPA)


def grouped_sdpa_forward(module: Any, query: Any, key: Any, value: Any, attention_mask: Any, dropout: float = 0.0,
                         scaling: float | None = None, is_causal: bool | None = None, **kwargs: Any) -> tuple[Any, None]:
    """transformers' ``sdpa`` attention, except that a single query token attends to grouped KV heads packed:
    ``(batch, heads, 1, dim)`` becomes ``(batch, kv_heads, group, dim)``, so the keys and values are read as they
    are stored, never repeated. Returns ``(batch, 1, heads, dim)`` and no weights, as ``sdpa`` does."""
    import torch
    from transformers.integrations.sdpa_attention import sdpa_attention_forward

    groups = int(getattr(module, "num_key_value_groups", 1) or 1)
    batch, heads, q_length, dim = query.shape
    single_mask = attention_mask is None or attention_mask.shape[1] == 1  # one mask for every head
    if groups == 1 or q_length != 1 or kwargs.get("position_bias") is not None or not single_mask:
        return sdpa_attention_forward(module, query, key, value, attention_mask, dropout=dropout, scaling=scaling,
                                      is_causal=is_causal, **kwargs)
    packed = query.reshape(batch, heads // groups, groups, dim)
    out = torch.nn.functional.scaled_dot_product_attention(packed, key, value, attn_mask=attention_mask,
                                                           dropout_p=dropout, scale=scaling, is_causal=False)
    return out.reshape(batch, heads, 1, value.shape[-1]).transpose(1, 2).contiguous(), None


def register() -> str:
    """Register :func:`grouped_sdpa_forward` (and its mask function, ``sdpa``'s) under :data:`GROUPED_SDPA`;
    idempotent. Returns the name."""
    from transformers import AttentionInterface
    from transformers.masking_utils import ALL_MASK_ATTENTION_FUNCTIONS

    AttentionInterface.register(GROUPED_SDPA, grouped_sdpa_forward)
    ALL_MASK_ATTENTION_FUNCTIONS.register(GROUPED_SDPA, ALL_MASK_ATTENTION_FUNCTIONS["sdpa"])
    return GROUPED_SDPA


def set_attention(model: Any, name: str | None) -> Any:
    """``model`` with its attention implementation set to ``name`` (one of :data:`ATTENTION_CHOICES`; ``None``
    keeps the model's own); ValueError on any other name."""
    if name is None:
        return model
    if name not in ATTENTION_CHOICES:
        raise ValueError(f"unknown attention {name!r}; choose one of {list(ATTENTION_CHOICES)}")
    if name == GROUPED_SDPA:
        register()
    model.set_attn_implementation(name)
    return model
