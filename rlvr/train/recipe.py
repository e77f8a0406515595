"""One recipe parser for every training command: TRL's ``TrlParser`` over one dataclass per part.

A recipe is a YAML file whose keys are fields of these dataclasses, so every option is available from YAML
or the command line (``--key value`` overrides the file):

- :class:`~rlvr.train.config.TaskArguments`: what to train on and how it is rewarded;
- :class:`~rlvr.train.sft_data.SFTArguments` (``sft_*``): the supervised warm start before RL;
- :class:`ControlArguments` (``control_*``): the control arm ``rlvr quickstart`` sets beside RL;
- :class:`~rlvr.train.lora.AdapterArguments` (``lora_layers``, ``generate_merged``): where the RL adapter sits;
- ``GRPOConfig`` or ``RLOOConfig``: TRL's trainer options;
- ``ModelConfig``: the model and its LoRA adapter.

The algorithm is read first (``algorithm: grpo|rloo``), because GRPOConfig and RLOOConfig share most field
names and cannot sit in one parser. The device is resolved by the command (:func:`rlvr.device.resolve_device`)
and passed in: off an accelerator, CPU mode is forced (``use_cpu``, no fp16; a recipe's ``bf16`` is kept only
on a CPU that multiplies bfloat16 natively, where it means bfloat16 autocast, and dropped elsewhere).
"""
from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from rlvr.device import Device, resolve_device
from rlvr.train.checkpointing import checkpointing_argv, cli_flag, truthy
from rlvr.train.config import ALGORITHMS, TaskArguments, peek_algorithm, recipe_mapping
from rlvr.train.lora import AdapterArguments
from rlvr.train.sft_data import SFTArguments

#: appended to the arguments on machines without an accelerator (bf16 too, unless the CPU multiplies it natively)
CPU_OVERRIDES = ["--use_cpu", "true", "--fp16", "false"]
NO_BF16 = ["--bf16", "false"]
#: how the control arm's budget is matched to the RL stage's
CONTROL_MATCHES = ("completions", "prompts")


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

    @property
    def warm_starts(self) -> bool:
        """Whether the recipe has a supervised warm start (``sft_steps > 0``)."""
        return int(self.sft.sft_steps) > 0


def sets_sft_keys(argv: Sequence[str]) -> bool:
    """Whether ``argv`` or its ``--config`` YAML sets an ``sft_*`` key (a recipe with a warm start)."""
    keys = list(recipe_mapping(argv)) + [a[2:].split("=", 1)[0] for a in argv if a.startswith("--")]
    return any(k.startswith("sft_") for k in keys)


def config_classes(algorithm: str) -> tuple[type, ...]:
    """The recipe's dataclasses for ``algorithm``: (TaskArguments, SFTArguments, ControlArguments,
    GRPOConfig|RLOOConfig, ModelConfig, AdapterArguments)."""
    from trl import GRPOConfig, ModelConfig, RLOOConfig

    algorithm = algorithm.lower()
    if algorithm == "ppo":
        TaskArguments(algorithm="ppo")  # raises with the explanation
    if algorithm not in ALGORITHMS:
        raise ValueError(f"algorithm must be one of {ALGORITHMS}, got {algorithm!r}")
    return (TaskArguments, SFTArguments, ControlArguments, GRPOConfig if algorithm == "grpo" else RLOOConfig, ModelConfig,
            AdapterArguments)


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
    no fp16, and no bf16 unless the CPU multiplies it natively; appended last, it overrides the recipe) and
    activation checkpointing is off unless asked for; an unset model is the embedded one."""
    argv = list(sys.argv[1:] if args is None else args)
    device = device or resolve_device("auto")
    algorithm = peek_algorithm(argv)
    classes = config_classes(algorithm)
    mapping = recipe_mapping(argv)
    argv = checkpointing_argv(argv, classes[3], mapping, None if device.is_accelerator else False)
    if not device.is_accelerator:
        argv += CPU_OVERRIDES + ([] if device.cpu_bf16 and asks_bf16(argv, mapping) else NO_BF16)
    task, sft, control, training, model, adapter = make_parser(algorithm, prog=prog).parse_args_and_config(argv)
    if not getattr(model, "model_name_or_path", None):
        model.model_name_or_path = "default"
    return Recipe(task=task, sft=sft, control=control, training=training, model=model, adapter=adapter, device=device)
