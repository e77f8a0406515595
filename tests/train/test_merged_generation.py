"""Sampling from a merged copy of the policy gives what sampling through the PEFT model gives, also after
the adapter changed, and the GRPO trainer uses it only for generation."""
from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")


def _peft_model(tiny_model, seed=0, kv_heads=None):
    from peft import LoraConfig, get_peft_model
    from transformers import AutoModelForCausalLM

    torch.manual_seed(seed)
    model = AutoModelForCausalLM.from_pretrained(tiny_model)
    peft = get_peft_model(model, LoraConfig(r=4, lora_alpha=8, target_modules=["q_proj", "k_proj", "v_proj", "o_proj",
                                                                                 "gate_proj", "up_proj", "down_proj"]))
    with torch.no_grad():  # a non-zero adapter (LoRA's B starts at zero)
        for name, param in peft.named_parameters():
            if "lora_B" in name:
                param.normal_(0.0, 0.05)
    return peft


def _greedy(model, ids):
    with torch.no_grad():
        return model.generate(input_ids=ids, attention_mask=torch.ones_like(ids), max_new_tokens=12, do_sample=False,
                              pad_token_id=0)


def test_the_copy_equals_the_peft_model_before_and_after_an_update(tiny_model):
    from rlvr.train.merged_generation import MergedCopy, adapted_modules

    peft = _peft_model(tiny_model)
    ids = torch.tensor([[1, 5, 9, 14, 3], [2, 7, 7, 8, 11]])
    copy = MergedCopy(peft)
    assert len(adapted_modules(peft)) == 2 * 7 and not any(p.requires_grad for p in copy.model.parameters())
    with torch.no_grad():
        assert torch.allclose(copy.model(ids).logits, peft(ids).logits, atol=1e-5)
    assert torch.equal(_greedy(copy.model, ids), _greedy(peft, ids))
    # an optimizer step on the adapter: the stale copy differs, the refreshed one matches again
    optim = torch.optim.SGD([p for p in peft.parameters() if p.requires_grad], lr=5.0)
    peft(ids).logits.sum().backward()
    optim.step()
    with torch.no_grad():
        assert not torch.allclose(copy.model(ids).logits, peft(ids).logits, atol=1e-3)
        copy.refresh(version=1)
        assert torch.allclose(copy.model(ids).logits, peft(ids).logits, atol=1e-5)
    assert torch.equal(_greedy(copy.model, ids), _greedy(peft, ids))
    # a refresh at the same version is skipped; the base weights were never touched
    before = {n: p.clone() for n, p in copy.model.named_parameters()}
    copy.refresh(version=1)
    assert all(torch.equal(before[n], p) for n, p in copy.model.named_parameters())


def test_sampling_is_the_same_as_through_the_peft_model(tiny_model):
    from rlvr.train.merged_generation import MergedCopy

    peft = _peft_model(tiny_model, seed=1)
    copy = MergedCopy(peft)
    ids = torch.tensor([[4, 9, 2, 6]] * 3)
    outs = []
    for model in (peft, copy.model):
        torch.manual_seed(7)
        with torch.no_grad():
            outs.append(model.generate(input_ids=ids, attention_mask=torch.ones_like(ids), max_new_tokens=10,
                                       do_sample=True, temperature=1.0, pad_token_id=0))
    assert torch.equal(*outs)


def test_the_grpo_trainer_samples_from_the_copy_and_trains_the_adapter(tiny_model, tmp_path, make_recipe):
    from transformers import TrainerCallback

    from rlvr.device import Device
    from rlvr.train.recipe import parse_recipe
    from rlvr.train.runner import build_trainer

    recipe = parse_recipe(["--config", str(make_recipe(tmp_path / "r.yaml", tiny_model, tmp_path / "out")),
                           "--generate_merged", "true", "--lora_layers", "top:1", "--max_steps", "2",
                           "--sampling_draw", "block_race"], device=Device("cpu"))
    seen = []

    class Watch(TrainerCallback):
        def on_step_end(self, args, state, control, model=None, **kwargs):
            merged = trainer._rlvr_merged
            seen.append((merged is not None, merged.version if merged else None))

    trainer = build_trainer(recipe.task, recipe.training, recipe.model, callbacks=[Watch()], adapter=recipe.adapter)
    assert trainer.rlvr_merged_generation
    trainer.train()
    assert seen == [(True, 0), (True, 1)]  # built at the first generation, refreshed once per optimizer step
    assert trainer._rlvr_merged.model.generate.rlvr_draw == "block_race"  # the recipe's draw
    trainable = [n for n, p in trainer.model.named_parameters() if p.requires_grad]
    assert trainable and all(".layers.1." in n for n in trainable)


def test_the_copy_runs_the_plain_forward_in_its_own_dtype(tiny_model):
    from rlvr.train.merged_generation import MergedCopy, sampling_dtype

    peft = _peft_model(tiny_model, seed=2)
    base = peft.get_base_model()
    base.forward = lambda *a, **k: (_ for _ in ()).throw(AssertionError("a trainer's patched forward"))
    base._rlvr_compact_head = True
    copy = MergedCopy(peft, dtype=torch.bfloat16)
    assert "forward" not in vars(copy.model) and not hasattr(copy.model, "_rlvr_compact_head")
    assert "forward" in vars(base)  # the policy keeps its own
    assert copy.model.dtype == torch.bfloat16 and copy.model.config.use_cache
    ids = torch.tensor([[1, 5, 9, 14]])
    assert _greedy(copy.model, ids).shape == (1, 16)

    class Args:
        use_cpu, bf16 = True, True

    assert sampling_dtype(Args) == torch.bfloat16
    Args.bf16 = False
    assert sampling_dtype(Args) is None


