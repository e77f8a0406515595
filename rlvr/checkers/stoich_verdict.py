"""What every stoichiometry checker shares: reward modes, the metric keys of a verdict, reading the
answer block out of a completion and the zero-reward verdict of a failure (see ``docs/verification.md``)."""
from __future__ import annotations

from typing import Any

from rlvr.answer import answer_text
from rlvr.reasons import Reason
from rlvr.task import Verdict

#: Reward modes accepted by every stoichiometry checker (see docs/verification.md).
REWARD_MODES = ("em", "strict", "f1", "jaccard", "shaped", "em+format")
#: Reward of a well-formed, valid but wrong answer under ``reward="em+format"``.
FORMAT_CREDIT = 0.1
#: The metric keys every stoichiometry verdict carries (numbers), besides ``diagnostics``.
METRIC_KEYS = ("em", "jaccard", "f1", "mol_jaccard", "mol_f1", "valid", "balanced", "deficitary", "exceeding", "both")

MAX_LISTED = 20  # names listed in diagnostics
MAX_NAME = 80  # characters per listed name


def reward_mode(reward: str) -> str:
    """``reward`` if it is one of :data:`REWARD_MODES`, else ``ValueError``."""
    if reward not in REWARD_MODES:
        raise ValueError(f"unknown reward mode {reward!r}; valid modes: {list(REWARD_MODES)}")
    return reward


def zero_metrics() -> dict[str, Any]:
    """Every metric of :data:`METRIC_KEYS` at zero."""
    return {key: 0.0 for key in METRIC_KEYS}


def fail(reason: Reason, detail: str, **extra: Any) -> Verdict:
    """The zero-reward verdict of a failed answer, with ``detail`` and ``extra`` as its diagnostics."""
    metrics = zero_metrics()
    metrics["diagnostics"] = {"detail": detail, **extra}
    return Verdict(reward=0.0, correct=False, metrics=metrics, reason=reason)


def extract(completion: Any) -> tuple[str | None, Verdict | None]:
    """The answer text, or a failure verdict (``no_answer`` / ``too_long``)."""
    try:
        text, reason = answer_text(completion)
    except Exception as exc:  # noqa: BLE001 - extraction is total on strings; be safe on exotic objects
        return None, fail(Reason.NO_ANSWER, f"could not read the completion ({type(exc).__name__})")
    if text is None:
        if reason == "too_long":
            return None, fail(Reason.TOO_LONG, "completion or answer exceeds the length cap")
        detail = "completion is not text" if reason == "not_text" else "no <answer>...</answer> block"
        return None, fail(Reason.NO_ANSWER, detail)
    return text, None


def short(name: str) -> str:
    """A species name cut to :data:`MAX_NAME` characters for the diagnostics."""
    return name if len(name) <= MAX_NAME else name[: MAX_NAME - 3] + "..."


__all__ = [
    "FORMAT_CREDIT", "MAX_LISTED", "METRIC_KEYS", "REWARD_MODES", "extract", "fail", "reward_mode", "short",
    "zero_metrics",
]
