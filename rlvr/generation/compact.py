"""Compact decoding: each prompt prefilled once, each token written into reserved room, finished rows dropped.

transformers' ``generate`` does three things a CPU pays for in sampling and greedy evaluation:

- it runs the prompt of every row through the model, though RL's groups and ``num_return_sequences`` repeat
  each prompt (8 rows of a GRPO group are one prompt);
- its ``DynamicCache`` copies every layer's keys and values at each step (``torch.cat``);
- it keeps every row in the batch until the last one ends, though in a greedy evaluation some row nearly always
  runs to ``max_new_tokens`` (an answer that loops), so a batch of 60-token answers costs as much as one of 80.

:class:`CompactDecoder` runs its own loop over the model's forward pass: it prefills the distinct prompts and
copies their cache rows to every row that repeats them, keeps the cache in reserved buffers
(:mod:`rlvr.generation.reserved_cache`), and drops finished rows from the batch and the cache once at least
``max(1, rows // COMPACT_FRACTION)`` of them are waiting.

It covers plain calls: greedy, or sampling with transformers' warpers (temperature, top-k, top-p, min-p, in
transformers' order) drawn by ``torch.multinomial`` or the block race (:mod:`rlvr.generation.draw`); one beam,
no logits processor, stopping criterion or other generation option (:func:`plain_config`). Any other call goes to
the model's own ``generate``. The result has ``generate``'s form: prompt and new tokens, each finished row padded
after its EOS.

A greedy row is the same computation as in ``generate`` (left padding, positions counted from each row's first
token), but the batch's shape changes as rows leave, so logits may differ in their last digits and a near-tie may
resolve otherwise. Sampled rows draw only while they are live, so a seed gives other tokens than ``generate``
(the same distribution).
"""
from __future__ import annotations

from typing import Any

from rlvr.generation.draw import BlockRaceDraw, check_draw, sampling_warpers

#: finished rows are dropped once at least 1/COMPACT_FRACTION of the live rows (and at least one) have finished
COMPACT_FRACTION = 8
#: generation-config fields a compact call may set (every other field must keep transformers' default)
_PLAIN_FIELDS = frozenset({
    "max_new_tokens", "do_sample", "temperature", "top_k", "top_p", "min_p", "num_return_sequences", "num_beams",
    "pad_token_id", "bos_token_id", "eos_token_id", "use_cache", "cache_implementation", "disable_compile",
    "compile_config", "transformers_version", "_from_model_config",
})
#: fields a call may also set to the value that does nothing (TRL sets ``repetition_penalty: 1.0``)
_NEUTRAL = {"repetition_penalty": 1.0, "encoder_repetition_penalty": 1.0, "length_penalty": 1.0, "min_length": 0,
            "min_new_tokens": 0, "no_repeat_ngram_size": 0, "typical_p": 1.0, "epsilon_cutoff": 0.0, "eta_cutoff": 0.0}
#: fields that ask ``generate`` for more than token ids
_OUTPUT_FIELDS = ("return_dict_in_generate", "output_scores", "output_logits", "output_attentions",
                  "output_hidden_states")


def plain_config(config: Any) -> bool:
    """Whether ``config`` (a ``GenerationConfig``) asks for nothing compact decoding does not do: a positive
    ``max_new_tokens``, one beam, a dynamic cache, plain token ids back, and no field outside the sampling warpers and token ids but at
    the value that does nothing."""
    if int(getattr(config, "max_new_tokens", None) or 0) < 1 or int(getattr(config, "num_beams", 1) or 1) != 1:
        return False
    if getattr(config, "cache_implementation", None) not in (None, "dynamic"):
        return False
    if any(getattr(config, name, False) for name in _OUTPUT_FIELDS):
        return False
    others = {k: v for k, v in config.to_diff_dict().items() if k not in _PLAIN_FIELDS and k not in _OUTPUT_FIELDS}
    return all(k in _NEUTRAL and v in (None, _NEUTRAL[k]) for k, v in others.items())


def eos_ids(config: Any) -> list[int]:
    """The config's EOS token ids (none, one or several) as a list."""
    eos = getattr(config, "eos_token_id", None)
    if eos is None:
        return []
    return [int(e) for e in (eos if isinstance(eos, (list, tuple)) else [eos])]


