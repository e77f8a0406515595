"""Grouped-KV attention: a single query token reads the key/value heads as stored, never repeated, and gets
what attention written out gets, under a padding mask."""
from __future__ import annotations

import pytest

from rlvr.generation.grouped_attention import ATTENTION_CHOICES, GROUPED_SDPA, grouped_sdpa_forward, set_attention

torch = pytest.importorskip("torch")


def _reference_attention(query, key, value, mask, groups):
    """Attention written out: keys and values repeated per query head, softmax over the masked scores."""
    key, value = key.repeat_interleave(groups, dim=1), value.repeat_interleave(groups, dim=1)
    scores = query @ key.transpose(-1, -2) / query.shape[-1] ** 0.5 + mask
    return (scores.softmax(-1) @ value).transpose(1, 2)


def test_grouped_attention_reads_the_kv_heads_unrepeated_under_a_padding_mask(monkeypatch):
    gen = torch.Generator().manual_seed(0)
    batch, kv_heads, groups, dim, length = 3, 2, 3, 8, 11
    query = torch.randn(batch, kv_heads * groups, 1, dim, generator=gen)
    key, value = (torch.randn(batch, kv_heads, length, dim, generator=gen) for _ in range(2))
    mask = torch.zeros(batch, 1, 1, length)
    mask[0, ..., :4] = mask[2, ..., :7] = torch.finfo(torch.float32).min  # left padding of different widths
    module = torch.nn.Module()
    module.num_key_value_groups = groups
    seen = []
    sdpa = torch.nn.functional.scaled_dot_product_attention
    monkeypatch.setattr(torch.nn.functional, "scaled_dot_product_attention",
                        lambda q, k, *a, **kw: seen.append(k.shape) or sdpa(q, k, *a, **kw))
    out, weights = grouped_sdpa_forward(module, query, key, value, mask, scaling=dim ** -0.5)
    assert weights is None and out.shape == (batch, 1, kv_heads * groups, dim)
    assert seen == [key.shape]  # the keys as stored: 2 heads, not 6
    assert torch.allclose(out, _reference_attention(query, key, value, mask, groups), atol=1e-6)


def test_an_unknown_attention_is_refused_and_none_keeps_the_model_own():
    model = object()
    assert set_attention(model, None) is model and GROUPED_SDPA in ATTENTION_CHOICES
    with pytest.raises(ValueError, match="unknown attention 'fast'"):
        set_attention(model, "fast")
