"""One recipe parser for every training command: TRL's ``TrlParser`` over one dataclass per part.

A recipe is a YAML file whose keys are fields of these dataclasses, so every option is available from YAML
or the command line (``--key value`` overrides the file):

- :class:`~rlvr.train.config.TaskArguments`: what to train on and how it is rewarded;
- :class:`~rlvr.train.sft_data.SFTArguments` (``sft_*``): the supervised warm start before RL;
- :class:`ControlArguments` (``control_*``): the control arm ``rlvr quickstart`` sets beside RL;
- :class:`ArmsArguments` (``arms``, ``rft``, ``plateau``, ``pass_at_k``, ``retention_set``, ``kl_set``): which arms
  ``rlvr quickstart`` trains from the warm start, and what it measures of each beyond greedy exact match;
- :class:`~rlvr.train.lora.AdapterArguments` (``lora_layers``, ``generate_merged``): where the RL adapter sits;
- ``GRPOConfig`` or ``RLOOConfig``: TRL's trainer options;
- ``ModelConfig``: the model and its LoRA adapter.

The algorithm is read first (``algorithm: grpo|rloo``), because GRPOConfig and RLOOConfig share most field
names and cannot sit in one parser. The device is resolved by the command (:func:`rlvr.device.resolve_device`)
and passed in: off an accelerator, CPU mode is forced (``use_cpu``, no fp16; a recipe's ``bf16`` is kept only
on a CPU where bfloat16 is the faster dtype (:func:`rlvr.device.cpu_prefers_bf16`), where it means bfloat16
autocast, and dropped elsewhere).
"""
from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from rlvr.device import Device, resolve_device
from rlvr.train.checkpointing import checkpointing_argv, cli_flag, truthy
from rlvr.train.config import ALGORITHMS, TaskArguments, _load_structured, peek_algorithm, recipe_mapping
from rlvr.train.lora import AdapterArguments
from rlvr.train.sft_data import SFTArguments

#: appended to the arguments on machines without an accelerator (bf16 too, unless bfloat16 is faster on this CPU)
CPU_OVERRIDES = ["--use_cpu", "true", "--fp16", "false"]
NO_BF16 = ["--bf16", "false"]
#: how the control arm's budget is matched to the RL stage's
CONTROL_MATCHES = ("completions", "prompts")
#: the keys of each structured ``ArmsArguments`` field, with their defaults
RFT_DEFAULTS = {"learning_rate": 1.0e-4, "lr_scheduler_type": "constant", "warmup_steps": 0, "temperature": None,
                "top_p": 1.0, "max_per_prompt": None}
PLATEAU_DEFAULTS = {"set": "valid", "size": 100, "every": 32, "min_gain": 0.02, "stop": True}
PASS_AT_K_DEFAULTS = {"set": "test_in", "size": 100, "samples": 8, "temperature": None}
RETENTION_DEFAULTS = {"families": None, "split": None, "size": 100, "options": {}, "max_new_tokens": None}
KL_DEFAULTS = {"split": "valid", "size": 64, "temperature": None}


@dataclass
class ControlArguments:
    """The ``control_*`` part of a recipe: the control arm of ``rlvr quickstart``.

    From the same warm-started model as the RL stage, more supervised training on fresh verified worked
    solutions from the same training split, with as many optimizer steps as the RL stage took. The rows
    per step follow ``control_match``: ``completions`` (as many worked solutions as RL trains completions
    per step: the same forward and backward work, without RL's generation) or ``prompts`` (as many as RL
    draws prompts per step). The LoRA adapter is the RL stage's (``lora_*``); rows are written as the warm
    start's (``sft_style``, ``sft_max_chars``, ``sft_max_answer_share``, ``sft_mixture``).
    """

    control_arm: bool = field(default=False, metadata={"help": "train and score the control arm beside RL (rlvr quickstart)"})
    control_match: str = field(
        default="completions",
        metadata={"help": "rows per control step: completions (RL's completions per step) or prompts (RL's prompts "
                          "per step); steps always match the RL stage's", "choices": list(CONTROL_MATCHES)},
    )
    control_learning_rate: float = field(default=1.0e-4, metadata={"help": "the control arm's learning rate"})
    control_lr_scheduler_type: str = field(default="constant", metadata={"help": "the control arm's learning-rate schedule"})
    control_warmup_steps: int = field(default=0, metadata={"help": "the control arm's warm-up steps"})
    control_task_seed: int | None = field(
        default=None, metadata={"help": "task seed of the control rows (default: derived from task_seed, disjoint "
                                        "from the warm start's rows and the RL stream)"})

    def __post_init__(self) -> None:
        self.control_match = str(self.control_match).lower()
        if self.control_match not in CONTROL_MATCHES:
            raise ValueError(f"control_match must be one of {list(CONTROL_MATCHES)}, got {self.control_match!r}")
        if float(self.control_learning_rate) <= 0:
            raise ValueError(f"control_learning_rate must be > 0, got {self.control_learning_rate!r}")