class CompactDecoder:
    """Greedy or sampled decoding of a left-padded batch, compactly (see the module).

    ``draw``: how a sampled token is drawn (:data:`rlvr.generation.draw.DRAWS`). Counters: ``prefilled`` prompts run
    through the model, ``compactions`` (times finished rows were dropped) and ``row_steps`` (single-row forward passes
    after the prompt; ``generate`` would run ``rows x steps``)."""

    def __init__(self, model: Any, draw: str = "multinomial") -> None:
        self.model = model
        self.draw = check_draw(draw)
        self.prefilled = 0
        self.compactions = 0
        self.row_steps = 0

    def new_tokens(self, input_ids: Any, attention_mask: Any, config: Any) -> Any:
        """The new tokens of every row (``num_return_sequences`` consecutive rows per prompt), ``pad_token_id``
        after a row's EOS, as many columns as the longest row needed."""
        import torch

        from rlvr.generation.reserved_cache import reserved_cache

        samples = int(getattr(config, "num_return_sequences", 1) or 1)
        rows, device = int(input_ids.shape[0]) * samples, input_ids.device
        limit = int(config.max_new_tokens)
        eos = torch.tensor(eos_ids(config), dtype=input_ids.dtype, device=device)
        pad = getattr(config, "pad_token_id", None)
        pad = int(pad) if pad is not None else (int(eos[0]) if len(eos) else 0)
        warpers = sampling_warpers(config, getattr(self.model, "generation_config", None))
        race = BlockRaceDraw(warpers) if warpers is not None and self.draw == "block_race" else None
        prompts, masks, row_prompt = distinct_prompts(input_ids, attention_mask, samples)
        out = torch.full((rows, limit), pad, dtype=input_ids.dtype, device=device)
        live = torch.arange(rows, device=device)  # each batch row's row of the output
        finished = torch.zeros(rows, dtype=torch.bool, device=device)  # batch rows done but not yet dropped
        cache = reserved_cache(self.model.config, limit)
        with torch.no_grad():
            position = (masks.long().cumsum(-1) - 1).clamp_min(0)
            logits = self._logits(prompts, masks, position, cache)
            self.prefilled += int(prompts.shape[0])
            mask, position = masks, position[:, -1:]
            if row_prompt is not None:
                cache.batch_select_indices(row_prompt)
                logits, mask, position = logits[row_prompt], mask[row_prompt], position[row_prompt]
            ids, steps = (prompts if row_prompt is None else prompts[row_prompt]), 0  # what the warpers are shown
            while True:
                token = self._choose(ids, logits, warpers, race)
                token = torch.where(finished, torch.full_like(token, pad), token)
                out[live, steps] = token
                steps += 1
                if len(eos):
                    finished = finished | torch.isin(token, eos)
                if steps >= limit or bool(finished.all()):
                    break
                waiting = int(finished.sum())
                if waiting and waiting >= max(1, int(finished.numel()) // COMPACT_FRACTION):
                    keep = (~finished).nonzero().squeeze(1)
                    cache.batch_select_indices(keep)
                    live, token, mask, position, finished = live[keep], token[keep], mask[keep], position[keep], \
                        finished[keep]
                    self.compactions += 1
                mask = torch.cat([mask, mask.new_ones(mask.shape[0], 1)], dim=1)
                position = position + 1
                ids = token[:, None]
                logits = self._logits(ids, mask, position, cache)
                self.row_steps += int(ids.shape[0])
        return out[:, :steps]

    def _logits(self, ids: Any, mask: Any, position: Any, cache: Any) -> Any:
        """The last position's logits in float32, the cache extended by ``ids``."""
        out = self.model(input_ids=ids, attention_mask=mask, position_ids=position, cache=cache,
                         use_cache=True, logits_to_keep=1)
        return out.logits[:, -1, :].float()

    def _choose(self, ids: Any, logits: Any, warpers: Any, race: BlockRaceDraw | None) -> Any:
        """One token per row: the argmax (greedy), the block race, or ``torch.multinomial`` of the warped logits."""
        import torch

        if warpers is None:
            return logits.argmax(dim=-1)
        if race is not None:
            return race.draw(race.warp(ids, logits)).squeeze(1)
        probs = torch.softmax(warpers(ids, logits), dim=-1)
        return torch.multinomial(probs, num_samples=1).squeeze(1)


def distinct_prompts(input_ids: Any, attention_mask: Any, samples: int = 1) -> tuple[Any, Any, Any]:
    """``(prompts, masks, row_prompt)``: the distinct rows of a left-padded batch, and for each of its
    ``rows x samples`` output rows the distinct prompt it repeats (``None`` when every row is distinct and
    ``samples`` is 1: the batch is prefilled as it is)."""
    import torch

    rows = int(input_ids.shape[0])
    expand = torch.arange(rows, device=input_ids.device).repeat_interleave(samples) if samples > 1 else None
    if rows < 2:
        return input_ids, attention_mask, expand
    both = torch.cat([input_ids, attention_mask.to(input_ids.dtype)], dim=1)
    distinct, inverse = torch.unique(both, dim=0, return_inverse=True)
    if distinct.shape[0] == rows:
        return input_ids, attention_mask, expand
    width = int(input_ids.shape[1])
    prompts, masks = distinct[:, :width], distinct[:, width:].to(attention_mask.dtype)
    return prompts, masks, inverse if expand is None else inverse[expand]


def compact_generate(model: Any, draw: str = "multinomial") -> Any:
    """``model`` whose plain ``generate(input_ids=..., attention_mask=..., generation_config=...)`` calls
    (:func:`plain_config`; ``disable_compile=True`` beside them is allowed) decode with a :class:`CompactDecoder` and
    return prompt and new tokens, as ``generate`` does; any other call goes to the model's own ``generate``.
    ``draw`` applies to sampled calls. Installing again with the same draw is a no-op; with another, it replaces the
    draw (it never wraps twice)."""
    if getattr(model.generate, "rlvr_compact", None) == check_draw(draw):
        return model
    plain = getattr(model.generate, "rlvr_plain", model.generate)
    decoder = CompactDecoder(model, draw)

    def generate(input_ids: Any = None, attention_mask: Any = None, generation_config: Any = None,
                 **kwargs: Any) -> Any:
        import torch

        extra = {k: v for k, v in kwargs.items() if not (k == "disable_compile" and v)}
        if extra or input_ids is None or attention_mask is None or generation_config is None \
                or not plain_config(generation_config):
            return plain(input_ids=input_ids, attention_mask=attention_mask, generation_config=generation_config,
                         **kwargs)
        samples = int(getattr(generation_config, "num_return_sequences", 1) or 1)
        prompt = input_ids.repeat_interleave(samples, dim=0) if samples > 1 else input_ids
        return torch.cat([prompt, decoder.new_tokens(input_ids, attention_mask, generation_config)], dim=1)

    generate.rlvr_compact = draw  # type: ignore[attr-defined]
    generate.rlvr_plain = plain  # type: ignore[attr-defined]
    generate.decoder = decoder  # type: ignore[attr-defined]
    model.generate = generate
    return model


__all__ = ["COMPACT_FRACTION", "CompactDecoder", "compact_generate", "distinct_prompts", "eos_ids", "plain_config"]
