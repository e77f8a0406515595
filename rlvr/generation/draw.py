"""How a sampled token is drawn: an exponential race over blocks of the vocabulary, then within the block that won.

transformers samples with ``torch.multinomial(probs, 1)``, which for one sample runs an exponential race: an
exponential random number ``E`` for every vocabulary entry, and the token with the largest ``p / E``. On a CPU torch
draws those exponentials one at a time: for 32 rows of SmolLM2's 49,152 tokens 35-50 ms a decoded token on a 2-core
CPU, about a fifth of a sampled generation. :class:`BlockRaceDraw` splits the vocabulary into about ``sqrt(V)``
blocks of about ``sqrt(V)`` tokens (222 of 222 for SmolLM2) and runs two races: one over the blocks' probability
masses, then one within the block that won. A token is drawn with probability
``(mass / total) x (p / mass) = p / total``, as before, from about 450 exponentials a row instead of 49,152 (2-8 ms; ``scripts/bench_draw.py``,
``docs/speed.md``). Each race keeps what makes torch's robust: logits that differ in their last digits (another
thread count, another process) change a token only when two ratios tie that closely. (An inverse-CDF draw, one
uniform number a row, is as fast but moves every token boundary above a changed probability, and so changes many
more tokens.) The exponentials are ``-log(1 - u)``, ``u`` uniform float64 numbers (float32 on Apple's MPS, which has
no float64) from torch's global generator, so a seed gives the same tokens again.

It is a logits processor that applies the sampling warpers itself (temperature, top-k, top-p, min-p:
transformers' own classes, in transformers' order), draws, and leaves only the drawn token a finite score;
:func:`drawn_generate` runs ``generate`` greedily with it, so the argmax is the drawn token. A call with another
decoding (beams, an assistant model, a warper not listed above) keeps transformers' own sampling.
``draw="multinomial"`` (``DRAWS``) keeps transformers' draw everywhere: runs made with it give the same tokens
again, which the block race does not (another random stream, the same distribution).
"""
from __future__ import annotations

import copy
import math
from typing import Any

#: the draws a sampled generation may use (the first is rlvr's faster one; ``multinomial``, transformers' own, is
#: the default of every option that names one)
DRAWS = ("block_race", "multinomial")
#: sampling fields of a ``GenerationConfig`` that :class:`BlockRaceDraw` applies itself
_WARPED = ("temperature", "top_k", "top_p", "min_p")
#: sampling fields it does not apply: a call that sets one keeps transformers' own sampling
_UNSUPPORTED = {"top_h": None, "typical_p": 1.0, "epsilon_cutoff": 0.0, "eta_cutoff": 0.0}
#: every field the draw reads: a call that passes one beside its ``generation_config`` keeps transformers' sampling
_READ = ("do_sample", "num_beams", "num_return_sequences", *_WARPED, *_UNSUPPORTED)


def check_draw(draw: str) -> str:
    """``draw`` when it is one of :data:`DRAWS`; ValueError in one sentence otherwise."""
    if draw not in DRAWS:
        raise ValueError(f"unknown sampling draw {draw!r}; choose one of {list(DRAWS)}")
    return draw


def exponentials(shape: tuple[int, ...], device: Any = None) -> Any:
    """Standard exponential float32 numbers, ``-log(1 - u)`` of uniform float64 ``u`` (float32 on MPS) from torch's
    global generator; never 0 (the smallest positive float32 instead), so a zero probability never wins a race."""
    import torch

    wide = torch.float32 if torch.device(device or "cpu").type == "mps" else torch.float64
    u = torch.rand(shape, dtype=wide, device=device)
    return u.neg_().log1p_().neg_().float().clamp_min_(torch.finfo(torch.float32).tiny)


