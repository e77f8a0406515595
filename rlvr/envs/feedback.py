"""Exact, non-leaking feedback on a wrong answer, written from a :class:`~rlvr.task.Verdict` alone.

A completion without a readable answer (:data:`rlvr.reasons.FORMAT_FAILURES`) gets the same advice
in every family; any other wrong answer gets its family's ``feedback`` hook
(:class:`~rlvr.registry.FamilySpec`), which reads the diagnostics the checker put in
``Verdict.metrics`` and never ``task.ground_truth``: it says *what* is wrong, never the right value.
"""
from __future__ import annotations

from rlvr.reasons import Reason, answered
from rlvr.registry import get_family
from rlvr.task import Task, Verdict

_FORMAT_ADVICE = {
    Reason.NO_ANSWER: "No answer found: write the final answer inside <answer>...</answer> (after any reasoning).",
    Reason.TOO_LONG: "The response or the answer is too long; give a shorter final answer inside <answer>...</answer>.",
    Reason.NOT_TEXT: "The response is not text.",
    Reason.CHECKER_ERROR: "The answer could not be checked; write it in the format the question asks for.",
    Reason.TIMEOUT: "The answer could not be checked in time; give a simpler answer in the format the question asks for.",
}


def _format_failure(verdict: Verdict) -> list[str]:
    advice = _FORMAT_ADVICE.get(verdict.reason)
    if advice is not None:
        return [advice]
    detail = verdict.diagnostics.get("detail")
    text = "The answer could not be parsed"
    return [f"{text}: {detail}." if detail else f"{text}; use the format the question asks for."]


def feedback_lines(task: Task, verdict: Verdict) -> list[str]:
    """What is wrong with the answer, one sentence per line (empty for a correct answer)."""
    if verdict.correct:
        return []
    if not answered(verdict):
        return _format_failure(verdict)
    hook = get_family(task.family).feedback
    lines = hook(task, verdict) if hook is not None else []
    return lines or [f"The answer is not correct (reason: {verdict.reason})."]


#: what the reply asks for after a wrong answer when attempts remain
RETRY_HINT = "Try again: give the complete corrected answer inside <answer>...</answer>."


def feedback_text(task: Task, verdict: Verdict, *, turn: int, max_turns: int, retry_hint: str = RETRY_HINT) -> str:
    """The environment's reply after ``turn``: ``Correct.`` or what is wrong plus what to do next."""
    if verdict.correct:
        return "Correct."
    lines = feedback_lines(task, verdict)
    head = f"Not correct (attempt {turn} of {max_turns})."
    tail = retry_hint if turn < max_turns else "No attempts left."
    return "\n".join([head, *("- " + line for line in lines), tail])
