"""The CPU compact LM head: TRL's fused-head outputs and gradients, from the labelled positions only."""
from __future__ import annotations

import copy

import pytest

torch = pytest.importorskip("torch")
trl_utils = pytest.importorskip("trl.trainer.utils")
if not hasattr(trl_utils, "add_fused_lm_head"):  # pragma: no cover - older TRL: nothing to wrap
    pytest.skip("this TRL has no fused LM head", allow_module_level=True)

from transformers import AutoModelForCausalLM, TrainerCallback  # noqa: E402

from rlvr.train.compact_head import (  # noqa: E402
    add_compact_head, compact_trainer_heads, covers, is_compact, labelled_log_probs,
)

OUTPUTS = ("log_probs", "entropy", "is_top1")


def twin_models(path: str, temperature: float) -> tuple:
    """Two copies of the tiny model with TRL's fused head; the second also gets the compact head."""
    torch.manual_seed(0)
    trl_model = AutoModelForCausalLM.from_pretrained(path, dtype=torch.float32)
    compact = copy.deepcopy(trl_model)
    for model in (trl_model, compact):
        trl_utils.add_fused_lm_head(model, temperature=temperature, outputs=OUTPUTS)
    assert add_compact_head(compact, temperature=temperature, outputs=OUTPUTS)
    return trl_model, compact


def batch() -> dict:
    """Left padding on row 0, a prompt on every row, and row 2 with no labelled token at all."""
    generator = torch.Generator().manual_seed(1)
    ids = torch.randint(0, 1000, (3, 40), generator=generator)
    attention = torch.ones_like(ids)
    attention[0, :10] = 0
    labels = ids.masked_fill(attention == 0, -100)
    labels[:, :25] = -100
    labels[2] = -100
    return {"input_ids": ids, "attention_mask": attention, "labels": labels}


@pytest.mark.parametrize("temperature", [1.0, 0.7])
def test_outputs_and_gradients_match_trls_fused_head(tiny_model, temperature):
    trl_model, compact = twin_models(tiny_model, temperature)
    inputs = batch()
    expected = trl_model(**inputs, fused_lm_head=True)
    got = compact(**inputs, fused_lm_head=True)
    for name in OUTPUTS:
        assert getattr(got, name).shape == getattr(expected, name).shape
    assert torch.allclose(got.log_probs, expected.log_probs, atol=1e-5)
    assert torch.allclose(got.entropy, expected.entropy, atol=1e-4)
    assert torch.equal(got.is_top1, expected.is_top1)
    assert torch.equal(got.label_mask, expected.label_mask)
    assert not got.label_mask[2].any() and float(got.log_probs[2].detach().abs().sum()) == 0.0
    assert float(got.loss.detach()) == pytest.approx(float(expected.loss.detach()), rel=1e-6)
    (expected.loss + expected.entropy.sum()).backward()
    (got.loss + got.entropy.sum()).backward()
    for (name, a), (_, b) in zip(trl_model.named_parameters(), compact.named_parameters()):
        assert torch.allclose(a.grad, b.grad, atol=1e-5), name


def test_a_batch_without_labels_is_a_differentiable_zero(tiny_model):
    _, compact = twin_models(tiny_model, 1.0)
    inputs = batch()
    inputs["labels"] = torch.full_like(inputs["labels"], -100)
    out = compact(**inputs, fused_lm_head=True)
    assert float(out.loss.detach()) == 0.0
    out.loss.backward()  # connected to the graph: no "does not require grad" error


def test_without_the_fused_flag_the_forward_is_the_models(tiny_model):
    trl_model, compact = twin_models(tiny_model, 1.0)
    inputs = batch()
    with torch.no_grad():
        expected = trl_model(input_ids=inputs["input_ids"], attention_mask=inputs["attention_mask"]).logits
        got = compact(input_ids=inputs["input_ids"], attention_mask=inputs["attention_mask"]).logits
    assert torch.equal(got, expected)