class BlockRaceDraw:
    """A ``LogitsProcessor`` that samples from the warped distribution by an exponential race over blocks of the
    vocabulary and one within the winning block (see the module); returns 0 for the drawn token and -inf for
    every other, so a greedy step picks it."""

    def __init__(self, warpers: Any) -> None:
        self.warpers = warpers

    def warp(self, input_ids: Any, scores: Any) -> Any:
        """The scores after the sampling warpers, as transformers' sampling would see them before its draw."""
        return self.warpers(input_ids, scores)

    def draw(self, scores: Any) -> Any:
        """One token per row of ``scores`` (warped logits), as a ``(rows, 1)`` index tensor."""
        import torch
        import torch.nn.functional as F

        probs = torch.softmax(scores.float(), dim=-1)
        rows, vocab = probs.shape
        size = math.isqrt(max(vocab - 1, 0)) + 1
        count = -(-vocab // size)
        blocks = F.pad(probs, (0, count * size - vocab)).view(rows, count, size)
        block = (blocks.sum(dim=-1) / exponentials((rows, count), probs.device)).argmax(dim=-1)
        inside = blocks[torch.arange(rows, device=probs.device), block]
        token = (inside / exponentials((rows, size), probs.device)).argmax(dim=-1)
        return (block * size + token).unsqueeze(1)

    def __call__(self, input_ids: Any, scores: Any) -> Any:
        drawn = scores.new_full(scores.shape, float("-inf"))
        return drawn.scatter_(1, self.draw(self.warp(input_ids, scores)), 0.0)


def _field(config: Any, defaults: Any, name: str) -> Any:
    """A generation field as ``generate`` resolves it: the call's value, else the model's default."""
    value = getattr(config, name, None)
    return getattr(defaults, name, None) if value is None and defaults is not None else value


def sampling_warpers(config: Any, defaults: Any = None) -> Any:
    """transformers' warpers for a sampled call's ``config`` (``defaults``: the model's generation config), in
    transformers' order; None when the call is not plain sampling (greedy, beams, or a warper not in
    ``temperature``, ``top_k``, ``top_p``, ``min_p``)."""
    from transformers import LogitsProcessorList, MinPLogitsWarper, TemperatureLogitsWarper, TopKLogitsWarper, \
        TopPLogitsWarper

    if not _field(config, defaults, "do_sample") or int(_field(config, defaults, "num_beams") or 1) != 1:
        return None
    for name, off in _UNSUPPORTED.items():
        value = _field(config, defaults, name)
        if value is not None and value != off:
            return None
    temperature, top_k, top_p, min_p = (_field(config, defaults, name) for name in _WARPED)
    warpers = LogitsProcessorList()
    if temperature is not None and temperature != 1.0:
        warpers.append(TemperatureLogitsWarper(temperature))
    if top_k is not None and top_k != 0:
        warpers.append(TopKLogitsWarper(top_k=top_k, min_tokens_to_keep=1))
    if top_p is not None and top_p < 1.0:
        warpers.append(TopPLogitsWarper(top_p=top_p, min_tokens_to_keep=1))
    if min_p is not None:
        warpers.append(MinPLogitsWarper(min_p=min_p, min_tokens_to_keep=1))
    return warpers


def drawn_generate(model: Any, draw: str = "block_race") -> Any:
    """``model`` whose sampled ``generate`` calls draw with :class:`BlockRaceDraw` (``draw="multinomial"``:
    unchanged).

    The call runs greedily with the draw after the call's own logits processors; prompts are
    repeated for ``num_return_sequences`` as ``generate`` repeats them (each prompt's samples on consecutive
    rows). Calls that are not plain sampling, that give their settings other than as ``generation_config``
    (positional arguments, a sampling field as a keyword), or that pass an assistant model, go to the model's own
    ``generate``. Installing twice is a no-op."""
    if check_draw(draw) == "multinomial" or getattr(model.generate, "rlvr_draw", None) == draw:
        return model
    plain = model.generate

    def generate(*args: Any, generation_config: Any = None, **kwargs: Any) -> Any:
        from transformers import LogitsProcessorList

        defaults = getattr(model, "generation_config", None)
        plain_call = args or generation_config is None or kwargs.get("assistant_model") is not None \
            or any(name in kwargs for name in _READ)
        warpers = None if plain_call else sampling_warpers(generation_config, defaults)
        if warpers is None:
            return plain(*args, generation_config=generation_config, **kwargs)
        samples = int(_field(generation_config, defaults, "num_return_sequences") or 1)
        config = copy.deepcopy(generation_config)
        config.do_sample, config.num_return_sequences = False, 1
        for name in _WARPED:
            setattr(config, name, None)
        if samples > 1:
            for key in ("input_ids", "attention_mask"):
                if kwargs.get(key) is not None:
                    kwargs[key] = kwargs[key].repeat_interleave(samples, dim=0)
        processors = LogitsProcessorList(kwargs.pop("logits_processor", None) or [])
        processors.append(BlockRaceDraw(warpers))
        return plain(generation_config=config, logits_processor=processors, **kwargs)

    generate.rlvr_draw = draw  # type: ignore[attr-defined]
    model.generate = generate
    return model


__all__ = ["DRAWS", "BlockRaceDraw", "exponentials", "check_draw", "drawn_generate", "sampling_warpers"]
