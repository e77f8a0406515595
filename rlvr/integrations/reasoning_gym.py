"""rlvr families as reasoning-gym (0.1.x) datasets: ``create_dataset("rlvr/<family>")``, composites, curricula.

Importing this module registers every rlvr family with reasoning-gym's own registry
(``reasoning_gym.factory.register_dataset``) as ``rlvr/<family>``, so::

    import reasoning_gym
    import rlvr.integrations.reasoning_gym  # noqa: F401  (registers rlvr/stoich.t2, rlvr/mol.count, ...)

    data = reasoning_gym.create_dataset("rlvr/stoich.t2", size=100, seed=0, split="test_out")
    entry = data[0]                           # {"question", "answer", "metadata"}
    data.score_answer(answer, entry)          # rlvr.verify's reward, in [0, 1]

reasoning-gym has no entry-point discovery: registration happens on this import (families added later,
e.g. by a plugin, with :func:`register`). Entry ``i`` is ``rlvr.generate(family, split, seed, i,
**options)``, so it is the same on every machine. ``question`` is the whole instruction (system and
user message), ``answer`` the content of the reference answer block, ``metadata["task_json"]`` the task
record; ``score_answer`` accepts the extracted answer (reasoning-gym's ``extract_answer``) or the whole
completion and scores it with :func:`rlvr.verify`.

Difficulty: each family's knobs (:class:`rlvr.registry.Knob`) are config fields and curriculum
attributes (``create_curriculum("rlvr/mol.count")``): a scalar knob is the field of its own name
(``load``, ``complexity_bin``), a range knob the fields ``min_<option>`` / ``max_<option>``
(``min_coef_in``, ``max_coef_in``). Other family options go in ``options``.
"""
from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass, field
from typing import Any, ClassVar, Optional

from reasoning_gym.coaching import BaseCurriculum, RangeAttributeDefinition, ScalarAttributeDefinition
from reasoning_gym.dataset import ProceduralDataset
from reasoning_gym.factory import DATASETS, register_dataset

from rlvr.answer import extract_tagged
from rlvr.api import generate, oracle_completion
from rlvr.envs.episode import prompt_text
from rlvr.registry import Knob, get_family, list_families
from rlvr.rewards.scoring import load_task, score

#: the prefix of every registered name: ``rlvr/stoich.t2``
PREFIX = "rlvr/"
#: tags whose presence marks a whole completion (scored as written) rather than an extracted answer
_COMPLETION_TAGS = ("<answer", "</answer", "<think", "</think")


def dataset_name(family: str) -> str:
    """The reasoning-gym name of an rlvr family."""
    return PREFIX + family


def knob_fields(knob: Knob) -> tuple[str, ...]:
    """The config fields of a knob: ``(option,)``, or ``(min_option, max_option)`` for a range."""
    return (f"min_{knob.option}", f"max_{knob.option}") if knob.span else (knob.option,)


@dataclass
class ChemDatasetConfig:
    """The fields every rlvr dataset takes; each family's config adds its knob fields (None: family default).

    ``split``: the family's split; ``options``: other family options (``{"encoding": "smiles"}``);
    ``reward_mode``: a checker reward mode for ``score_answer`` (None: the family's default).
    """

    family: ClassVar[str] = ""
    knobs: ClassVar[tuple[Knob, ...]] = ()

    seed: Optional[int] = None
    size: int = 500
    split: str = "train"
    options: dict = field(default_factory=dict)
    reward_mode: Optional[str] = None

    def family_options(self) -> dict[str, Any]:
        """``options`` plus every knob that is set, as the family's option values."""
        out = dict(self.options)
        for knob in self.knobs:
            values = [getattr(self, name) for name in knob_fields(knob)]
            if all(v is None for v in values):
                continue
            if any(v is None for v in values):
                raise ValueError(f"{dataset_name(self.family)}: set both {' and '.join(knob_fields(knob))}")
            if knob.option in out:
                raise ValueError(f"{dataset_name(self.family)}: {knob.option!r} is set twice (a knob and options)")
            out[knob.option] = tuple(values) if knob.span else values[0]
        return out

    def validate(self) -> None:
        """Raise ``ValueError`` (or ``TypeError``) naming a bad size, split, option or reward mode."""
        spec = get_family(self.family)
        if int(self.size) <= 0:
            raise ValueError(f"{dataset_name(self.family)}: size must be positive, got {self.size}")
        if self.split not in spec.splits:
            raise ValueError(f"{dataset_name(self.family)}: unknown split {self.split!r}; splits: {list(spec.splits)}")
        spec.make_config(**self.family_options())
        spec.validate_check_options({} if self.reward_mode is None else {"reward": self.reward_mode})


