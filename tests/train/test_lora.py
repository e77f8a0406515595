"""``lora_layers``: the layers an adapter trains, and the backward pass that stops below them."""
from __future__ import annotations

import pytest

from rlvr.train.lora import AdapterArguments, check_layers_fit, lora_config, num_hidden_layers, parse_layers


def test_layer_specs():
    assert parse_layers(None, 30) is None and parse_layers("all", 30) is None
    assert parse_layers("top:8", 30) == list(range(22, 30))
    assert parse_layers("0-2", 30) == [0, 1, 2] and parse_layers("5,1,5", 30) == [1, 5]
    assert parse_layers("top:2", None) == []  # checked only, resolved once the model is known
    for bad, match in [("top:0", "must be"), ("top:31", "has 30 layers"), ("x", "must be"), ("3-40", "0..29"),
                       ("-1", "must be")]:
        with pytest.raises(ValueError, match=match):
            parse_layers(bad, 30)
    with pytest.raises(ValueError, match="must be"):
        AdapterArguments(lora_layers="top:x")


def test_the_config_places_the_adapter_on_the_top_layers(tiny_model):
    from trl import ModelConfig

    model_args = ModelConfig(model_name_or_path=tiny_model, use_peft=True, lora_r=4, lora_alpha=8,
                             lora_target_modules=["q_proj", "v_proj"])
    assert num_hidden_layers(tiny_model) == 2
    assert lora_config(model_args).layers_to_transform is None
    assert lora_config(model_args, "top:1").layers_to_transform == [1]
    assert lora_config(ModelConfig(model_name_or_path=tiny_model, use_peft=False), "top:1") is None


def test_layer_specs_are_checked_against_the_model_before_training(tiny_model):
    check_layers_fit({"lora_layers": "top:2", "sft_lora_layers": None}, tiny_model)
    check_layers_fit({"lora_layers": None}, "/no/such/model")  # nothing to check: the model is not read
    with pytest.raises(ValueError, match=r"^sft_lora_layers 'top:3': the model has 2 layers$"):
        check_layers_fit({"lora_layers": "1", "sft_lora_layers": "top:3"}, tiny_model)
    with pytest.raises(ValueError, match=r"^lora_layers '0-4': layers must lie in 0..1$"):
        check_layers_fit({"lora_layers": "0-4"}, tiny_model)
    with pytest.raises(ValueError, match=r"^sft_lora_layers must be 'top:N'"):
        check_layers_fit({"sft_lora_layers": "top:x"}, tiny_model)


def test_only_the_top_layers_get_gradients(tiny_model):
    import torch
    from peft import get_peft_model
    from transformers import AutoModelForCausalLM
    from trl import ModelConfig

    model_args = ModelConfig(model_name_or_path=tiny_model, use_peft=True, lora_r=4, lora_alpha=8,
                             lora_target_modules=["q_proj", "v_proj"])
    model = get_peft_model(AutoModelForCausalLM.from_pretrained(tiny_model), lora_config(model_args, "top:1"))
    trainable = [n for n, p in model.named_parameters() if p.requires_grad]
    assert trainable and all(".layers.1." in n for n in trainable)
    model(input_ids=torch.tensor([[1, 2, 3, 4]])).logits.sum().backward()
    assert all(p.grad is not None for n, p in model.named_parameters() if p.requires_grad)
