"""Options of the stoichiometry task builders: one frozen dataclass per task type, validated on
construction; each class documents its options (the Type 2 ``semantics`` are explained in
:mod:`rlvr.generators.stoich.tasks`)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rlvr.chem.species import ENCODINGS
from rlvr.generators.stoich.splits import DEFAULT_HOLDOUT, SPLIT_MODES, SplitSpec

PRODUCT_SPLITS: tuple[str, ...] = ("train", "valid", "test_in", "test_out", "train_cross", "valid_cross", "test_cross")
BASIC_SPLITS: tuple[str, ...] = ("train", "valid", "test")
SEMANTICS: tuple[str, ...] = ("limiting", "paper")
PROMPT_MODES: tuple[str, ...] = ("closed", "open")
CROSS_TEST_REACTIONS: tuple[str, ...] = ("test", "train")


def _int_range(name: str, value: Any) -> tuple[int, int]:
    try:
        lo, hi = (int(v) for v in value)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a pair [lo, hi] of integers, got {value!r}") from exc
    if not 1 <= lo <= hi:
        raise ValueError(f"{name} must satisfy 1 <= lo <= hi, got {value!r}")
    return lo, hi


@dataclass(frozen=True)
class StoichConfig:
    """Options shared by every stoichiometry family.

    - ``encoding``: ``formula`` (Hill formulas) or ``smiles`` (canonical SMILES).
    - ``corpus``: ``embedded`` (template corpus), ``embedded-small``, ``classic``, ``classic-fresh`` (held-out
      classic equations, test splits only), ``mixed`` (embedded + classic) or a path to a user file (reaction
      SMILES, USPTO style, or a ChemAlgebra ``src`` file with its ``tgt`` twin).
    - ``split_mode``: ``hash`` | ``class`` | ``mw`` | ``document`` | ``time`` (see :mod:`.splits`), with
      ``split_fractions`` (train, valid, test), ``holdout_classes``, ``mw_side``, ``time_cutoff``.
    - ``phrasing``: fix the prompt phrasing (0-2); None draws it per task.
    """

    encoding: str = "formula"
    corpus: str = "embedded"
    split_mode: str = "hash"
    split_fractions: tuple[float, float, float] = (0.8, 0.1, 0.1)
    holdout_classes: tuple[str, ...] = DEFAULT_HOLDOUT
    mw_side: str = "high"
    time_cutoff: int | None = None
    phrasing: int | None = None

    def __post_init__(self) -> None:
        if self.encoding not in ENCODINGS:
            raise ValueError(f"encoding must be one of {list(ENCODINGS)}, got {self.encoding!r}")
        if not isinstance(self.corpus, str) or not self.corpus:
            raise ValueError(f"corpus must be a name or a path, got {self.corpus!r}")
        if self.split_mode not in SPLIT_MODES:
            raise ValueError(f"split_mode must be one of {list(SPLIT_MODES)}, got {self.split_mode!r}")
        object.__setattr__(self, "split_fractions", tuple(float(x) for x in self.split_fractions))
        holdout = (self.holdout_classes,) if isinstance(self.holdout_classes, str) else tuple(self.holdout_classes)
        object.__setattr__(self, "holdout_classes", holdout)
        if self.phrasing is not None and not isinstance(self.phrasing, int):
            raise ValueError(f"phrasing must be an integer or None, got {self.phrasing!r}")
        self.split_spec()  # validates the split options

    def split_spec(self) -> SplitSpec:
        return SplitSpec(self.split_mode, self.split_fractions, self.holdout_classes, self.mw_side, self.time_cutoff)


@dataclass(frozen=True)
class ProductsConfig(StoichConfig):
    """Products task options (ChemAlgebra Type 1 / Type 2).

    - ``semantics``: ``limiting`` (default) or ``paper`` (see module docs; only affects Type 2).
    - ``prompt_mode``: ``closed`` (reactants and reagents only, as the paper) or ``open`` (the balanced
      reference reaction is shown, so the task is pure algebra).
    - ``coef_in`` / ``coef_out``: S_in and S_out (inclusive ranges); ``augmentation``: reactions are used
      ``augmentation`` times in a row with different coefficients (1 = x1, 5 = x5).
    - ``cross_test_reactions``: ``test`` (default: ``test_cross`` draws held-out reactions, coefficient
      sets swapped w.r.t. the training half-assignment) or ``train`` (section 2.1 literally: the training
      reactions with swapped coefficients; then test_cross shares reactions with train_cross).
    """

    semantics: str = "limiting"
    prompt_mode: str = "closed"
    coef_in: tuple[int, int] = (1, 5)
    coef_out: tuple[int, int] = (6, 10)
    augmentation: int = 1
    cross_test_reactions: str = "test"

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.semantics not in SEMANTICS:
            raise ValueError(f"semantics must be one of {list(SEMANTICS)}, got {self.semantics!r}")
        if self.prompt_mode not in PROMPT_MODES:
            raise ValueError(f"prompt_mode must be one of {list(PROMPT_MODES)}, got {self.prompt_mode!r}")
        object.__setattr__(self, "coef_in", _int_range("coef_in", self.coef_in))
        object.__setattr__(self, "coef_out", _int_range("coef_out", self.coef_out))
        if not isinstance(self.augmentation, int) or self.augmentation < 1:
            raise ValueError(f"augmentation must be a positive integer (1 or 5 as ChemAlgebra), got {self.augmentation!r}")
        if self.cross_test_reactions not in CROSS_TEST_REACTIONS:
            raise ValueError(f"cross_test_reactions must be one of {list(CROSS_TEST_REACTIONS)}")


@dataclass(frozen=True)
class BalanceConfig(StoichConfig):
    """Balancing task options (default corpus: ``mixed``, template and classic equations).

    - ``unit_share``: the share of tasks drawn from equations whose answer is all ones (``A + B -> C + D``).
      Most template reactions are such 1:1 equations, which a model can "balance" without reasoning;
      by default they make up 10% of the tasks (1.0 draws uniformly from the whole pool, as a corpus would).
    """

    corpus: str = "mixed"
    unit_share: float = 0.1

    def __post_init__(self) -> None:
        super().__post_init__()
        if not 0.0 <= float(self.unit_share) <= 1.0:
            raise ValueError(f"unit_share must be in [0, 1], got {self.unit_share!r}")


@dataclass(frozen=True)
class ByproductConfig(StoichConfig):
    """Byproduct task options; ``scale``: the shown reaction is the reference times k in this range."""

    scale: tuple[int, int] = (1, 1)

    def __post_init__(self) -> None:
        super().__post_init__()
        object.__setattr__(self, "scale", _int_range("scale", self.scale))
