"""The data of the SFT cold start: ``sft_*`` recipe arguments and verified worked-solution rows.

Rows are prompt/completion conversations (``SFTTrainer``'s format): the prompt is the task's own,
in the recipe's prompt options (system prompt, style, few-shot), so SFT rows and RL prompts read
alike and regenerate exactly; the completion is the task's worked solution, verified at reward 1.0.
"""
from __future__ import annotations

import logging
import math
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Any, Iterable

from rlvr.datasets import FamilyMix, MixLike, Mixture, parse_mix, task_row
from rlvr.registry import get_family
from rlvr.rng import stable_hash
from rlvr.solutions import STYLES, SolutionError, solution_messages
from rlvr.task import answer_key
from rlvr.train.config import TaskArguments, _load_structured, build_mix
from rlvr.train.lora import parse_layers

log = logging.getLogger(__name__)

#: how many tasks ``max_answer_share`` may pass over per row asked before the rows are declared impossible
MAX_CAPPED_PER_ROW = 20


@dataclass
class SFTArguments:
    """The ``sft_*`` part of a recipe: the cold start before RL."""

    sft_steps: int = field(default=50, metadata={"help": "SFT optimizer steps (0: no cold start, plain RL)"})
    sft_train_size: int = field(default=256, metadata={"help": "worked-solution rows from the training split"})
    sft_mixture: dict | str | None = field(
        default=None,
        metadata={"help": "families for the SFT rows as a mixture list (YAML/JSON); default: the RL mixture"},
    )
    sft_split: str = field(default="train", metadata={"help": "split the SFT rows come from"})
    sft_task_seed: int | None = field(
        default=None, metadata={"help": "task seed of the SFT rows (default: derived from task_seed, disjoint from RL's)"}
    )
    sft_style: str = field(default="terse", metadata={"help": "worked-solution style: terse or detailed"})
    sft_max_chars: int | None = field(default=None, metadata={"help": "character budget of one worked solution"})
    sft_max_answer_share: float | None = field(
        default=None,
        metadata={"help": "at most this share of the rows may have any one answer (the task's ground truth), so a "
                          "model cannot fit the rows by answering the common value (None: the mixture's own mix)"},
    )
    sft_learning_rate: float = field(default=2.0e-4, metadata={"help": "SFT learning rate"})
    sft_lr_scheduler_type: str = field(default="constant", metadata={"help": "SFT learning-rate schedule"})
    sft_warmup_steps: int = field(default=0, metadata={"help": "SFT warm-up steps"})
    sft_batch_size: int = field(default=4, metadata={"help": "SFT per-device batch size"})
    sft_gradient_accumulation_steps: int = field(default=1, metadata={"help": "SFT gradient accumulation"})
    sft_max_length: int = field(default=1024, metadata={"help": "SFT max tokens per prompt+completion"})
    sft_group_by_length: bool = field(
        default=False,
        metadata={"help": "batch rows of similar token length together (transformers' length-grouped sampler, "
                          "seeded like the rest): less padding where the rows' lengths differ widely"},
    )
    sft_lora_layers: str | None = field(
        default=None, metadata={"help": "the warm start's LoRA layers, as lora_layers ('top:N', 'A-B', 'i,j'); default every layer"})
    sft_logging_steps: int = field(default=1, metadata={"help": "SFT logging interval (steps)"})
    sft_output_dir: str | None = field(default=None, metadata={"help": "SFT output folder (default: <output_dir>/sft)"})
    sft_only: bool = field(default=False, metadata={"help": "stop after the cold start (no RL)"})
    sft_report_to: list[str] | None = field(default=None, metadata={"help": "SFT trackers (default: none)"})

    def __post_init__(self) -> None:
        if self.sft_steps < 0 or self.sft_train_size < 0:
            raise ValueError("sft_steps and sft_train_size must be >= 0")
        if self.sft_steps > 0 and self.sft_train_size == 0:
            raise ValueError("sft_steps > 0 needs sft_train_size > 0")
        if self.sft_max_answer_share is not None and not 0.0 < float(self.sft_max_answer_share) <= 1.0:
            raise ValueError(f"sft_max_answer_share must lie in (0, 1], got {self.sft_max_answer_share!r}")
        if self.sft_style not in STYLES:
            raise ValueError(f"sft_style must be one of {list(STYLES)}, got {self.sft_style!r}")
        parse_layers(self.sft_lora_layers, None, "sft_lora_layers")  # a malformed value fails when parsed
        if isinstance(self.sft_mixture, str):
            self.sft_mixture = _load_structured(self.sft_mixture, "sft_mixture")
        if isinstance(self.sft_report_to, str):
            self.sft_report_to = [self.sft_report_to]


@dataclass
class SFTDatasetStats:
    """How an SFT dataset was filled: rows per family and tasks skipped (no verified solution)."""

    rows: int
    skipped: int
    by_family: dict[str, int]
    mean_completion_chars: float
    capped: int = 0  # tasks passed over because their answer already filled its share (sft_max_answer_share)


def with_options(mix: MixLike, **options: Any) -> list[FamilyMix]:
    """``mix`` with ``options`` added to every component's own (values None are left out)."""
    extra = {k: v for k, v in options.items() if v is not None}
    return [replace(c, options={**c.options, **extra}) for c in parse_mix(mix)]


