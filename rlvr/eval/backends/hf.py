"""The ``transformers`` backend: batched generation with left padding, chat template, optional LoRA adapter."""
from __future__ import annotations

import logging
import os
from typing import Any

from rlvr.eval.backends.base import Backend, BackendUnavailable, Completion
from rlvr.models import load_model_and_tokenizer, quiet_checkpointing_aliases, resolve_model
from rlvr.rng import stable_hash
from rlvr.task import Task

log = logging.getLogger(__name__)


def render_prompt(tokenizer: Any, messages: list[dict[str, str]], chat_template: bool = True) -> str:
    """The prompt text: the tokenizer's chat template with a generation prompt, or plain text without one."""
    if chat_template and getattr(tokenizer, "chat_template", None):
        return tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
    return "\n\n".join(m.get("content", "") for m in messages) + "\n\n"


def _pick_device(device: str) -> str:
    if device != "auto":
        return device
    import torch

    if not torch.cuda.is_available():
        return "cpu"
    local_rank = os.environ.get("LOCAL_RANK")
    return f"cuda:{int(local_rank)}" if local_rank and local_rank.isdigit() else "cuda"


class TransformersBackend(Backend):
    """Generates with ``model.generate`` on CPU or GPU.

    ``threads`` sets torch's intra-op thread count (``torch.set_num_threads``) for this process.
    ``model`` is a local folder, a hub id (where a hub is reachable) or ``default`` (the embedded
    SmolLM2-135M-Instruct, via :func:`rlvr.models.resolve_model`). Decoding is greedy at
    temperature 0; otherwise sampling is seeded per batch from ``seed`` and the batch's task ids,
    with the global torch RNG restored afterwards.
    """

    name = "transformers"

    def __init__(
        self,
        model: str = "default",
        *,
        adapter: str | None = None,
        device: str = "auto",
        dtype: str = "auto",
        max_new_tokens: int = 256,
        temperature: float = 0.0,
        top_p: float = 0.95,
        seed: int = 0,
        chat_template: bool = True,
        threads: int | None = None,
    ) -> None:
        super().__init__()
        try:
            import torch
            import transformers  # noqa: F401
        except ImportError as exc:
            raise BackendUnavailable(
                "the transformers backend needs torch and transformers: pip install 'rlvr-chem[train]'"
            ) from exc

        if threads:
            # fewer intra-op threads than cores is much faster when the CPU is shared (OpenMP spin-waits)
            torch.set_num_threads(int(threads))
        self.device = _pick_device(device)
        if dtype == "auto":
            dtype = "bfloat16" if self.device.startswith("cuda") else "float32"
        self.model_name = model
        self.model_path = resolve_model(model)
        self.dtype = dtype
        model_obj, tokenizer = load_model_and_tokenizer(self.model_path, dtype=dtype)
        tokenizer.padding_side = "left"
        if tokenizer.pad_token is None:
            tokenizer.pad_token = tokenizer.eos_token
        if adapter:
            try:
                from peft import PeftModel
            except ImportError as exc:  # pragma: no cover - peft ships with the train extra
                raise BackendUnavailable("--adapter needs peft: pip install 'rlvr-chem[train]'") from exc
            with quiet_checkpointing_aliases():
                # merged into the weights for generation: the same model, without LoRA's extra matmuls per layer
                model_obj = PeftModel.from_pretrained(model_obj, adapter).merge_and_unload()
        self.adapter = adapter
        self.model = model_obj.to(self.device).eval()
        self.tokenizer = tokenizer
        self.max_new_tokens = int(max_new_tokens)
        self.temperature = float(temperature)
        self.top_p = float(top_p)
        self.seed = int(seed)
        self.chat_template = chat_template
        self._torch = torch

    def _generation_config(self, samples: int) -> Any:
        from transformers import GenerationConfig

        kwargs: dict[str, Any] = dict(
            max_new_tokens=self.max_new_tokens,
            num_return_sequences=samples,
            pad_token_id=self.tokenizer.pad_token_id,
            eos_token_id=self.tokenizer.eos_token_id,
        )
        if self.temperature > 0:
            kwargs.update(do_sample=True, temperature=self.temperature, top_p=self.top_p)
        else:
            kwargs.update(do_sample=False)
        return GenerationConfig(**kwargs)

    def _generate(self, tasks: list[Task], samples: int) -> list[list[Completion]]:
        torch = self._torch
        if samples > 1 and self.temperature == 0:
            log.warning("%d samples with greedy decoding give identical rollouts; set a temperature", samples)
        texts = [render_prompt(self.tokenizer, t.prompt, self.chat_template) for t in tasks]
        enc = self.tokenizer(texts, return_tensors="pt", padding=True, add_special_tokens=False).to(self.device)
        gen_config = self._generation_config(samples)
        state = torch.random.get_rng_state()
        cuda_states = torch.cuda.get_rng_state_all() if torch.cuda.is_available() else None
        try:
            torch.manual_seed(stable_hash("rlvr-eval", self.seed, *[t.id for t in tasks]) % (2**63))
            with torch.inference_mode():
                out = self.model.generate(**enc, generation_config=gen_config)
        finally:
            torch.random.set_rng_state(state)
            if cuda_states is not None:
                torch.cuda.set_rng_state_all(cuda_states)
        new = out[:, enc["input_ids"].shape[1]:].cpu()
        results: list[list[Completion]] = []
        eos = self.tokenizer.eos_token_id
        pad = self.tokenizer.pad_token_id
        for i in range(len(tasks)):
            row: list[Completion] = []
            for j in range(samples):
                ids = new[i * samples + j].tolist()
                n = len(ids)
                for pos, tok in enumerate(ids):
                    if tok == eos or (pad is not None and tok == pad and pad != eos):
                        n = pos + 1 if tok == eos else pos
                        break
                text = self.tokenizer.decode(ids[:n], skip_special_tokens=True)
                row.append(Completion(text, n_tokens=n))
            results.append(row)
        return results

    def describe(self) -> dict[str, Any]:
        return {
            "backend": self.name, "model": self.model_name, "model_path": self.model_path, "adapter": self.adapter,
            "device": self.device, "dtype": self.dtype, "parameters": sum(p.numel() for p in self.model.parameters()),
        }

    def close(self) -> None:
        self.model = None
