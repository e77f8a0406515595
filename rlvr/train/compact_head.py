"""Score only the labelled positions through the LM head on CPU.

TRL's trainers patch the policy with a fused LM head (``trl.trainer.utils.add_fused_lm_head``): a forward
called with ``fused_lm_head=True`` returns per-token log-probabilities instead of logits. On Triton devices it
projects only the positions whose next-token label is not ``-100``; elsewhere it projects *every* position
(so that tile shapes stay fixed for compilers), in ``[4096, 32768]`` tiles rebuilt op by op. On a CPU that
means the prompt tokens (most of a molecule row) pay the 49k-wide vocabulary projection in forward and
backward, and every tile op allocates a fresh buffer of hundreds of megabytes, which the allocator maps and
unmaps each time: a third of a warm-start step went to system time on page faults.

:func:`add_compact_head` wraps that forward on CPU: the labelled positions only, projected in row blocks small
enough for the allocator to reuse, with the same outputs (log-probabilities, entropy, top-1 flags; all zero
on ignored positions) and the same gradients up to float rounding. Models it does not cover (vision-language,
soft-capped or scaled logits, mixture-of-experts routing, pre-shifted labels) keep TRL's path.
"""
from __future__ import annotations

import functools
import types
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import torch

# rows per block: 128 x 49152 fp32 logits = 24 MiB, below glibc's largest mmap threshold (32 MiB), so blocks
# come from (and go back to) the heap instead of fresh zeroed pages
ROW_BLOCK = 128


def covers(model: Any) -> bool:
    """Whether :func:`add_compact_head` handles ``model``: a plain text causal LM with unscaled logits."""
    config = model.config
    text = config.get_text_config() if hasattr(config, "get_text_config") else config
    if text is not config:
        return False
    scaled = any(getattr(text, name, None) is not None
                 for name in ("final_logit_softcapping", "logit_scale", "output_multiplier", "lm_head_multiplier",
                              "logits_scaling"))
    return not scaled and not getattr(text, "output_router_logits", False) and hasattr(model, "base_model")


def labelled_log_probs(hidden: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None, targets: torch.Tensor,
                       *, temperature: float = 1.0, outputs: tuple[str, ...] = ("log_probs",),
                       row_block: int = ROW_BLOCK) -> dict[str, torch.Tensor]:
    """Per-row ``log p(target)`` of ``hidden @ weight.T (+ bias)`` over the vocabulary, in row blocks, with
    ``entropy`` and ``is_top1`` where ``outputs`` names them. ``hidden``: [M, H]; ``targets``: [M]."""
    import torch
    parts: dict[str, list[torch.Tensor]] = {"log_probs": [], "entropy": [], "is_top1": []}
    for start in range(0, hidden.shape[0], row_block):
        rows = slice(start, start + row_block)
        logits = torch.nn.functional.linear(hidden[rows], weight, bias).float()
        if temperature != 1.0:
            logits = logits / temperature
        logp = torch.log_softmax(logits, dim=-1)
        target = targets[rows]
        parts["log_probs"].append(logp.gather(1, target.unsqueeze(1)).squeeze(1))
        if "entropy" in outputs:
            parts["entropy"].append(-(logp.exp() * logp).sum(-1))
        if "is_top1" in outputs:
            with torch.no_grad():  # argmax is the first maximum: a tie with an earlier token is not a top-1
                parts["is_top1"].append(logits.argmax(-1) == target)
    # no row: an empty result still connected to ``hidden`` (a batch without labels backpropagates a zero)
    empty = hidden.float().sum(-1) * 0.0
    return {name: torch.cat(chunks) if chunks else (empty.detach().bool() if name == "is_top1" else empty)
            for name, chunks in parts.items() if name == "log_probs" or name in outputs}


def add_compact_head(model: Any, *, temperature: float = 1.0,
                     outputs: tuple[str, ...] = ("log_probs",)) -> bool:
    """Wrap ``model``'s TRL-fused forward so that, on CPU, ``fused_lm_head=True`` scores labelled positions only.

    Call it after TRL has added its fused head, with the same ``temperature`` and ``outputs`` (the wrapped
    forward defers to TRL's for anything else). Returns False, leaving the model as it is, for models
    :func:`covers` does not handle.
    """
    try:
        from trl.trainer.utils import FusedCausalLMOutput
    except ImportError:  # a TRL without the fused head: its trainers never ask for it
        return False
    if not covers(model) or "forward" not in vars(model):  # no TRL fused head on this instance: nothing to wrap
        return False
    fused_forward = model.forward

    @functools.wraps(type(model).forward)
    def _compact_forward(self: Any, *args: Any, fused_lm_head: bool = False, labels: torch.Tensor | None = None,
                         shift_labels: torch.Tensor | None = None, num_items_in_batch: Any = None, **kwargs: Any) -> Any:
        head = self.get_output_embeddings()
        if not fused_lm_head or shift_labels is not None or labels is None or head.weight.device.type != "cpu":
            return fused_forward(*args, fused_lm_head=fused_lm_head, labels=labels, shift_labels=shift_labels,
                                 num_items_in_batch=num_items_in_batch, **kwargs)
        kwargs["use_cache"] = False
        hidden = self.base_model(*args, **kwargs).last_hidden_state[:, :-1]
        labels = labels[:, 1:].to(hidden.device)
        mask = labels != -100
        scored = labelled_log_probs(hidden[mask], head.weight, head.bias, labels[mask], temperature=temperature,
                                    outputs=outputs)
        # masked_scatter keeps an all-ignored batch connected to the graph: a differentiable zero, as in TRL
        full = {name: x.new_zeros(mask.shape).masked_scatter(mask, x) for name, x in scored.items()}
        log_probs = full["log_probs"]
        loss = -log_probs.sum() / (mask.sum().clamp(min=1) if num_items_in_batch is None else num_items_in_batch)
        return FusedCausalLMOutput(loss=loss, log_probs=log_probs, entropy=full.get("entropy"),
                                   is_top1=full.get("is_top1"), label_mask=mask)

    model.forward = types.MethodType(_compact_forward, model)
    model._rlvr_compact_head = True  # what is_compact reads
    return True


def is_compact(model: Any) -> bool:
    """Whether ``model`` (or the model under its PEFT wrapper) has the compact head."""
    inner = model.get_base_model() if hasattr(model, "get_base_model") else model
    return bool(getattr(inner, "_rlvr_compact_head", False))


def compact_trainer_heads(trainer: Any, *, temperature: float = 1.0, outputs: tuple[str, ...] = ("log_probs",)) -> bool:
    """:func:`add_compact_head` on a TRL trainer's policy (under its PEFT wrapper) and reference model."""
    model = trainer.model
    policy = model.get_base_model() if hasattr(model, "get_base_model") else model
    done = add_compact_head(policy, temperature=temperature, outputs=outputs)
    ref = getattr(trainer, "ref_model", None)
    if ref is not None:
        add_compact_head(ref, temperature=temperature)
    return done
