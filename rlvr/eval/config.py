"""Configuration of an evaluation run (:class:`EvalConfig`) and the fields that pin its results."""
from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rlvr.generation.decoding import DECODINGS
from rlvr.generation.draw import DRAWS
from rlvr.generation.grouped_attention import ATTENTION_CHOICES

#: backends ``rlvr eval --backend`` accepts (``auto``: vllm on a CUDA device when installed, else transformers)
BACKENDS = ("auto", "transformers", "vllm", "openai", "oracle", "copy-input")
#: backends that need no model at all
REFERENCE_BACKENDS = ("oracle", "copy-input")

#: fields that change what a completion would be: a resumed run must agree on all of them
GENERATION_FIELDS = (
    "model", "adapter", "backend", "base_url", "samples", "seed", "max_new_tokens",
    "temperature", "top_p", "chat_template", "dtype", "draw",
)


class EvalConfigError(ValueError):
    """An evaluation was configured inconsistently (bad value, or an out dir from another run)."""


@dataclass
class EvalConfig:
    """Everything that defines an evaluation run.

    ``suite`` names a built-in suite (``stoich``, ``molecules``, ``all``) unless ``tasks_file`` points
    at an exported eval set. ``limit`` caps the tasks per suite entry (a prefix of the fixed set, so a
    limited run is a subset of the full one and a later full run resumes it). ``samples`` is the
    number of rollouts per task (greedy decoding when 1, sampling otherwise). ``backend="auto"`` is
    resolved here (:func:`rlvr.eval.backends.resolve_backend`), so the config always names a real one.
    ``sort_by_length``: batch the tasks longest prompt first (less padding; results come back in task
    order and the greedy text is the same). ``decoding`` (``dynamic``, ``static``, ``fixed``, ``compact``) and
    ``attention``: how the transformers backend keeps its KV cache and which attention it runs (see
    :class:`~rlvr.eval.backends.hf.TransformersBackend`); ``static_cache`` is ``decoding="static"``. ``draw``: how
    the transformers backend draws a sampled token (:data:`rlvr.generation.draw.DRAWS`; ``block_race`` samples
    faster on a CPU, from the same distribution).
    """

    model: str = "default"
    adapter: str | None = None
    suite: str = "all"
    splits: tuple[str, ...] | None = None
    limit: int | None = None
    samples: int = 1
    out: str | None = None
    backend: str = "auto"
    seed: int = 0
    max_new_tokens: int = 256
    batch_size: int = 8
    temperature: float | None = None
    top_p: float = 0.95
    device: str = "auto"
    dtype: str = "auto"
    chat_template: bool = True
    threads: int | None = None
    base_url: str | None = None
    api_key_env: str = "OPENAI_API_KEY"
    request_timeout: float = 120.0
    concurrency: int = 4
    options: dict[str, Any] = field(default_factory=dict)
    tasks_file: str | None = None
    overwrite: bool = False
    progress: bool = True
    plots: bool = True
    sort_by_length: bool = True
    static_cache: bool = False
    decoding: str = "dynamic"
    attention: str | None = None
    draw: str = "multinomial"

    def __post_init__(self) -> None:
        if self.static_cache and self.decoding == "dynamic":
            self.decoding = "static"
        if self.decoding not in DECODINGS:
            raise EvalConfigError(f"unknown decoding {self.decoding!r}; choose one of {list(DECODINGS)}")
        if self.draw not in DRAWS:
            raise EvalConfigError(f"unknown draw {self.draw!r}; choose one of {list(DRAWS)}")
        if self.attention is not None and self.attention not in ATTENTION_CHOICES:
            raise EvalConfigError(f"unknown attention {self.attention!r}; choose one of {list(ATTENTION_CHOICES)}")
        if self.splits is not None:
            self.splits = tuple(self.splits)
        if self.backend not in BACKENDS:
            raise EvalConfigError(f"unknown backend {self.backend!r}; choose one of {list(BACKENDS)}")
        if self.backend == "auto":
            from rlvr.eval.backends import resolve_backend

            self.backend = resolve_backend(self.backend, self.device)
        if self.samples < 1:
            raise EvalConfigError(f"samples must be >= 1, got {self.samples}")
        if self.limit is not None and self.limit < 1:
            raise EvalConfigError(f"limit must be >= 1, got {self.limit}")
        if self.batch_size < 1:
            raise EvalConfigError(f"batch_size must be >= 1, got {self.batch_size}")
        if self.max_new_tokens < 1:
            raise EvalConfigError(f"max_new_tokens must be >= 1, got {self.max_new_tokens}")
        if self.backend == "openai" and not self.base_url:
            raise EvalConfigError("the openai backend needs --base-url (e.g. http://127.0.0.1:8000/v1)")
        if self.temperature is not None and self.temperature < 0:
            raise EvalConfigError(f"temperature must be >= 0, got {self.temperature}")

    @property
    def effective_temperature(self) -> float:
        """0 (greedy) for a single rollout, 0.7 for several, unless set explicitly."""
        if self.temperature is not None:
            return float(self.temperature)
        return 0.0 if self.samples == 1 else 0.7

    def generation_key(self) -> dict[str, Any]:
        """The fields a resumed run must share with the run that wrote the out dir."""
        key = {name: getattr(self, name) for name in GENERATION_FIELDS}
        key["temperature"] = self.effective_temperature
        if self.draw == "multinomial" or self.backend != "transformers" or self.effective_temperature == 0:
            key["draw"] = None  # transformers' own draw (as every run before the field), greedy, another backend
        sampled = self.backend == "transformers" and self.effective_temperature > 0
        if sampled and self.decoding == "compact":
            key["decoding"] = "compact"  # another random stream; greedy text is the same, so it is not keyed there
        if self.backend in REFERENCE_BACKENDS:  # no model: model-related fields do not matter
            for name in ("model", "adapter", "base_url", "max_new_tokens", "temperature", "top_p", "chat_template", "dtype"):
                key[name] = None
        if self.backend != "openai":
            key["base_url"] = None
        if self.adapter:
            key["adapter"] = str(Path(self.adapter).expanduser().resolve())
        return key

    def out_dir(self) -> Path:
        """``out`` or a default derived from the arguments (so a rerun with the same args resumes)."""
        if self.out:
            return Path(self.out)
        source = Path(self.tasks_file).stem if self.tasks_file else self.suite
        model = "none" if self.backend in REFERENCE_BACKENDS else _slug(Path(self.model.rstrip("/")).name or self.model)
        adapter = f"+{_slug(Path(self.adapter.rstrip('/')).name)}" if self.adapter else ""
        return Path("runs") / "eval" / f"{_slug(source)}-{model}{adapter}-{self.backend}-s{self.seed}"

    def to_dict(self) -> dict[str, Any]:
        data = dataclasses.asdict(self)
        data["splits"] = list(self.splits) if self.splits is not None else None
        data["effective_temperature"] = self.effective_temperature
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "EvalConfig":
        names = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in names})


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("_") or "x"
