"""The ``transformers`` backend: batched generation with left padding, chat template, optional LoRA adapter."""
from __future__ import annotations

import logging
import math
import time
from contextlib import contextmanager
from typing import Any, Iterator, Sequence

from rlvr.device import cuda_devices_in_use, resolve_device
from rlvr.eval.backends.base import Backend, BackendUnavailable, Completion
from rlvr.generation.compact import compact_generate
from rlvr.generation.decoding import DECODINGS
from rlvr.generation.draw import check_draw, drawn_generate
from rlvr.generation.fixed_shape import FixedShapeDecoder, compile_config
from rlvr.generation.grouped_attention import set_attention
from rlvr.models import load_model_and_tokenizer, quiet_checkpointing_aliases, resolve_model
from rlvr.rng import stable_hash
from rlvr.task import Task

log = logging.getLogger(__name__)

#: new tokens forced in the decoding-step calibration of :meth:`TransformersBackend.estimate_seconds`
CALIBRATION_TOKENS = 5
#: prompt tokens per row kept there (a full-length row's KV cache is added by ``_kv_factor``)
CALIBRATION_PROMPT_TOKENS = 16


def render_prompt(tokenizer: Any, messages: list[dict[str, str]], chat_template: bool = True) -> str:
    """The prompt text: the tokenizer's chat template with a generation prompt, or plain text without one."""
    if chat_template and getattr(tokenizer, "chat_template", None):
        return tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
    return "\n\n".join(m.get("content", "") for m in messages) + "\n\n"


def prepare_for_generation(model: Any) -> Any:
    """``model`` set up for fast generation: eval mode, gradient checkpointing off, KV cache on.

    Gradient checkpointing with the model in training mode makes transformers drop the KV cache
    (every decoding step recomputes the whole sequence), and a checkpoint saved from such a run may
    carry ``use_cache: false`` in its config; both are undone here.
    """
    with quiet_checkpointing_aliases():
        if getattr(model, "is_gradient_checkpointing", False):
            disable = getattr(model, "gradient_checkpointing_disable", None)
            if callable(disable):
                disable()
    model.eval()
    config = getattr(model, "config", None)
    if config is not None and hasattr(config, "use_cache"):
        config.use_cache = True
    generation_config = getattr(model, "generation_config", None)
    if generation_config is not None:
        generation_config.use_cache = True
    return model


