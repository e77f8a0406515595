"""How far an arm moved from the model it started at: KL(arm || reference) on the arm's own samples.

For each prompt, one completion sampled from the arm; along it, at every completion token, the exact KL
divergence between the two models' next-token distributions (softmax of the logits over the whole
vocabulary, at the sampling temperature), summed over the completion. The mean of those sums estimates the
sequence-level KL(arm || reference) under the arm's own distribution, as RL's KL penalty measures it;
``kl_per_token`` divides by the completion tokens.
"""
from __future__ import annotations

from typing import Any, Sequence

#: rows scored per forward pass
BATCH = 8


def _load(model: str, adapter: str | None, dtype: Any) -> Any:
    """``model`` with ``adapter`` merged into its weights, in eval mode."""
    from transformers import AutoModelForCausalLM

    loaded = AutoModelForCausalLM.from_pretrained(model, dtype=dtype)
    if adapter:
        from peft import PeftModel

        loaded = PeftModel.from_pretrained(loaded, adapter).merge_and_unload()
    return loaded.eval()


def _rows(tokenizer: Any, pairs: Sequence[tuple[list[dict[str, str]], str]]) -> list[tuple[list[int], int]]:
    """Token ids of each chat prompt (with the generation prompt) followed by its completion, and the prompt's length."""
    rows = []
    for messages, completion in pairs:
        prompt = tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)
        prompt_ids = tokenizer(prompt, add_special_tokens=False)["input_ids"]
        completion_ids = tokenizer(completion, add_special_tokens=False)["input_ids"]
        if completion_ids:
            rows.append((prompt_ids + completion_ids, len(prompt_ids)))
    return rows


def sequence_kl(arm_model: str, arm_adapter: str | None, reference: str, pairs: Sequence[tuple[list[dict[str, str]], str]],
                *, temperature: float = 1.0, dtype: str = "float32") -> dict[str, float | int]:
    """KL(arm || reference) over ``pairs`` (chat prompt messages, a completion sampled from the arm): the mean
    per completion (``kl_per_sequence``, with its standard error) and per token (``kl_per_token``)."""
    import torch

    from rlvr.eval.stats import mean_se
    from rlvr.models import load_tokenizer

    torch_dtype = getattr(torch, dtype) if dtype != "auto" else torch.float32
    tokenizer = load_tokenizer(reference)
    rows = _rows(tokenizer, pairs)
    arm, ref = _load(arm_model, arm_adapter, torch_dtype), _load(reference, None, torch_dtype)
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
    per_sequence: list[float] = []
    tokens = 0
    with torch.inference_mode():
        for start in range(0, len(rows), BATCH):
            chunk = rows[start:start + BATCH]
            width = max(len(ids) for ids, _ in chunk)
            ids = torch.full((len(chunk), width), pad, dtype=torch.long)
            mask = torch.zeros((len(chunk), width), dtype=torch.long)
            for i, (row, _) in enumerate(chunk):
                ids[i, :len(row)] = torch.tensor(row)
                mask[i, :len(row)] = 1
            logp_arm = torch.log_softmax(arm(input_ids=ids, attention_mask=mask).logits.float() / temperature, dim=-1)
            logp_ref = torch.log_softmax(ref(input_ids=ids, attention_mask=mask).logits.float() / temperature, dim=-1)
            kl = (logp_arm.exp() * (logp_arm - logp_ref)).sum(dim=-1)  # [B, L]: KL of the next-token distributions
            for i, (row, prompt_len) in enumerate(chunk):
                positions = slice(prompt_len - 1, len(row) - 1)  # the logits that predict each completion token
                per_sequence.append(float(kl[i, positions].sum()))
                tokens += len(row) - prompt_len
    mean, se, n = mean_se(per_sequence)
    return {"n": n, "kl_per_sequence": mean, "kl_per_sequence_se": se,
            "kl_per_token": sum(per_sequence) / tokens if tokens else float("nan"), "completion_tokens": tokens}