def sft_rows(
    mix: MixLike | Mixture,
    n: int,
    *,
    split: str = "train",
    seed: int = 0,
    style: str = "terse",
    max_chars: int | None = None,
    start: int = 0,
    max_skip_fraction: float = 0.5,
    system_prompt: str | None = None,
    max_answer_share: float | None = None,
) -> tuple[list[dict[str, Any]], SFTDatasetStats]:
    """``n`` rows (``prompt``, ``completion`` + task columns) with verified worked solutions.

    Rows follow the deterministic mixture order from index ``start``; a task whose solution cannot be
    written within the budget is skipped (counted), and more than ``max_skip_fraction`` of skips is
    an error (the mixture or budget is wrong, not a few odd tasks). The prompt is the task's own (the
    mixture's prompt options included); ``system_prompt`` sets that option on every family of a
    mixture given as names or components. The completion is always the worked solution of the task.
    ``max_answer_share``: a task whose answer (its ground truth) already has that share of the ``n`` rows
    is passed over (``capped`` in the stats), still in mixture order, so the rows are the same on every run.
    """
    if isinstance(mix, Mixture):
        mixture = mix
    else:
        mixture = Mixture(with_options(mix, system_prompt=system_prompt), split, seed)
    check_solution_writers(c.family for c in mixture.components)
    rows: list[dict[str, Any]] = []
    skipped = capped = chars = 0
    by_family: Counter = Counter()
    by_answer: Counter = Counter()
    cap = None if max_answer_share is None else max(1, math.ceil(float(max_answer_share) * n))
    index = int(start)
    limit = int(start) + max(int(n / max(1e-9, 1 - max_skip_fraction)) + 1, n + 1)
    while len(rows) < n:
        _check_room(len(rows), n, skipped, capped, index >= limit + capped, max_answer_share)
        task = mixture.task_at(index)
        index += 1
        answer = answer_key(task) if cap is not None else None
        if answer is not None and by_answer[answer] >= cap:
            capped += 1
            continue
        row = _solved_row(task, style, max_chars)
        if row is None:
            skipped += 1
            continue
        rows.append(row)
        if answer is not None:
            by_answer[answer] += 1
        by_family[task.family] += 1
        chars += len(row["completion"][0]["content"])
    stats = SFTDatasetStats(len(rows), skipped, dict(sorted(by_family.items())), round(chars / max(len(rows), 1), 1),
                            capped)
    return rows, stats


def _check_room(have: int, n: int, skipped: int, capped: int, past_limit: bool, max_answer_share: float | None) -> None:
    """RuntimeError when the rows cannot be filled: too many tasks skipped, or too many passed over for the cap."""
    if past_limit:
        raise RuntimeError(f"only {have} of {n} SFT rows could be written ({skipped} tasks skipped); "
                           "raise sft_max_chars or check the mixture")
    if capped > MAX_CAPPED_PER_ROW * n:
        raise RuntimeError(f"only {have} of {n} SFT rows fit sft_max_answer_share {max_answer_share} after passing over "
                           f"{capped} tasks; raise it (the mixture has too few distinct answers)")


def _solved_row(task: Any, style: str, max_chars: int | None) -> dict[str, Any] | None:
    """The task's dataset row with its verified worked solution as ``completion`` (None when none can be written)."""
    try:
        completion = solution_messages(task, style, max_chars=max_chars)
    except SolutionError as exc:
        log.debug("SFT row skipped: %s", exc)
        return None
    row = task_row(task)
    row["completion"] = completion
    return row


def check_solution_writers(families: Iterable[str]) -> None:
    """``ValueError`` naming the families that have no worked-solution writer (``FamilySpec.solve``)."""
    missing = sorted({name for name in families if get_family(name).solve is None})
    if missing:
        which = f"family {missing[0]} has" if len(missing) == 1 else f"families {', '.join(missing)} have"
        raise ValueError(
            f"{which} no worked-solution writer (FamilySpec.solve), so no SFT rows can be written; "
            "give it a `solve` hook (docs/writing-a-family.md) or leave it out of sft_mixture"
        )


def build_sft_dataset(mix: Any, n: int, **kwargs: Any) -> tuple[Any, SFTDatasetStats]:
    """A ``datasets.Dataset`` of :func:`sft_rows` (prompt/completion conversational columns for ``SFTTrainer``)."""
    from datasets import Dataset  # heavy

    rows, stats = sft_rows(mix, n, **kwargs)
    return Dataset.from_list(rows), stats


def sft_mixture(task_args: TaskArguments, sft_args: SFTArguments) -> list[FamilyMix]:
    """The SFT mixture: ``sft_mixture`` if set, else the recipe's RL training mixture; either way in the
    recipe's prompt options, so SFT rows and RL prompts read alike."""
    if sft_args.sft_mixture:
        return build_mix(sft_args.sft_mixture, None, task_args.prompt_options())
    return task_args.mix()


def sft_seed(task_args: TaskArguments, sft_args: SFTArguments) -> int:
    """Task seed of the SFT rows: explicit, or derived from the RL task seed (so RL never replays them)."""
    if sft_args.sft_task_seed is not None:
        return int(sft_args.sft_task_seed)
    return int(stable_hash("rlvr-sft", getattr(task_args, "task_seed", 0)) & 0x7FFFFFFF)