def test_fixed_shape_sampling_equals_plain_sampling_and_compiles_once(tiny_model, graph_counter):
    from transformers import GenerationConfig

    from rlvr.generation.draw import drawn_generate
    from rlvr.generation.fixed_shape import FixedShapeDecoder, compile_config, fixed_shape_generate
    from rlvr.train.merged_generation import MergedCopy

    # both draw by the block race, as the trainer's merged copy does (the draw first, the fixed shapes around it)
    plain = drawn_generate(MergedCopy(_peft_model(tiny_model, seed=3)).model)
    fixed = drawn_generate(MergedCopy(_peft_model(tiny_model, seed=3)).model)
    counter = graph_counter
    fixed_shape_generate(fixed, FixedShapeDecoder(fixed, pad_token_id=0, compile=compile_config(counter)))
    # TRL's call: sampling, compilation turned off, a fixed number of rows, prompts of changing length
    config = GenerationConfig(max_new_tokens=6, do_sample=True, temperature=1.0, pad_token_id=0, disable_compile=True)
    for length in (5, 9, 3):
        ids = torch.randint(3, 200, (4, length), generator=torch.Generator().manual_seed(length))
        mask = torch.ones_like(ids)
        mask[0, :2] = 0  # one left-padded row
        outs = []
        for model in (plain, fixed):
            torch.manual_seed(11)
            with torch.no_grad():
                outs.append(model.generate(input_ids=ids, attention_mask=mask, generation_config=config))
        assert torch.equal(outs[1], outs[0]) and len(set(outs[1][:, length:].flatten().tolist())) > 3
        assert not outs[1].is_inference()  # usable in the loss's backward pass
    assert counter.graphs == 1 and fixed.generate.decoder.caches_built == 1


def test_the_grpo_trainer_samples_through_fixed_shapes(tiny_model, tmp_path, make_recipe):
    from rlvr.device import Device
    from rlvr.train.recipe import parse_recipe
    from rlvr.train.runner import build_trainer

    config = str(make_recipe(tmp_path / "r.yaml", tiny_model, tmp_path / "out"))
    recipe = parse_recipe(["--config", config, "--generate_merged", "true", "--compile_generation", "true",
                           "--lora_layers", "top:1", "--max_steps", "2"], device=Device("cpu"))
    trainer = build_trainer(recipe.task, recipe.training, recipe.model, adapter=recipe.adapter)
    assert trainer.rlvr_fixed_shape_generation
    trainer.train()
    decoder = trainer._rlvr_merged.model.generate.decoder
    assert decoder.caches_built == 1 and decoder.rows == trainer.args.generation_batch_size
    assert trainer.state.global_step == 2
    with pytest.raises(ValueError, match="generate_merged: true as well"):
        parse_recipe(["--config", config, "--compile_generation", "true"], device=Device("cpu"))


@pytest.mark.parametrize("draw", ["block_race", "multinomial"])
def test_the_grpo_trainer_draws_as_the_recipe_says_without_a_merged_copy(tiny_model, tmp_path, make_recipe, draw):
    from rlvr.device import Device
    from rlvr.train.recipe import parse_recipe
    from rlvr.train.runner import build_trainer

    recipe = parse_recipe(["--config", str(make_recipe(tmp_path / "r.yaml", tiny_model, tmp_path / "out")),
                           "--sampling_draw", draw, "--max_steps", "1"], device=Device("cpu"))
    trainer = build_trainer(recipe.task, recipe.training, recipe.model, adapter=recipe.adapter)
    trainer.train()
    policy = trainer.accelerator.unwrap_model(trainer.model)
    assert getattr(policy.generate, "rlvr_draw", None) == (draw if draw == "block_race" else None)
    assert trainer.state.global_step == 1


@pytest.mark.parametrize("merged", [True, False])
def test_the_grpo_trainer_decodes_compactly_when_the_recipe_says(tiny_model, tmp_path, make_recipe, merged):
    from rlvr.device import Device
    from rlvr.train.recipe import parse_recipe
    from rlvr.train.runner import build_trainer

    config = str(make_recipe(tmp_path / "r.yaml", tiny_model, tmp_path / "out"))
    recipe = parse_recipe(["--config", config, "--compact_decoding", "true", "--sampling_draw", "block_race",
                           "--generate_merged", str(merged).lower(), "--max_steps", "1"], device=Device("cpu"))
    trainer = build_trainer(recipe.task, recipe.training, recipe.model, adapter=recipe.adapter)
    trainer.train()
    sampler = trainer._rlvr_merged.model if merged else trainer.accelerator.unwrap_model(trainer.model)
    assert sampler.generate.rlvr_compact == "block_race"
    assert sampler.generate.decoder.prefilled > 0  # TRL's calls went through the compact loop
    assert trainer.state.global_step == 1
    if merged:
        with pytest.raises(ValueError, match="choose one of compile_generation"):
            parse_recipe(["--config", config, "--compact_decoding", "true", "--generate_merged", "true",
                          "--compile_generation", "true"], device=Device("cpu"))