class TransformersBackend(Backend):
    """Generates with ``model.generate`` on CPU or GPU.

    ``threads`` sets torch's intra-op thread count (``torch.set_num_threads``) for this process.
    ``model`` is a local folder, a hub id (where a hub is reachable) or ``default`` (the embedded
    SmolLM2-135M-Instruct, via :func:`rlvr.models.resolve_model`). Decoding is greedy at
    temperature 0; otherwise sampling is seeded per batch from ``seed`` and the batch's task ids,
    with the global torch RNG restored afterwards. The model is prepared for generation
    (:func:`prepare_for_generation`; an adapter is merged into the weights). ``decoding``: one of
    :data:`DECODINGS` (``static_cache=True`` is ``static``); the static ones compile the decoding step
    (``torch.compile``) on CUDA, and on any device with ``compile_backend`` (e.g. ``"eager"``). ``attention``:
    the model's attention implementation (:data:`rlvr.generation.grouped_attention.ATTENTION_CHOICES`; default its own).
    ``compact``: rlvr's decoding loop (:mod:`rlvr.generation.compact`): the same greedy computation with rows leaving
    the batch as they finish, about 0.8x the time of a greedy CPU evaluation; sampled calls draw another stream.
    ``draw``: how a sampled token is drawn (:mod:`rlvr.generation.draw`: transformers' ``multinomial``, or
    ``block_race``, an exponential race over blocks of the vocabulary and within the winning one); greedy
    decoding draws nothing.
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
        static_cache: bool = False,
        merge_adapter: bool = True,
        decoding: str = "dynamic",
        attention: str | None = None,
        compile_backend: Any = None,
        draw: str = "multinomial",
    ) -> None:
        super().__init__()
        decoding = "static" if static_cache and decoding == "dynamic" else decoding
        if decoding not in DECODINGS:
            raise ValueError(f"unknown decoding {decoding!r}; choose one of {list(DECODINGS)}")
        check_draw(draw)
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
        resolved = resolve_device(device, dtype)  # a command passes a resolved device; "auto" is resolved here
        self.device, dtype = resolved.name, resolved.dtype
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
                model_obj = PeftModel.from_pretrained(model_obj, adapter)
                if merge_adapter:  # False only to measure what merging buys
                    model_obj = model_obj.merge_and_unload()
        self.adapter = adapter
        self.attention = attention
        prepared = prepare_for_generation(set_attention(model_obj, attention).to(self.device))
        # compact decoding draws sampled tokens itself; every other decoding through transformers' generate
        self.model = compact_generate(prepared, draw) if decoding == "compact" else drawn_generate(prepared, draw)
        self.overlap_verification = self.device.startswith("cuda")  # the host verifies while the GPU decodes
        self._prompt_ids: dict[Any, list[int]] = {}  # token ids from prompt_lengths, used once by _encode
        self.decoding = decoding
        self.static_cache = decoding == "static"
        self._compile = compile_config(compile_backend)
        self.decoder = (FixedShapeDecoder(self.model, pad_token_id=tokenizer.pad_token_id, compile=self._compile)
                        if decoding == "fixed" else None)
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
            use_cache=True,
        )
        if self.static_cache:
            # a fixed-shape KV cache; transformers compiles the forward pass for it on CUDA (elsewhere with a backend)
            kwargs["cache_implementation"] = "static"
            kwargs["compile_config"] = self._compile
        if self.temperature > 0:
            kwargs.update(do_sample=True, temperature=self.temperature, top_p=self.top_p)
        else:
            kwargs.update(do_sample=False)
        return GenerationConfig(**kwargs)

    def _prompt_key(self, task: Task) -> Any:
        return task.id, tuple((m.get("role"), m.get("content")) for m in task.prompt)

    def _tokenize(self, tasks: Sequence[Task]) -> list[list[int]]:
        texts = [render_prompt(self.tokenizer, t.prompt, self.chat_template) for t in tasks]
        return self.tokenizer(texts, add_special_tokens=False)["input_ids"]

    def prompt_lengths(self, tasks: Sequence[Task]) -> list[int]:
        """Each task's prompt length in tokens (as rendered for generation): what batching sorts on. The token
        ids are kept for the task's next :meth:`_encode`, so a prompt is rendered and tokenized once."""
        ids = self._tokenize(tasks)
        self._prompt_ids.update((self._prompt_key(t), row) for t, row in zip(tasks, ids))
        return [len(row) for row in ids]

    def _encode(self, tasks: Sequence[Task], *, keep: bool = False) -> Any:
        """The batch's prompts, rendered, tokenized and left-padded, on the model's device; the token ids
        :meth:`prompt_lengths` kept are used up, unless ``keep`` (a calibration before the real batch)."""
        keys = [self._prompt_key(t) for t in tasks]
        take = self._prompt_ids.get if keep else self._prompt_ids.pop
        kept = [take(k, None) for k in keys]
        missing = [t for t, row in zip(tasks, kept) if row is None]
        fresh = iter(self._tokenize(missing) if missing else [])
        ids = [row if row is not None else next(fresh) for row in kept]
        return self.tokenizer.pad({"input_ids": ids}, padding=True, return_tensors="pt").to(self.device)

    def _generated_lengths(self, new: Any) -> list[int]:
        """Tokens each row generated: up to and including its first EOS, else up to its first pad, else all."""
        torch = self._torch
        if new.shape[1] == 0:
            return [0] * new.shape[0]
        eos, pad = self.tokenizer.eos_token_id, self.tokenizer.pad_token_id
        at_eos = new == eos if eos is not None else torch.zeros_like(new, dtype=torch.bool)
        stop = at_eos | (new == pad) if pad is not None and pad != eos else at_eos
        first = stop.int().argmax(dim=1)
        ends = first + at_eos.gather(1, first[:, None])[:, 0].int()
        return torch.where(stop.any(dim=1), ends, torch.full_like(ends, new.shape[1])).tolist()

    @contextmanager
    def _rng_kept(self) -> Iterator[None]:
        """Restore torch's global CPU RNG state, and that of every CUDA device in use, on exit: generation
        leaves no trace in them (``torch.random.fork_rng``; CUDA devices only once CUDA is initialised)."""
        torch = self._torch
        with torch.random.fork_rng(devices=cuda_devices_in_use()):
            yield

    def _generate(self, tasks: list[Task], samples: int) -> list[list[Completion]]:
        torch = self._torch
        if samples > 1 and self.temperature == 0:
            log.warning("%d samples with greedy decoding give identical rollouts; set a temperature", samples)
        enc = self._encode(tasks)
        gen_config = self._generation_config(samples)
        with self._rng_kept():
            torch.manual_seed(stable_hash("rlvr-eval", self.seed, *[t.id for t in tasks]) % (2**63))
            if self.decoder is not None:
                new = self.decoder.generate(enc["input_ids"], enc["attention_mask"], gen_config).cpu()
            else:
                with torch.inference_mode():
                    out = self.model.generate(**enc, generation_config=gen_config)
                new = out[:, enc["input_ids"].shape[1]:].cpu()
        lengths = self._generated_lengths(new)
        rows = new.tolist()
        texts = self.tokenizer.batch_decode([row[:n] for row, n in zip(rows, lengths)], skip_special_tokens=True)
        completions = [Completion(text, n_tokens=n) for text, n in zip(texts, lengths)]
        return [completions[i * samples:(i + 1) * samples] for i in range(len(tasks))]

    def estimate_seconds(self, tasks: Sequence[Task], samples: int, batch_size: int) -> float | None:
        """``n_batches x (prefill + max_new_tokens x step)`` seconds, calibrated on the first batch's prompts.

        Three short greedy generations (about a second for SmolLM2-135M on CPU): a warm-up; the
        longest prompt alone for one token, whose time times the batch's rows is the prefill (the
        batch's rows are padded to that length); and every row of the batch, cut to its last
        :data:`CALIBRATION_PROMPT_TOKENS` tokens, for :data:`CALIBRATION_TOKENS` forced tokens, whose
        median step time, scaled up for the KV cache of a full-length row, is the decoding step.
        Every batch counts as long as the first (the longest prompts, in run_eval's order) and as if
        it ran to ``max_new_tokens``. Nothing is seeded or kept: the completions do not change.
        """
        if not tasks:
            return 0.0
        batch_size = max(1, int(batch_size))
        enc = self._encode(list(tasks[:batch_size]), keep=True)  # the first batch still generates from these ids
        n_rows, length = enc["input_ids"].shape[0] * int(samples), int(enc["input_ids"].shape[1])
        longest = int(enc["attention_mask"].sum(dim=1).argmax())
        one = {k: v[longest:longest + 1] for k, v in enc.items()}
        self._timed_steps({k: v[:, -8:] for k, v in one.items()}, 1)  # warm-up: first-call costs are not per batch
        prefill = self._timed_steps(one, 1)[0] * n_rows
        short = {k: v[:, -CALIBRATION_PROMPT_TOKENS:].repeat_interleave(int(samples), dim=0) for k, v in enc.items()}
        steps = sorted(self._timed_steps(short, CALIBRATION_TOKENS)[1:])
        step = steps[len(steps) // 2] * self._kv_factor(n_rows, length + self.max_new_tokens)
        return math.ceil(len(tasks) / batch_size) * (prefill + self.max_new_tokens * step)

    def _timed_steps(self, rows: dict[str, Any], new_tokens: int) -> list[float]:
        """Seconds to each of exactly ``new_tokens`` greedy tokens for every row: the first includes the prefill,
        the last ends when ``generate`` has returned (and the GPU has finished)."""
        from transformers import GenerationConfig, StoppingCriteria, StoppingCriteriaList

        torch = self._torch
        stamps: list[float] = []

        class Clock(StoppingCriteria):
            def __call__(self, input_ids: Any, scores: Any, **kwargs: Any) -> Any:
                stamps.append(time.perf_counter())
                return input_ids.new_zeros(input_ids.shape[0], dtype=torch.bool)

        config = GenerationConfig(max_new_tokens=new_tokens, min_new_tokens=new_tokens, do_sample=False,
                                  pad_token_id=self.tokenizer.pad_token_id, eos_token_id=self.tokenizer.eos_token_id)
        with self._rng_kept(), torch.inference_mode():
            t0 = time.perf_counter()
            self.model.generate(**rows, generation_config=config, stopping_criteria=StoppingCriteriaList([Clock()]))
            if self.device.startswith("cuda"):
                torch.cuda.synchronize(self.device)
            stamps[-1] = time.perf_counter()
        return [b - a for a, b in zip([t0, *stamps], stamps)]

    def _kv_factor(self, n_rows: int, context: int) -> float:
        """How much slower a decoding step is with ``n_rows`` KV caches of ``context`` tokens than without:
        1 + their bytes / the weights' bytes (a step reads both; 1 when the config does not say)."""
        config = getattr(self.model, "config", None)
        layers = getattr(config, "num_hidden_layers", None)
        query_heads = getattr(config, "num_attention_heads", None)
        heads = getattr(config, "num_key_value_heads", None) or query_heads
        head_dim = getattr(config, "head_dim", None) or (getattr(config, "hidden_size", 0) // query_heads if query_heads else None)
        params = list(self.model.parameters())
        if not (layers and heads and head_dim and params):
            return 1.0
        weights = sum(p.numel() * p.element_size() for p in params)
        kv = 2 * layers * heads * head_dim * params[0].element_size() * n_rows * context
        return 1.0 + kv / weights

    def describe(self) -> dict[str, Any]:
        return {
            "backend": self.name, "model": self.model_name, "model_path": self.model_path, "adapter": self.adapter,
            "device": self.device, "dtype": self.dtype, "parameters": sum(p.numel() for p in self.model.parameters()),
            "static_cache": self.static_cache, "decoding": self.decoding, "attention": self.attention,
        }

    def close(self) -> None:
        self.model = None
