"""RL sampling from a merged copy of the policy: no LoRA branch per projection and per decoded token.

TRL samples GRPO/RLOO completions through the PEFT model, so every adapted projection runs its base matmul,
two small LoRA matmuls and an elementwise scale and add for every decoded token. :class:`MergedCopy` keeps a
plain copy of the model whose adapted weights are ``W + delta`` (PEFT's ``get_delta_weight``: ``B @ A``
times the adapter's scale), recomputed from the live base weight and adapter before every generation in
which the adapter changed, so the copy never drifts from the policy (every refresh starts again from ``W``).
:class:`MergedGenerationHooks` (a trainer mixin) swaps the copy in for TRL's generation call only; the loss,
the reference model and the optimizer see the PEFT model as before. One process, transformers generation
(no vLLM, no sharded model); anything else keeps TRL's own path.
"""
from __future__ import annotations

import copy
from contextlib import contextmanager
from typing import Any, Iterator

from rlvr.generation.compact import compact_generate
from rlvr.generation.draw import drawn_generate
from rlvr.generation.fixed_shape import FixedShapeDecoder, compile_config, fixed_shape_generate


def adapted_modules(peft_model: Any) -> dict[str, Any]:
    """``{name: module}`` of the PEFT model's LoRA-adapted layers, by their name in the base model."""
    from peft.tuners.lora import LoraLayer

    base = peft_model.get_base_model()
    return {name: module for name, module in base.named_modules() if isinstance(module, LoraLayer)}


class MergedCopy:
    """A plain copy of a PEFT model with its active adapter merged, refreshed by :meth:`refresh`; ``dtype``: the
    copy's (e.g. bfloat16 where the loss runs in bfloat16 autocast over float32 weights; default the model's)."""

    def __init__(self, peft_model: Any, dtype: Any = None) -> None:
        import torch

        self.source = peft_model
        self.adapter = peft_model.active_adapter
        with torch.no_grad():
            self.model = copy.deepcopy(peft_model).merge_and_unload()
            if dtype is not None:
                self.model.to(dtype)
        unpatched(self.model)
        self.model.eval()
        self.model.config.use_cache = self.model.generation_config.use_cache = True
        for param in self.model.parameters():
            param.requires_grad_(False)
        self._targets = {name: self.model.get_submodule(name) for name in adapted_modules(peft_model)}
        self.version: Any = None

    def refresh(self, version: Any = None) -> None:
        """Recompute every adapted weight as the live ``base + delta`` (skipped when ``version`` was the last one)."""
        import torch

        if version is not None and version == self.version:
            return
        with torch.no_grad():
            for name, module in adapted_modules(self.source).items():
                target = self._targets[name]
                delta = module.get_delta_weight(self.adapter)
                target.weight.copy_(module.get_base_layer().weight + delta.to(target.weight.dtype))
        self.version = version


def sampling_dtype(args: Any) -> Any:
    """The merged copy's dtype: bfloat16 on a CPU run whose loss runs in bfloat16 autocast, else the model's."""
    import torch

    return torch.bfloat16 if getattr(args, "use_cpu", False) and getattr(args, "bf16", False) else None


def unpatched(model: Any) -> Any:
    """``model`` without the per-instance methods trainers install (TRL's fused LM head, rlvr's compact head):
    every module's own attribute that shadows a method of its class is dropped, so generation runs the plain
    forward."""
    for module in model.modules():
        for name in [k for k, v in vars(module).items() if callable(v) and callable(getattr(type(module), k, None))]:
            delattr(module, name)
        vars(module).pop("_rlvr_compact_head", None)
    return model


def can_merge_generation(trainer: Any) -> bool:
    """Whether the trainer's generation may use a merged copy: a PEFT model, one process, no vLLM."""
    from peft import PeftModel

    model = trainer.accelerator.unwrap_model(trainer.model)
    return (isinstance(model, PeftModel) and trainer.accelerator.num_processes == 1
            and not getattr(trainer.args, "use_vllm", False))


class MergedGenerationHooks:
    """Mixin for a TRL GRPO/RLOO trainer: set ``rlvr_merged_generation`` True before training to sample from a
    :class:`MergedCopy` (built on first use, refreshed once per optimizer step), and ``rlvr_fixed_shape_generation``
    as well to sample through one kept static cache (:func:`rlvr.generation.fixed_shape.fixed_shape_generate`;
    compiled on a GPU, or anywhere with ``rlvr_generation_compile_backend``). ``rlvr_sampling_draw``: how the
    model TRL samples from draws a token (:func:`rlvr.generation.draw.drawn_generate`; default TRL's own).
    ``rlvr_compact_decoding``: that model decodes TRL's calls with :func:`rlvr.generation.compact.compact_generate`,
    which draws as ``rlvr_sampling_draw`` says."""

    rlvr_sampling_draw: str = "multinomial"
    rlvr_compact_decoding: bool = False
    rlvr_merged_generation: bool = False
    rlvr_fixed_shape_generation: bool = False
    rlvr_generation_compile_backend: Any = None
    _rlvr_merged: MergedCopy | None = None

    def _generate_single_turn(self, *args: Any, **kwargs: Any):  # noqa: D102 - TRL hook
        if not (self.rlvr_merged_generation and self.model.training):
            self._rlvr_sampler(self.accelerator.unwrap_model(self.model))
            return super()._generate_single_turn(*args, **kwargs)
        if self._rlvr_merged is None:
            self._rlvr_merged = MergedCopy(self.accelerator.unwrap_model(self.model), dtype=sampling_dtype(self.args))
            self._rlvr_sampler(self._rlvr_merged.model)
            if self.rlvr_fixed_shape_generation:
                decoder = FixedShapeDecoder(self._rlvr_merged.model, pad_token_id=self.generation_config.pad_token_id,
                                            compile=compile_config(self.rlvr_generation_compile_backend))
                fixed_shape_generate(self._rlvr_merged.model, decoder)
        self._rlvr_merged.refresh(version=self.state.global_step)
        with swapped_generation_model(self, self._rlvr_merged.model):
            return super()._generate_single_turn(*args, **kwargs)

    def _rlvr_sampler(self, model: Any) -> Any:
        """``model`` set to decode and draw as the trainer's options say (installing again changes nothing)."""
        if self.rlvr_compact_decoding:
            return compact_generate(model, self.rlvr_sampling_draw)
        return drawn_generate(model, self.rlvr_sampling_draw)


@contextmanager
def swapped_generation_model(trainer: Any, model: Any) -> Iterator[None]:
    """Inside the block, TRL's generation unwraps ``model`` (``trainer.model_wrapped``); restored on the way out."""
    original = trainer.model_wrapped
    trainer.model_wrapped = model
    try:
        yield
    finally:
        trainer.model_wrapped = original
