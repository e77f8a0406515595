"""The one vocabulary of verdict reasons, shared by checkers, rewards, envs, eval and training.

``Reason`` is a :class:`~enum.StrEnum`, so a reason compares equal to its plain string
(``Reason.NO_ANSWER == "no_answer"``) and serialises to JSON as that string. Two predicates
define what every consumer reports:

- :func:`answered`: the completion had a readable, non-empty answer (whatever its correctness);
- :func:`format_ok`: the same thing seen from the format reward (one definition, so the format
  reward, eval's "answered" column and the quickstart's "format ok" always agree).
"""
from __future__ import annotations

import sys
from typing import Any

if sys.version_info >= (3, 11):
    from enum import StrEnum
else:  # pragma: no cover - Python 3.10
    from enum import Enum

    class StrEnum(str, Enum):
        """``enum.StrEnum`` for Python 3.10."""

        def __str__(self) -> str:
            return str(self.value)


class Reason(StrEnum):
    """Why a verdict has the reward it has (``OK`` exactly when the answer is correct)."""

    OK = "ok"
    # no readable answer: format failures
    NO_ANSWER = "no_answer"
    TOO_LONG = "too_long"
    NOT_TEXT = "not_text"
    UNPARSABLE = "unparsable"
    CHECKER_ERROR = "checker_error"
    TIMEOUT = "timeout"
    # read, but wrong
    INVALID_SPECIES = "invalid_species"
    WRONG_SPECIES = "wrong_species"
    WRONG_COUNT = "wrong_count"
    SPECIES_MISMATCH = "species_mismatch"
    WRONG_LENGTH = "wrong_length"
    NOT_POSITIVE = "not_positive"
    UNBALANCED = "unbalanced"
    WRONG_ORDER = "wrong_order"
    NOT_MINIMAL = "not_minimal"
    MISSING_KEY = "missing_key"
    DUPLICATE_KEY = "duplicate_key"
    WRONG_TYPE = "wrong_type"
    WRONG_VALUE = "wrong_value"
    INVALID_SMILES = "invalid_smiles"
    MULTIPLE_FRAGMENTS = "multiple_fragments"
    CONSTRAINT_FAILED = "constraint_failed"
    SEARCH_BUDGET_EXHAUSTED = "search_budget_exhausted"


#: reasons meaning the completion had no readable answer (what the format reward penalises)
FORMAT_FAILURES: frozenset[Reason] = frozenset({
    Reason.NO_ANSWER, Reason.TOO_LONG, Reason.NOT_TEXT, Reason.UNPARSABLE, Reason.CHECKER_ERROR, Reason.TIMEOUT,
})


def answered(reason: Any) -> bool:
    """Whether a verdict with this reason had a readable answer (a ``Verdict`` or a reason string)."""
    value = getattr(reason, "reason", reason)
    return str(value) not in FORMAT_FAILURES


def format_ok(reason: Any) -> bool:
    """Whether the completion's format was acceptable: the same test as :func:`answered`."""
    return answered(reason)


__all__ = ["FORMAT_FAILURES", "Reason", "StrEnum", "answered", "format_ok"]
