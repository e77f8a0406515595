"""The rlvr part of a recipe (:class:`TaskArguments`: tasks, rewards, eval sets, task selection) and the
helpers that read a recipe file before it is parsed (:mod:`rlvr.train.recipe` parses the whole recipe).
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any, Sequence

import yaml

from rlvr.datasets import FamilyMix, parse_mix
from rlvr.generation.draw import DRAWS, check_draw
from rlvr.prompting import DEFAULT_STYLE, PromptOptions
from rlvr.registry import DEFAULT_TRAIN_FAMILIES, get_family

#: algorithms wired to TRL trainers
ALGORITHMS = ("grpo", "rloo")
#: default reward functions (names in :mod:`rlvr.rewards`, or dotted import paths)
DEFAULT_REWARD_FUNCS = ["chem_reward", "format_reward"]
#: console output of a run: compact (progress bar, a line every few steps) or full (TRL's whole metrics dicts)
CONSOLE_MODES = ("compact", "full")
#: the quickstart's eval splits when a recipe names none (in / cross / out of the products families)
DEFAULT_EVAL_SPLITS = ("test_in", "test_cross", "test_out")


def _load_structured(value: Any, what: str) -> Any:
    """A YAML/JSON string from the command line -> Python object; other values pass through."""
    if value is None or not isinstance(value, str):
        return value
    text = value.strip()
    if not text:
        return None
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        try:
            return yaml.safe_load(text)
        except yaml.YAMLError as exc:
            raise ValueError(f"{what}: cannot parse {value!r} as JSON or YAML ({exc})") from exc


@dataclass
class TaskArguments:
    """What to train on and how it is rewarded (the rlvr part of a recipe).

    Families are given either as ``families`` (names, optionally ``name:weight``) plus shared
    ``task_options``, or as a full ``mixture`` list of ``{family, weight, options}`` mappings.
    """

    algorithm: str = field(default="grpo", metadata={"help": "grpo or rloo (PPO with a critic: see docs/training.md, verl export)"})
    families: list[str] = field(
        default_factory=lambda: list(DEFAULT_TRAIN_FAMILIES),
        metadata={"help": "task families to mix, each NAME or NAME:WEIGHT (e.g. stoich.t1:2 mol.count)"},
    )
    task_options: dict | str | None = field(
        default=None, metadata={"help": "options for every family in `families` (YAML mapping or JSON string)"}
    )
    mixture: dict | str | None = field(
        default=None,
        metadata={"help": "full mixture: list of {family, weight, options} (YAML list or JSON); overrides `families`"},
    )
    train_split: str = field(default="train", metadata={"help": "split the training tasks come from"})
    train_size: int = field(
        default=0,
        metadata={"help": "0: an unbounded stream of fresh tasks; N > 0: a fixed dataset of N tasks (epochs repeat them)"},
    )
    task_seed: int = field(default=0, metadata={"help": "seed of the task generators (independent of the model seed)"})
    eval_splits: list[str] | None = field(
        default=None,
        metadata={"help": "named eval sets, one per split of the training mixture (e.g. test_in test_cross test_out)"},
    )
    eval_sets: dict | str | None = field(
        default=None,
        metadata={
            "help": "named eval sets as a mapping name -> {split, families | mixture, options, size} "
            "(e.g. easy / hard molecule pools); added to `eval_splits`"
        },
    )
    primary_test: dict | str | None = field(
        default=None,
        metadata={"help": "the run's one declared primary test: {stage: rl | base, split: EVAL SET, test: mcnemar | "
                  "wilcoxon, alpha}; every other test is secondary and Holm-corrected (docs/evaluation.md#methods)"},
    )
    pooled_test: dict | str | None = field(
        default=None,
        metadata={"help": "a primary test pooled over several seeds' runs, declared before them: {seeds, reference, "
                  "treated, split: EVAL SET, alpha, secondary: [...]}; the unit is the reaction or molecule "
                  "(rlvr/quickstart/pooled.py, docs/evaluation.md#methods)"},
    )
    eval_size: int = field(default=32, metadata={"help": "tasks per eval set"})
    eval_seed: int = field(default=1234, metadata={"help": "seed of the eval-set tasks (fixed across runs)"})
    reward_funcs: list[str] = field(
        default_factory=lambda: list(DEFAULT_REWARD_FUNCS),
        metadata={"help": "reward functions: names in rlvr.rewards (chem_reward, format_reward, ...) or dotted paths"},
    )
    reward_mode: str | None = field(
        default=None,
        metadata={"help": "scoring mode passed to the checkers (em, f1, jaccard, shaped); default: the family's own"},
    )
    curriculum: dict | str | None = field(
        default=None,
        metadata={
            "help": "curriculum: {option, levels: [...], metric: reward, threshold, window, min_steps} -- the option "
            "steps to the next level when the rolling mean of `metric` reaches `threshold`"
        },
    )
    frontier: dict | str | None = field(
        default=None,
        metadata={
            "help": "frontier task selection: {candidates: 8, window: 32, prior: 1.0, floor: 0.05, success: correct, "
            "policy: frontier|uniform} -- each training row takes one of `candidates` tasks of the split, weighted "
            "towards difficulty cells whose success is strictly between 0 and 1 (rlvr.frontier)"
        },
    )
    dynamic_sampling: dict | str | None = field(
        default=None,
        metadata={
            "help": "dynamic sampling: {max_rounds: 1, max_groups: null} or true -- groups whose rewards all agree are "
            "replaced by groups of fresh prompts before the update (rlvr.train.dynamic)"
        },
    )
    sampling_draw: str = field(
        default="multinomial",
        metadata={"help": "how a sampled token is drawn, in RL's generation and the quickstart's sampled measurements: "
                          "multinomial (transformers' torch.multinomial: a race over every token) or block_race (the "
                          "same distribution from an exponential race over blocks of the vocabulary, then within the "
                          "winning block; sampled generation about 0.77x the time on CPU; another random stream; "
                          "rlvr.generation.draw)", "choices": list(DRAWS)},
    )
    compact_decoding: bool = field(
        default=False,
        metadata={"help": "decode RL's completions and the quickstart's evaluations and sampled measurements with "
                          "rlvr's own loop (rlvr.generation.compact): each distinct prompt prefilled once, each token's keys "
                          "and values written into reserved room, finished rows dropped; the same greedy text (up to "
                          "near-ties in the last digits), sampled tokens from another random stream; on CPU about 0.8x "
                          "the time of a greedy evaluation and 0.55x of pass@k's sampling"},
    )
    system_prompt: str | None = field(
        default=None, metadata={"help": "replaces the tasks' system message (None: the task's own)"}
    )
    prompt_style: str = field(
        default="default",
        metadata={"help": "a prompt style of every family in the mixture: default (the family's prompt), or one the "
                          "family defines, e.g. compact (stoich.t1/t2: mixture, reaction, one rule; short, for CPU) "
                          "or minimal (mixture and reaction only; method and format from the system prompt)"},
    )
    few_shot: int = field(default=0, metadata={"help": "solved training tasks shown as user/assistant turns before each question"})
    few_shot_seed: int = field(default=4242, metadata={"help": "seed of the few-shot demonstrations (drawn from the train split)"})
    max_train_minutes: float = field(
        default=0.0, metadata={"help": "stop training after this many minutes (0: no limit; max_steps still applies)"}
    )
    save_final_model: bool = field(default=True, metadata={"help": "save the final adapter/model to output_dir"})
    console: str = field(
        default="compact",
        metadata={
            "help": "console output: compact (a progress bar, the measured step time, one line every few steps and "
            "per evaluation) or full (TRL's whole metrics dict every logging step); either way every metric goes to "
            "<output_dir>/metrics.jsonl and to TensorBoard when report_to has it",
            "choices": list(CONSOLE_MODES),
        },
    )

    def __post_init__(self) -> None:
        self.algorithm = str(self.algorithm).lower()
        if self.algorithm == "ppo":
            raise ValueError(
                "PPO with a learned critic is not available in TRL 1.x; use algorithm: grpo (num_iterations > 1 gives "
                "the PPO-style clipped update) or rloo, or export tasks for verl (`rlvr export --format verl`)"
            )
        if self.algorithm not in ALGORITHMS:
            raise ValueError(f"algorithm must be one of {ALGORITHMS}, got {self.algorithm!r}")
        if isinstance(self.families, str):
            self.families = [f for f in self.families.replace(",", " ").split() if f]
        self.task_options = _load_structured(self.task_options, "task_options") or {}
        if not isinstance(self.task_options, dict):
            raise ValueError(f"task_options must be a mapping, got {type(self.task_options).__name__}")
        self.mixture = _load_structured(self.mixture, "mixture")
        self.eval_sets = _load_structured(self.eval_sets, "eval_sets") or {}
        if not isinstance(self.eval_sets, dict):
            raise ValueError("eval_sets must be a mapping name -> {split, ...}")
        for name, spec in self.eval_sets.items():
            if not isinstance(spec, dict):
                raise ValueError(f"eval set {name!r} must be a mapping {{split, size, options}}, got {spec!r}")
            if not isinstance(spec.get("options") or {}, dict):
                raise ValueError(f"eval set {name!r}: options must be a mapping of generator options, "
                                 f"got {spec['options']!r}")
        self.primary_test = _load_structured(self.primary_test, "primary_test")
        self.pooled_test = _load_structured(self.pooled_test, "pooled_test")
        self.curriculum = _load_structured(self.curriculum, "curriculum")
        self.frontier = _load_structured(self.frontier, "frontier")
        if isinstance(self.dynamic_sampling, str):
            text = self.dynamic_sampling.strip().lower()
            self.dynamic_sampling = {"true": True, "false": False, "none": None}.get(text) if text in ("true", "false", "none") \
                else _load_structured(self.dynamic_sampling, "dynamic_sampling")
        if self.curriculum and self.frontier:
            raise ValueError("choose one task-selection policy: `curriculum` (threshold levels) or `frontier`")
        if isinstance(self.reward_funcs, str):
            self.reward_funcs = [f for f in self.reward_funcs.replace(",", " ").split() if f]
        self.prompt_options()  # a negative few_shot fails here
        if self.prompt_style != DEFAULT_STYLE:
            for m in self.mix():
                styles = get_family(m.family).styles
                if self.prompt_style not in styles:
                    raise ValueError(f"prompt_style {self.prompt_style!r} is not a style of {m.family} (styles: {list(styles)})")
        if self.train_size < 0 or self.eval_size < 0:
            raise ValueError("train_size and eval_size must be >= 0")
        check_draw(self.sampling_draw)
        self.console = str(self.console).lower()
        if self.console not in CONSOLE_MODES:
            raise ValueError(f"console must be one of {CONSOLE_MODES}, got {self.console!r}")

    def prompt_options(self) -> dict[str, Any]:
        """The recipe's prompt options (system prompt, style, few-shot), as family config options.

        They are part of every task's config (``meta["config"]``), so a training prompt regenerates
        exactly (:func:`rlvr.regenerate`); only values that differ from the defaults are set.
        Demonstrations come from the training split.
        """
        options = {"prompt_style": self.prompt_style, "system_prompt": self.system_prompt, "few_shot": self.few_shot,
                   "few_shot_seed": self.few_shot_seed}
        if self.few_shot:
            options["few_shot_split"] = self.train_split
        return PromptOptions(**options).changed()

    def mix(self) -> list[FamilyMix]:
        """The training mixture as :class:`rlvr.datasets.FamilyMix` list (prompt and ``task_options`` applied)."""
        return build_mix(self.mixture, self.families, {**self.prompt_options(), **self.task_options})


def build_mix(mixture: Any, families: Sequence[str] | None, options: dict | None) -> list[FamilyMix]:
    """``mixture`` (list of {family, weight, options, split} or a ``"fam[@split][:w],..."`` string) or
    ``families`` (``NAME[@SPLIT][:WEIGHT]`` items) -> ``FamilyMix`` list, shared ``options`` under each
    entry's own."""
    source = mixture if mixture else list(families or [])
    if not source:
        raise ValueError("no task families given (set `families` or `mixture`)")
    return [FamilyMix(c.family, c.weight, {**(options or {}), **c.options}, c.split) for c in parse_mix(source)]


def recipe_mapping(args: Sequence[str]) -> dict[str, Any]:
    """The mapping of the ``--config`` YAML named in ``args`` (empty without one)."""
    args = list(args)
    if "--config" not in args or args.index("--config") + 1 >= len(args):
        return {}
    path = args[args.index("--config") + 1]
    if not os.path.isfile(path):
        raise FileNotFoundError(f"recipe {path!r} not found")
    with open(path, encoding="utf-8") as fh:
        data = yaml.safe_load(fh) or {}
    return data if isinstance(data, dict) else {}


def peek_algorithm(args: Sequence[str]) -> str:
    """The algorithm named on the command line or in the ``--config`` YAML (default grpo)."""
    args = list(args)
    for i, a in enumerate(args):
        if a.startswith("--algorithm="):
            return a.split("=", 1)[1].lower()
        if a == "--algorithm" and i + 1 < len(args):
            return args[i + 1].lower()
    return str(recipe_mapping(args).get("algorithm") or "grpo").lower()