def config_class(family: str) -> type[ChemDatasetConfig]:
    """The dataclass of one family's dataset: :class:`ChemDatasetConfig` plus its knob fields."""
    spec = get_family(family)
    knobs = spec.difficulty.knobs if spec.difficulty is not None else ()
    fields = [(name, Optional[Any], field(default=None)) for knob in knobs for name in knob_fields(knob)]
    name = "".join(part.capitalize() for part in family.replace("_", ".").split(".")) + "DatasetConfig"
    return dataclasses.make_dataclass(name, fields, bases=(ChemDatasetConfig,),
                                      namespace={"family": family, "knobs": tuple(knobs), "__module__": __name__})


class ChemDataset(ProceduralDataset):
    """Tasks of one rlvr family as reasoning-gym entries, scored by :func:`rlvr.verify`."""

    def __init__(self, config: ChemDatasetConfig) -> None:
        super().__init__(config=config, seed=config.seed, size=config.size)
        self._options = config.family_options()

    @property
    def category(self) -> str:
        return "chemistry"

    def __getitem__(self, idx: int) -> dict[str, Any]:
        config = self.config
        task = generate(config.family, config.split, self.seed, int(idx), **self._options)
        return {
            "question": prompt_text(task),
            "answer": extract_tagged(oracle_completion(task)),
            "metadata": {
                "source_dataset": dataset_name(config.family),
                "source_index": int(idx),
                "task_id": task.id,
                "family": task.family,
                "split": config.split,
                "prompt": [dict(m) for m in task.prompt],
                "task_json": task.to_json(),
                "difficulty": {k.option: self._options[k.option] for k in config.knobs if k.option in self._options},
            },
        }

    def score_answer(self, answer: Optional[str], entry: dict[str, Any]) -> float:
        """rlvr's reward of ``answer``: a whole completion as written, an extracted answer inside a block."""
        if answer is None:
            return 0.0
        task = load_task(entry["metadata"]["task_json"])
        text = str(answer)
        completion = text if any(tag in text.lower() for tag in _COMPLETION_TAGS) else f"<answer>{text}</answer>"
        return float(score(task, completion, self.config.reward_mode).reward)


class ChemCurriculum(BaseCurriculum):
    """reasoning-gym's curriculum over a family's knobs: a scalar or range attribute per knob."""

    def __init__(self, family: str) -> None:
        config_cls = DATASETS[dataset_name(family)][1]
        super().__init__(name=f"{dataset_name(family)} curriculum", config_cls=config_cls)
        self._define_attributes(*(_attribute(knob) for knob in config_cls.knobs))


def _attribute(knob: Knob) -> ScalarAttributeDefinition | RangeAttributeDefinition:
    if knob.span:
        low, high = knob_fields(knob)
        return RangeAttributeDefinition(name=knob.option, levels=list(knob.levels), description=knob.description,
                                        lower_field_name=low, upper_field_name=high, ensure_interval=False)
    return ScalarAttributeDefinition(name=knob.option, levels=list(knob.levels), description=knob.description,
                                     field_name=knob.option)


def register(family: str) -> str:
    """Register one family (its dataset, config and, with knobs, curriculum); returns its name. Idempotent."""
    name = dataset_name(family)
    if name not in DATASETS:
        config_cls = config_class(family)
        curriculum = functools.partial(ChemCurriculum, family) if config_cls.knobs else None
        register_dataset(name, ChemDataset, config_cls, curriculum)
    return name


def register_all() -> list[str]:
    """Register every family rlvr knows now; returns their reasoning-gym names."""
    return [register(family) for family in list_families()]


DATASET_NAMES: tuple[str, ...] = tuple(register_all())

__all__ = ["DATASET_NAMES", "PREFIX", "ChemCurriculum", "ChemDataset", "ChemDatasetConfig", "config_class",
           "dataset_name", "knob_fields", "register", "register_all"]