def test_row_blocks_do_not_change_the_result():
    generator = torch.Generator().manual_seed(2)
    hidden = torch.randn(10, 8, generator=generator)
    weight = torch.randn(50, 8, generator=generator)
    targets = torch.randint(0, 50, (10,), generator=generator)
    whole = labelled_log_probs(hidden, weight, None, targets, outputs=OUTPUTS, row_block=64)
    blocks = labelled_log_probs(hidden, weight, None, targets, outputs=OUTPUTS, row_block=3)
    reference = torch.log_softmax(hidden @ weight.T, -1).gather(1, targets[:, None]).squeeze(1)
    assert torch.allclose(whole["log_probs"], reference, atol=1e-6)
    for name in OUTPUTS:
        assert torch.allclose(whole[name].float(), blocks[name].float(), atol=1e-6)
    empty = labelled_log_probs(hidden[:0], weight, None, targets[:0], outputs=OUTPUTS)
    assert all(x.numel() == 0 for x in empty.values()) and empty["is_top1"].dtype == torch.bool


def test_a_model_without_trls_fused_head_is_left_alone(tiny_model):
    model = AutoModelForCausalLM.from_pretrained(tiny_model)
    assert add_compact_head(model) is False and "forward" not in vars(model) and not is_compact(model)


def test_scaled_logits_keep_trls_path(tiny_model):
    model = AutoModelForCausalLM.from_pretrained(tiny_model)
    model.config.final_logit_softcapping = 30.0
    assert not covers(model)
    trl_utils.add_fused_lm_head(model)
    forward = model.forward
    assert add_compact_head(model) is False and model.forward == forward and not is_compact(model)


def test_trainer_heads_cover_the_policy_under_peft_and_the_reference_model(tiny_model):
    from types import SimpleNamespace

    from peft import LoraConfig, get_peft_model

    from rlvr.models import quiet_checkpointing_aliases

    policy, ref = (AutoModelForCausalLM.from_pretrained(tiny_model) for _ in range(2))
    trl_utils.add_fused_lm_head(policy, temperature=0.7, outputs=("log_probs", "entropy"))
    trl_utils.add_fused_lm_head(ref, temperature=0.7)
    with quiet_checkpointing_aliases():
        wrapped = get_peft_model(policy, LoraConfig(r=4, target_modules=["q_proj"], task_type="CAUSAL_LM"))
    trainer = SimpleNamespace(model=wrapped, ref_model=ref)
    assert compact_trainer_heads(trainer, temperature=0.7, outputs=("log_probs", "entropy"))
    assert is_compact(wrapped) and is_compact(ref)
    inputs = batch()
    expected_ref = AutoModelForCausalLM.from_pretrained(tiny_model)
    trl_utils.add_fused_lm_head(expected_ref, temperature=0.7)
    with torch.no_grad():
        got = ref(**inputs, fused_lm_head=True).log_probs
        expected = expected_ref(**inputs, fused_lm_head=True).log_probs
    assert torch.allclose(got, expected, atol=1e-5)  # the reference model's temperature is applied too


class _SeesTheModel(TrainerCallback):
    """Records, at the start of training, whether the trainer's model has the compact head."""

    def __init__(self) -> None:
        self.compact: bool | None = None

    def on_train_begin(self, args, state, control, model=None, **kwargs):
        self.compact = is_compact(model)


@pytest.mark.slow
def test_sft_and_grpo_trainers_use_it_on_cpu(tiny_model, tmp_path, make_recipe):
    from peft import LoraConfig

    from rlvr.train.recipe import parse_recipe
    from rlvr.train.runner import train
    from rlvr.train.sft import SFTArguments, build_sft_dataset, run_sft

    ds, _ = build_sft_dataset("mol.count:1", 2, split="train", seed=0, system_prompt="Answer as JSON.")
    seen = _SeesTheModel()
    lora = LoraConfig(r=4, lora_alpha=8, target_modules=["q_proj", "v_proj"], task_type="CAUSAL_LM")
    run_sft(tiny_model, ds, SFTArguments(sft_steps=1, sft_train_size=2, sft_batch_size=2), output_dir=str(tmp_path / "sft"),
            peft_config=lora, use_cpu=True, merge=False, callbacks=[seen])
    assert seen.compact is True

    recipe = make_recipe(tmp_path / "r.yaml", tiny_model, tmp_path / "out", max_steps=1, save_strategy="no")
    parsed = parse_recipe(["--config", str(recipe)])
    task, training, model = parsed.task, parsed.training, parsed.model
    seen = _SeesTheModel()
    train(task, training, model, callbacks=[seen])
    assert seen.compact is True