def structured(value: Any, what: str, defaults: Mapping[str, Any]) -> dict[str, Any] | None:
    """A structured recipe field (mapping, or YAML/JSON text from the command line) with its defaults filled in;
    None when unset or false. ValueError naming the field on an unknown key or a value of the wrong shape."""
    value = _load_structured(value, what)
    if value in (None, False, {}):
        return None
    if value is True:
        return dict(defaults)
    if not isinstance(value, Mapping):
        raise ValueError(f"{what} must be a mapping {{{', '.join(defaults)}}}, got {value!r}")
    unknown = sorted(set(value) - set(defaults))
    if unknown:
        raise ValueError(f"{what}: unknown key(s) {unknown} (allowed: {', '.join(defaults)})")
    out = {**defaults, **value}
    for key, default in defaults.items():  # numbers given as text in YAML (5e-2 loads as a string) become numbers
        if isinstance(default, (int, float)) and not isinstance(default, bool) and isinstance(out[key], str):
            try:
                out[key] = type(default)(float(out[key])) if isinstance(default, int) else float(out[key])
            except ValueError:
                raise ValueError(f"{what}.{key} must be a number, got {out[key]!r}") from None
    return out


@dataclass
class ArmsArguments:
    """The arms ``rlvr quickstart`` trains from the warm-started model, and what it measures of every stage.

    ``arms`` names them in the order they run (``rl``: the recipe's GRPO/RLOO + LoRA; ``control``: more SFT on
    oracle worked solutions, :class:`ControlArguments`; ``rft``: rejection-sampling fine-tuning on the warm
    start's own verified samples of RL's prompt stream); without it, ``rl`` plus ``control`` when
    ``control_arm`` is set. Each arm is one function in :mod:`rlvr.quickstart.arms`.
    """

    arms: list[str] | None = field(
        default=None, metadata={"help": "arms trained from the warm start, in order: rl, control, rft (default: rl, and "
                                        "control with control_arm)"})
    rft: dict | str | None = field(
        default=None, metadata={"help": "the RFT arm: {learning_rate, lr_scheduler_type, warmup_steps, temperature "
                                        "(default RL's), top_p, max_per_prompt}"})
    plateau: dict | str | None = field(
        default=None, metadata={"help": "warm start until the tuning set's exact match stops rising: {set: valid, size, "
                                        "every: 32, min_gain: 0.02, stop} (sft_steps is then the most steps)"})
    pass_at_k: dict | str | None = field(
        default=None, metadata={"help": "pass@1 and pass@k at RL's temperature for the warm start and every arm: "
                                        "{set: test_in, size: 100, samples: 8, temperature}"})
    retention_set: dict | str | None = field(
        default=None, metadata={"help": "another task group's fixed set scored greedily before and after every arm: "
                                        "{families, split, size, options, max_new_tokens}"})
    kl_set: dict | str | None = field(
        default=None, metadata={"help": "KL divergence of every arm from the warm-started model, on samples of the arm "
                                        "for these prompts: {split: valid, size: 64, temperature}"})

    def __post_init__(self) -> None:
        if self.arms is not None:  # a YAML list, or "rl control" / "rl,control" from the command line
            items = [self.arms] if isinstance(self.arms, str) else list(self.arms)
            self.arms = [a.lower() for item in items for a in str(item).replace(",", " ").split() if a]
            if len(set(self.arms)) != len(self.arms):
                raise ValueError(f"arms: each arm once, got {self.arms}")
        self.rft = structured(self.rft, "rft", RFT_DEFAULTS) or dict(RFT_DEFAULTS)
        if float(self.rft["learning_rate"]) <= 0:
            raise ValueError(f"rft.learning_rate must be > 0, got {self.rft['learning_rate']!r}")
        self.plateau = structured(self.plateau, "plateau", PLATEAU_DEFAULTS)
        if self.plateau and (int(self.plateau["every"]) < 1 or int(self.plateau["size"]) < 1):
            raise ValueError("plateau: every and size must be >= 1")
        self.pass_at_k = structured(self.pass_at_k, "pass_at_k", PASS_AT_K_DEFAULTS)
        if self.pass_at_k and int(self.pass_at_k["samples"]) < 2:
            raise ValueError("pass_at_k.samples must be >= 2")
        self.retention_set = structured(self.retention_set, "retention_set", RETENTION_DEFAULTS)
        if self.retention_set and not (self.retention_set["families"] and self.retention_set["split"]):
            raise ValueError("retention_set needs families and split")
        self.kl_set = structured(self.kl_set, "kl_set", KL_DEFAULTS)


