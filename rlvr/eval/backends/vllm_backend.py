"""The ``vllm`` backend (optional extra ``rlvr-chem[vllm]``, GPU)."""
from __future__ import annotations

from typing import Any

from rlvr.eval.backends.base import Backend, BackendUnavailable, Completion
from rlvr.models import resolve_model
from rlvr.task import Task


class VLLMBackend(Backend):
    """Generates with ``vllm.LLM.chat`` (chat template applied by vLLM), LoRA through ``LoRARequest``."""

    name = "vllm"

    def __init__(
        self,
        model: str = "default",
        *,
        adapter: str | None = None,
        dtype: str = "auto",
        max_new_tokens: int = 256,
        temperature: float = 0.0,
        top_p: float = 0.95,
        seed: int = 0,
    ) -> None:
        super().__init__()
        try:
            import vllm
        except ImportError as exc:
            raise BackendUnavailable(
                "the vllm backend needs the vllm package (GPU): pip install 'rlvr-chem[vllm]'; "
                "on CPU use --backend transformers"
            ) from exc
        self.model_name = model
        self.model_path = resolve_model(model)
        self.adapter = adapter
        self._vllm = vllm
        self.llm = vllm.LLM(model=self.model_path, dtype=dtype, seed=int(seed), enable_lora=bool(adapter))
        self.max_new_tokens = int(max_new_tokens)
        self.temperature = float(temperature)
        self.top_p = float(top_p) if temperature > 0 else 1.0
        self.seed = int(seed)

    def _generate(self, tasks: list[Task], samples: int) -> list[list[Completion]]:
        params = self._vllm.SamplingParams(
            n=samples, temperature=self.temperature, top_p=self.top_p, max_tokens=self.max_new_tokens, seed=self.seed,
        )
        kwargs: dict[str, Any] = {}
        if self.adapter:
            from vllm.lora.request import LoRARequest

            kwargs["lora_request"] = LoRARequest("adapter", 1, self.adapter)
        outputs = self.llm.chat([t.prompt for t in tasks], params, use_tqdm=False, **kwargs)
        return [[Completion(o.text, n_tokens=len(o.token_ids)) for o in out.outputs] for out in outputs]

    def describe(self) -> dict[str, Any]:
        return {"backend": self.name, "model": self.model_name, "model_path": self.model_path, "adapter": self.adapter}
