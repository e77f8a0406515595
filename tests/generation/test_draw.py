"""The block-race draw: tokens in the proportions of the distribution, the same tokens for logits that differ in
their last digits, transformers' own warpers before it, the same tokens again for the same seed, and every
call it does not cover left to transformers' own sampling."""
from __future__ import annotations

import math

import pytest

from rlvr.generation.draw import DRAWS, BlockRaceDraw, check_draw, drawn_generate, sampling_warpers

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")


@pytest.fixture(scope="module")
def model(tiny_gqa_model):
    """The tiny grouped-KV model (the embedded model's tokenizer, 49,152 tokens; its output layer untied), loaded."""
    return transformers.AutoModelForCausalLM.from_pretrained(tiny_gqa_model).eval()


def _config(**kwargs):
    kwargs.setdefault("max_new_tokens", 8)
    return transformers.GenerationConfig(do_sample=True, pad_token_id=0, **kwargs)


def _prompts():
    ids = torch.randint(3, 500, (2, 6), generator=torch.Generator().manual_seed(0))
    mask = torch.ones_like(ids)
    mask[1, :2] = 0  # a left-padded row
    return ids, mask


def test_tokens_come_in_the_proportions_of_the_distribution():
    probs = torch.tensor([0.5, 0.25, 0.125, 0.0625, 0.0625, 0.0])
    rows = 40_000
    scores = probs.log().expand(rows, -1).clone()  # log 0 = -inf: a token no draw may give
    draw = BlockRaceDraw(transformers.LogitsProcessorList())
    torch.manual_seed(0)
    out = draw(None, scores)
    assert ((out == 0).sum(dim=1) == 1).all() and (torch.isinf(out).sum(dim=1) == probs.numel() - 1).all()
    counts = (out == 0).sum(dim=0)
    assert counts[-1] == 0
    for p, n in zip(probs[:-1].tolist(), counts[:-1].tolist()):
        assert abs(n - rows * p) < 5 * math.sqrt(rows * p * (1 - p))  # within 5 standard deviations
    torch.manual_seed(0)
    assert torch.equal(draw(None, scores), out)  # the same seed, the same tokens
    # 1,000 tokens in 32 blocks: Pearson's chi-square over 100,000 draws, 999 degrees of freedom (mean 999, sd 45)
    probs = torch.softmax(2 * torch.randn(1_000, generator=torch.Generator().manual_seed(2)), dim=0)
    torch.manual_seed(1)
    counts = torch.bincount(draw.draw(probs.log().expand(100_000, -1)).squeeze(1), minlength=1_000).double()
    expected = 100_000 * probs.double()
    assert ((counts - expected) ** 2 / expected).sum() < 999 + 6 * 45


def test_logits_that_differ_in_their_last_digits_give_the_same_tokens():
    """What another thread count or process may do to the logits: a relative change of 1e-5. The race keeps every
    token here (as torch.multinomial's race over every token does); an inverse-CDF draw over the same numbers
    moves dozens of the 2,000 (each boundary above a changed probability shifts with it)."""
    gen = torch.Generator().manual_seed(1)
    logits = 3 * torch.randn(2_000, 5_000, generator=gen)
    nudged = logits * (1 + 1e-5 * torch.randn(logits.shape, generator=gen))
    draw = BlockRaceDraw(transformers.LogitsProcessorList())
    tokens = []
    for scores in (logits, nudged):
        torch.manual_seed(0)
        tokens.append(draw(None, scores).argmax(dim=1))
    assert (tokens[0] != tokens[1]).sum() <= 2

    def inverse_cdf(scores):
        torch.manual_seed(0)
        u = torch.rand(scores.shape[0], 1, dtype=torch.float64)
        return torch.searchsorted(torch.softmax(scores, dim=-1).double().cumsum(dim=-1), u).squeeze(1)

    assert (inverse_cdf(logits) != inverse_cdf(nudged)).sum() > 10


def test_the_warpers_are_transformers_own_in_its_order(model):
    ids, mask = _prompts()
    config = _config(temperature=0.7, top_k=40, top_p=0.9, min_p=0.01, output_scores=True,
                     return_dict_in_generate=True)
    torch.manual_seed(0)
    with torch.no_grad():
        first = model.generate(input_ids=ids, attention_mask=mask, generation_config=config).scores[0]
        logits = model(input_ids=ids, attention_mask=mask).logits[:, -1].float()
    warped = BlockRaceDraw(sampling_warpers(config, model.generation_config)).warp(ids, logits)
    assert torch.equal(torch.isinf(warped), torch.isinf(first)) and torch.isinf(first).any()
    assert torch.allclose(warped[~torch.isinf(first)], first[~torch.isinf(first)], atol=1e-5)


def test_a_sampled_generate_draws_again_the_same_tokens_for_the_same_seed(model):
    ids, mask = _prompts()
    drawn = drawn_generate(transformers.AutoModelForCausalLM.from_pretrained(model.name_or_path).eval())
    assert drawn_generate(drawn).generate.rlvr_draw == "block_race"  # installing twice changes nothing
    config = _config(num_return_sequences=3, temperature=1.3)
    outs = []
    for seed in (5, 5, 6):
        torch.manual_seed(seed)
        with torch.no_grad():
            outs.append(drawn.generate(input_ids=ids, attention_mask=mask, generation_config=config))
    assert outs[0].shape == (6, 14) and torch.equal(outs[0], outs[1]) and not torch.equal(outs[0], outs[2])
    assert torch.equal(outs[0][:3, :6], ids[:1].expand(3, -1))  # each prompt's samples on consecutive rows
    assert len(set(outs[0][:, 6:].flatten().tolist())) > 10  # sampled, not one token over and over
    # what it leaves to transformers: greedy decoding, a warper it does not apply, a sampling field as a keyword
    for config, extra in ((transformers.GenerationConfig(max_new_tokens=8, do_sample=False, pad_token_id=0), {}),
                          (_config(typical_p=0.8), {}), (_config(), {"temperature": 0.3})):
        got = []
        for m in (model, drawn):
            torch.manual_seed(3)
            with torch.no_grad():
                got.append(m.generate(input_ids=ids, attention_mask=mask, generation_config=config, **extra))
        assert torch.equal(*got)
    assert sampling_warpers(_config(num_beams=2)) is None


def test_multinomial_keeps_the_model_as_it_is_and_an_unknown_draw_is_refused(model):
    plain = model.generate
    assert drawn_generate(model, "multinomial") is model and model.generate == plain
    assert DRAWS == ("block_race", "multinomial") and check_draw("multinomial") == "multinomial"
    with pytest.raises(ValueError, match="unknown sampling draw 'gumbel'"):
        check_draw("gumbel")