@dataclass
class Recipe:
    """A parsed recipe: one dataclass per part, and the device it was parsed for."""

    task: TaskArguments
    sft: SFTArguments
    control: ControlArguments
    training: Any
    model: Any
    adapter: AdapterArguments = field(default_factory=AdapterArguments)
    device: Device = field(default_factory=Device)
    study: ArmsArguments = field(default_factory=ArmsArguments)

    @property
    def warm_starts(self) -> bool:
        """Whether the recipe has a supervised warm start (``sft_steps > 0``)."""
        return int(self.sft.sft_steps) > 0

    @property
    def arms(self) -> list[str]:
        """The arms trained from the warm start, in order (``arms``, else ``rl`` and ``control`` with ``control_arm``)."""
        if self.study.arms is not None:
            return list(self.study.arms)
        return ["rl", "control"] if self.control.control_arm else ["rl"]


def sets_sft_keys(argv: Sequence[str]) -> bool:
    """Whether ``argv`` or its ``--config`` YAML sets an ``sft_*`` key (a recipe with a warm start)."""
    keys = list(recipe_mapping(argv)) + [a[2:].split("=", 1)[0] for a in argv if a.startswith("--")]
    return any(k.startswith("sft_") for k in keys)


def config_classes(algorithm: str) -> tuple[type, ...]:
    """The recipe's dataclasses for ``algorithm``: (TaskArguments, SFTArguments, ControlArguments,
    GRPOConfig|RLOOConfig, ModelConfig, AdapterArguments, ArmsArguments)."""
    from trl import GRPOConfig, ModelConfig, RLOOConfig

    algorithm = algorithm.lower()
    if algorithm == "ppo":
        TaskArguments(algorithm="ppo")  # raises with the explanation
    if algorithm not in ALGORITHMS:
        raise ValueError(f"algorithm must be one of {ALGORITHMS}, got {algorithm!r}")
    return (TaskArguments, SFTArguments, ControlArguments, GRPOConfig if algorithm == "grpo" else RLOOConfig, ModelConfig,
            AdapterArguments, ArmsArguments)


def make_parser(algorithm: str = "grpo", prog: str | None = None) -> Any:
    """A ``TrlParser`` over the recipe dataclasses of ``algorithm``."""
    from trl import TrlParser

    return TrlParser(config_classes(algorithm), prog=prog)


def asks_bf16(argv: Sequence[str], recipe: Mapping[str, Any] | None = None) -> bool:
    """Whether the command line, else the recipe (``recipe``: its mapping, read from ``--config`` when not
    given), sets ``bf16`` true: TRL's own default (bf16 unless fp16) is not a request, so a CPU recipe that
    never names it keeps float32."""
    asked = cli_flag(argv, ("bf16",))
    if asked is not None:
        return asked
    return truthy((recipe_mapping(argv) if recipe is None else recipe).get("bf16"))


def parse_recipe(args: Sequence[str] | None = None, *, prog: str | None = None, device: Device | None = None) -> Recipe:
    """Parse ``--config recipe.yaml`` plus command-line overrides into a :class:`Recipe` for ``device``
    (default: resolved here, as ``--device auto``). Off an accelerator CPU mode is forced (``use_cpu``,
    no fp16, and no bf16 unless bfloat16 is the faster dtype on this CPU; appended last, it overrides the recipe) and
    activation checkpointing is off unless asked for; an unset model is the embedded one."""
    argv = list(sys.argv[1:] if args is None else args)
    device = device or resolve_device("auto")
    algorithm = peek_algorithm(argv)
    classes = config_classes(algorithm)
    mapping = recipe_mapping(argv)
    argv = checkpointing_argv(argv, classes[3], mapping, None if device.is_accelerator else False)
    if not device.is_accelerator:
        argv += CPU_OVERRIDES + ([] if device.cpu_bf16 and asks_bf16(argv, mapping) else NO_BF16)
    task, sft, control, training, model, adapter, study = make_parser(algorithm, prog=prog).parse_args_and_config(argv)
    if not getattr(model, "model_name_or_path", None):
        model.model_name_or_path = "default"
    if task.compact_decoding and adapter.compile_generation:
        raise ValueError("choose one of compile_generation (one static cache) and compact_decoding")
    return Recipe(task=task, sft=sft, control=control, training=training, model=model, adapter=adapter, device=device,
                  study=study)
