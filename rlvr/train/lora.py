"""Which layers a LoRA adapter trains (``lora_layers``), and the PEFT config that says so.

TRL's ``ModelConfig`` names the adapter's rank, scale and target projections; :class:`AdapterArguments`
adds where in the depth it sits. ``top:N`` puts the adapter on the N transformer layers nearest the output:
nothing below them has a trainable weight, so autograd stops there and the backward pass covers N layers
instead of all (on a CPU, where an RL update is compute-bound, most of its cost). The RL stage and the
control arm use it; the warm start has its own (``sft_lora_layers``).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class AdapterArguments:
    """The adapter's place in the model (``lora_layers``: the RL stage's and the control arm's) and how RL samples
    from it (``generate_merged``, ``compile_generation``)."""

    lora_layers: str | None = field(
        default=None,
        metadata={"help": "transformer layers that get LoRA: 'top:N' (the N nearest the output; the backward pass "
                          "stops below them), 'A-B' or 'i,j,...' (0-based); default every layer"},
    )
    generate_merged: bool = field(
        default=False,
        metadata={"help": "sample the RL stage's completions from a copy of the model with the adapter merged into "
                          "its weights, refreshed before every generation (no LoRA matmuls per decoded token; one "
                          "process, no vLLM)"},
    )
    compile_generation: bool = field(
        default=False,
        metadata={"help": "with generate_merged: sample through one static KV cache kept across generate calls "
                          "(rlvr.generation.fixed_shape), so transformers compiles the decoding step once on a GPU "
                          "(TRL turns compilation off for its own calls); off on CPU, where it is slower"},
    )

    def __post_init__(self) -> None:
        if self.lora_layers is not None:
            parse_layers(self.lora_layers, None)  # a malformed value fails when the recipe is parsed
        if self.compile_generation and not self.generate_merged:
            raise ValueError("compile_generation samples from the merged copy: set generate_merged: true as well")


def parse_layers(spec: str | None, num_layers: int | None, name: str = "lora_layers") -> list[int] | None:
    """The 0-based layer indices of ``spec`` (None: every layer). ``top:N`` needs ``num_layers`` to resolve
    (with None it is only checked); ValueError with one sentence, naming the field ``name``, on a malformed value
    or one out of range."""
    if spec is None or not str(spec).strip() or str(spec).strip().lower() == "all":
        return None
    text = str(spec).strip().lower()
    try:
        if text.startswith("top:"):
            n = int(text[4:])
            if n < 1:
                raise ValueError
            if num_layers is None:
                return []
            if n > num_layers:
                raise ValueError(f"{name} {spec!r}: the model has {num_layers} layers")
            return list(range(num_layers - n, num_layers))
        if "-" in text and "," not in text:
            lo, hi = (int(part) for part in text.split("-", 1))
            layers = list(range(lo, hi + 1))
        else:
            layers = sorted({int(part) for part in text.split(",") if part.strip()})
    except ValueError as exc:
        if str(exc).startswith(f"{name} "):
            raise
        raise ValueError(f"{name} must be 'top:N', 'A-B' or 'i,j,...', got {spec!r}") from None
    if not layers or layers[0] < 0 or (num_layers is not None and layers[-1] >= num_layers):
        raise ValueError(f"{name} {spec!r}: layers must lie in 0..{'N-1' if num_layers is None else num_layers - 1}")
    return layers


def num_hidden_layers(model_path: str) -> int:
    """The transformer layer count of a local or hub model (its config only, no weights)."""
    from transformers import AutoConfig

    config = AutoConfig.from_pretrained(model_path)
    text = getattr(config, "text_config", None) or config
    return int(text.num_hidden_layers)


def check_layers_fit(specs: dict[str, str | None], model_path: str) -> None:
    """ValueError in one line when a layer spec (``{"lora_layers": "top:8", ...}``) names a layer ``model_path``
    does not have: checked before any stage trains, not when the stage that uses it starts."""
    named = {name: spec for name, spec in specs.items() if spec}
    if not named:
        return
    layers = num_hidden_layers(model_path)
    for name, spec in named.items():
        parse_layers(spec, layers, name)


def lora_config(model_args: Any, layers: str | None = None, model_path: str | None = None,
                name: str = "lora_layers") -> Any:
    """The LoRA config of the recipe's ``ModelConfig`` (rank, scale, dropout, target projections, as TRL builds
    it), on the ``layers`` of :func:`parse_layers` (every layer when None; errors name the field ``name``); None
    without ``use_peft``."""
    from trl import get_peft_config

    if not getattr(model_args, "use_peft", False):
        return None
    config = get_peft_config(model_args)
    chosen = parse_layers(layers, num_hidden_layers(model_path or model_args.model_name_or_path), name) if layers else None
    if chosen is not None:
        config.layers_to_transform = chosen
    return config
