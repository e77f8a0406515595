"""Compact decoding: transformers' greedy tokens with rows leaving the batch, each distinct prompt prefilled once,
a cache written in place, sampled tokens from the warped distribution, and every other call left to ``generate``."""
from __future__ import annotations

import pytest

from rlvr.generation.compact import CompactDecoder, compact_generate, distinct_prompts, plain_config

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")


@pytest.fixture(scope="module")
def model(tiny_gqa_model):
    """The tiny grouped-KV model, loaded."""
    return transformers.AutoModelForCausalLM.from_pretrained(tiny_gqa_model).eval()


def _batch(rows: int = 5, width: int = 9):
    ids = torch.randint(3, 2000, (rows, width), generator=torch.Generator().manual_seed(3))
    mask = torch.ones_like(ids)
    for row in range(1, rows):  # left padding of several lengths
        mask[row, : row % width] = 0
        ids[row, : row % width] = 0
    return ids, mask


def _generate(model, ids, mask, config):
    with torch.no_grad():
        return model.generate(input_ids=ids, attention_mask=mask, generation_config=config)


def _greedy(eos: int | list[int], new: int = 12, **kwargs):
    return transformers.GenerationConfig(max_new_tokens=new, do_sample=False, pad_token_id=0, eos_token_id=eos,
                                         **kwargs)


def _eos_that_ends_rows_early(model, ids, mask):
    """A token the plain greedy run writes early in some rows and not in others, used as EOS, so rows finish at
    different steps."""
    out = _generate(model, ids, mask, _greedy(eos=1, new=12))[:, ids.shape[1]:]
    for token in out[:, 2].tolist():
        rows_with = sum(int((row == token).any()) for row in out)
        if 0 < rows_with < out.shape[0]:
            return token
    pytest.skip("no token ends some rows and not others")


def test_greedy_tokens_equal_generate_as_rows_leave_the_batch(model):
    ids, mask = _batch()
    eos = _eos_that_ends_rows_early(model, ids, mask)
    config = _greedy(eos=[eos, 1])
    want = _generate(model, ids, mask, config)
    fast = compact_generate(type(model).from_pretrained(model.name_or_path).eval())
    got = _generate(fast, ids, mask, config)
    assert torch.equal(got, want)
    decoder: CompactDecoder = fast.generate.decoder
    assert decoder.compactions >= 1 and decoder.prefilled == ids.shape[0]
    steps = want.shape[1] - ids.shape[1]
    assert decoder.row_steps < ids.shape[0] * (steps - 1)  # finished rows were not run again


def test_repeated_prompts_are_prefilled_once(model):
    ids, mask = _batch(rows=3)
    config = _greedy(eos=1, new=6)
    fast = compact_generate(type(model).from_pretrained(model.name_or_path).eval())
    repeated_ids, repeated_mask = ids.repeat_interleave(4, dim=0), mask.repeat_interleave(4, dim=0)
    assert torch.equal(_generate(fast, repeated_ids, repeated_mask, config),
                       _generate(model, repeated_ids, repeated_mask, config))
    assert fast.generate.decoder.prefilled == 3
    config = transformers.GenerationConfig(max_new_tokens=6, do_sample=True, top_k=1, pad_token_id=0, eos_token_id=1,
                                           num_return_sequences=2)  # top-k 1: sampled, yet one token to draw
    assert torch.equal(_generate(fast, ids, mask, config), _generate(model, ids, mask, config))
    assert fast.generate.decoder.prefilled == 6


def test_distinct_prompts_maps_every_row_to_its_prompt():
    ids = torch.tensor([[0, 5, 6], [7, 8, 9], [0, 5, 6]])
    mask = torch.tensor([[0, 1, 1], [1, 1, 1], [0, 1, 1]])
    prompts, masks, rows = distinct_prompts(ids, mask, samples=2)
    assert prompts.shape[0] == 2 and torch.equal(prompts[rows], ids.repeat_interleave(2, dim=0))
    assert torch.equal(masks[rows], mask.repeat_interleave(2, dim=0))
    same, _, none = distinct_prompts(ids[:2], mask[:2])
    assert same is ids[:2] or torch.equal(same, ids[:2])
    assert none is None


@pytest.mark.parametrize("draw", ["multinomial", "block_race"])
def test_sampling_keeps_to_the_warped_distribution_and_repeats_with_its_seed(model, draw):
    ids, mask = _batch(rows=2)
    config = transformers.GenerationConfig(max_new_tokens=1, do_sample=True, top_k=3, temperature=0.7,
                                           pad_token_id=0, eos_token_id=1, num_return_sequences=200)
    fast = compact_generate(type(model).from_pretrained(model.name_or_path).eval(), draw)
    torch.manual_seed(0)
    first = _generate(fast, ids, mask, config)[:, -1].view(2, 200)
    with torch.no_grad():
        positions = (mask.cumsum(-1) - 1).clamp_min(0)
        logits = model(input_ids=ids, attention_mask=mask, position_ids=positions).logits[:, -1]
    for row in range(2):
        top = set(logits[row].topk(3).indices.tolist())
        drawn = set(first[row].tolist())
        assert drawn <= top and len(drawn) >= 2  # top-k kept, and more than one of them drawn
    torch.manual_seed(0)
    assert torch.equal(_generate(fast, ids, mask, config)[:, -1].view(2, 200), first)


def test_calls_it_does_not_cover_go_to_generate(model):
    ids, mask = _batch(rows=2)
    fast = compact_generate(type(model).from_pretrained(model.name_or_path).eval())
    decoder = fast.generate.decoder
    for config in (_greedy(eos=1, repetition_penalty=1.3), _greedy(eos=1, num_beams=2),
                   _greedy(eos=1, min_new_tokens=3)):
        assert not plain_config(config)
        assert torch.equal(_generate(fast, ids, mask, config), _generate(model, ids, mask, config))
    with torch.no_grad():  # a keyword the loop does not take
        fast.generate(input_ids=ids, attention_mask=mask, generation_config=_greedy(eos=1), output_scores=False)
    assert decoder.prefilled == 0
    assert plain_config(_greedy(eos=1, repetition_penalty=1.0))  # TRL's neutral value
    assert not plain_config(transformers.GenerationConfig(max_length=9))  # no max_new_tokens
    assert plain_config(_greedy(eos=1)) and compact_generate(fast) is fast and fast.generate.decoder is decoder


def test_the_reserved_cache_holds_what_a_dynamic_cache_holds(model):
    from transformers import DynamicCache

    from rlvr.generation.reserved_cache import reserved_cache

    ids, mask = _batch(rows=4, width=6)
    caches = [DynamicCache(config=model.config), reserved_cache(model.config, reserve=2)]
    for cache in caches:
        with torch.no_grad():
            model(input_ids=ids, attention_mask=mask, cache=cache, use_cache=True)
            for step in range(4):  # past the reserve: the buffers grow
                model(input_ids=ids[:, -1:], attention_mask=torch.ones(4, 7 + step, dtype=mask.dtype),
                      cache=cache, use_cache=True)
        cache.batch_select_indices(torch.tensor([2, 0, 0]))
        cache.crop(-1)
    plain, reserved = caches
    assert reserved.get_seq_length() == plain.get_seq_length() == 9
    for a, b in zip(plain.layers, reserved.layers):
        assert torch.equal(a.keys, b.keys) and torch.equal(a.values, b.values)
    reserved.batch_repeat_interleave(2)
    plain.batch_repeat_interleave(2)
    assert torch.equal(plain.layers[0].keys, reserved.layers[0].keys)
    with pytest.raises(ValueError, match="negative"):
        reserved.layers[0].crop(2)
