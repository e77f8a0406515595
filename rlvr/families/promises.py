"""What a reward promises, checked on a family's conformance set: a pure checker, a reward in [0, 1] on every
answer, and a score of 1.0 for the right answer in every form the prompt allows.

- :func:`check_pure`: verifying the same completion twice gives the same verdict, the task is unchanged
  after ``verify`` (deep-compared with a copy taken before), and every task's oracle answer scores the same
  again after the other tasks' verdicts. A checker that pops from ``ground_truth`` or keeps a module-level
  record of solved tasks fails here, with a message that says the checker changed state.
- :func:`check_reward_range`: on every task, the oracle answer, that answer repeated (two and three answer
  blocks) and after a reasoning block, every hedged answer (:mod:`rlvr.families.hedges`) and every completion
  of the shared hostile corpus (:mod:`rlvr.families.hostile`) get a reward in [0, 1]; a hostile completion
  never makes the checker raise.
- :func:`check_renderings`: the oracle answer after reasoning text and with spaces around its body, and every
  rendering the family declares (``FamilySpec.renderings``: digits and word, another order, another atom
  order), scores 1.0. A family that declares none is told so once (:class:`ConformanceWarning`).
"""
from __future__ import annotations

import copy
import numbers
import warnings
from typing import Any, Iterable

from rlvr.api import oracle_completion
from rlvr.families.contract import ConformanceError, answer_span, near_misses, perturbations, require, shown
from rlvr.families.derived import key_steps
from rlvr.families.hedges import hedged_answers
from rlvr.families.hostile import hostile_completions
from rlvr.families.timing import HOSTILE_MAX_SECONDS, timed_verify
from rlvr.reasons import Reason
from rlvr.registry import get_family
from rlvr.task import Task, Verdict

#: the reasoning put before an oracle answer (a rendering every family accepts)
REASONING = "<think>Work it out step by step.</think>\nThe answer follows.\n"
_WARNED: set[str] = set()


class ConformanceWarning(UserWarning):
    """Something the conformance checks could not try, said once per family."""


def _difference(before: Any, after: Any, path: str) -> str | None:
    """Where ``after`` first differs from ``before`` (``ground_truth.count: 3 -> missing``), or None."""
    if isinstance(before, dict) and isinstance(after, dict):
        for key in list(before) + [k for k in after if k not in before]:
            if key not in after or key not in before:
                return f"{path}.{key}: {'missing' if key not in before else repr(before[key])[:40]} -> " \
                       f"{'missing' if key not in after else repr(after[key])[:40]}"
            found = _difference(before[key], after[key], f"{path}.{key}")
            if found:
                return found
        return None
    if isinstance(before, list) and isinstance(after, list) and len(before) == len(after):
        return next((d for i, (a, b) in enumerate(zip(before, after)) if (d := _difference(a, b, f"{path}[{i}]"))), None)
    return None if before is after or before == after else f"{path}: {repr(before)[:40]} -> {repr(after)[:40]}"


def _same(a: Verdict, b: Verdict) -> bool:
    return (repr(a.reward), a.correct, str(a.reason)) == (repr(b.reward), b.correct, str(b.reason))


def _short(verdict: Verdict) -> str:
    return f"reward {verdict.reward!r} ({verdict.reason})"


def _unchanged(task: Task, before: Task, completion: str) -> None:
    for name in ("id", "family", "prompt", "ground_truth", "meta"):
        where = _difference(getattr(before, name), getattr(task, name), name)
        require(where is None, f"{task.id}: the checker changed state: verifying {shown(completion)} modified the "
                               f"task ({where}); a checker must read the task, never write to it")


def check_pure(tasks: Iterable[Task]) -> int:
    """The checker is a pure function of (task, completion): each task's oracle answer and one wrong answer,
    verified twice in a row, get the same verdict both times and leave the task equal to a deep copy taken
    before; then every oracle answer, verified again after all the other tasks' verdicts, still gets its
    first verdict. Pass freshly generated tasks. Returns how many verdicts were compared."""
    first: list[tuple[Task, str, Verdict]] = []
    compared = 0
    for task in tasks:
        before = copy.deepcopy(task)
        try:
            oracle = oracle_completion(task)
        except Exception:  # noqa: BLE001 - an oracle that cannot answer is the agreement check's finding
            continue
        wrong = (near_misses(oracle) + key_steps(oracle))[:1] if "<answer>" in oracle else []
        for completion in [oracle, *(wrong or ["<answer></answer>"])]:
            verdicts = []
            for _ in range(2):
                verdicts.append(timed_verify(task, completion))
                _unchanged(task, before, completion)
            require(_same(*verdicts), f"{task.id}: the checker changed state: the same completion {shown(completion)} "
                                      f"scored {_short(verdicts[0])}, then {_short(verdicts[1])} when verified again; a "
                                      f"verdict must depend on the task and the completion alone (no module-level "
                                      f"record of solved tasks, no counter)")
            compared += 1
            if completion == oracle:
                first.append((task, oracle, verdicts[0]))
    for task, oracle, verdict in first:
        again = timed_verify(task, oracle)
        require(_same(verdict, again), f"{task.id}: the checker changed state: the oracle answer {shown(oracle)} "
                                       f"scored {_short(verdict)}, then {_short(again)} after the verdicts of "
                                       f"{len(first) - 1} other tasks; a verdict must not depend on earlier verdicts")
        compared += 1
    return compared


def require_in_range(task: Task, completion: str, verdict: Verdict, what: str) -> None:
    """``ConformanceError`` unless ``verdict``'s reward is a number in [0, 1]."""
    reward = verdict.reward
    ok = isinstance(reward, numbers.Real) and not isinstance(reward, bool) and 0.0 <= float(reward) <= 1.0
    require(ok, f"{task.id}: reward {reward!r} outside [0, 1] for {shown(completion)} ({what}); every verdict's "
                f"reward is a number in [0, 1] (clip partial credit, score one answer, not each answer block)")


def own_answers(oracle: str) -> list[tuple[str, str]]:
    """The oracle answer and what a policy adds to it: repeated in two and three answer blocks, after reasoning."""
    return [(oracle, "the oracle answer"), (f"{oracle}\n{oracle}", "the oracle answer twice"),
            (f"{oracle} {oracle} {oracle}", "the oracle answer three times"),
            (REASONING + oracle, "the oracle answer after reasoning")]


def check_reward_range(tasks: Iterable[Task], *, hostile: bool = True, hedges: bool = True) -> int:
    """On every task: the :func:`own_answers`, every hedged answer and (``hostile``) every completion of the
    shared hostile corpus get a reward in [0, 1], and no hostile completion makes the checker raise. Returns
    how many verdicts were checked."""
    corpus = hostile_completions() if hostile else []
    checked = 0
    for task in tasks:
        oracle = oracle_completion(task)
        answers = own_answers(oracle)
        if hedges and "<answer>" in oracle:
            answers += [(c, "a hedged answer") for c in hedged_answers(oracle, perturbations(task, oracle))]
        for completion, what in answers:
            require_in_range(task, completion, timed_verify(task, completion), what)
        for completion in corpus:
            verdict = timed_verify(task, completion, max_seconds=HOSTILE_MAX_SECONDS)
            require(verdict.reason != Reason.CHECKER_ERROR,
                    f"{task.id}: the checker raised on {shown(completion)}: {verdict.metrics.get('error', verdict)}")
            require_in_range(task, completion, verdict, "a hostile completion")
        checked += len(answers) + len(corpus)
    return checked


def generic_renderings(oracle: str) -> list[tuple[str, str]]:
    """The oracle answer in the forms every family accepts through :func:`rlvr.answer.extract_answer`: after
    reasoning, and with spaces and new lines around the answer block's body."""
    start, end = answer_span(oracle)
    body = oracle[start:end]
    return [(REASONING + oracle, "after reasoning"),
            (f"{oracle[:start]} {body} {oracle[end:]}", "with spaces around it"),
            (f"{oracle[:start]}\n{body}\n{oracle[end:]}", "on its own line")]


def warn_without_renderings(family: str) -> bool:
    """Say once per family that it declares no renderings; whether it declares some."""
    if get_family(family).renderings is not None:
        return True
    if family not in _WARNED:
        _WARNED.add(family)
        warnings.warn(f"{family}: declares no renderings, so a right answer is tried only in the oracle's own form "
                      f"(after reasoning, with spaces around it); declare FamilySpec.renderings with the right answer "
                      f"in each other form the prompt allows (digits and word, another order of a list or a bag, a "
                      f"formula in another atom order, another SMILES of a molecule)", ConformanceWarning, stacklevel=2)
    return False


def declared_renderings(task: Task) -> list[str]:
    """The family's ``renderings(task)`` (none where it declares no hook); ``ConformanceError`` when the hook raises."""
    hook = get_family(task.family).renderings
    if hook is None:
        return []
    try:
        return list(hook(task))
    except Exception as exc:  # noqa: BLE001 - the hook's own failure is the finding
        raise ConformanceError(f"{task.id}: the family's renderings hook raised {type(exc).__name__}: {exc}") from None


def check_renderings(family: str, tasks: Iterable[Task]) -> int:
    """The right answer of every task scores 1.0 in every form: :func:`generic_renderings` of its oracle answer
    and each of the family's ``renderings(task)``. Returns how many were verified."""
    declared = warn_without_renderings(family)
    checked = 0
    for task in tasks:
        oracle = oracle_completion(task)
        forms = generic_renderings(oracle) if "<answer>" in oracle else []
        forms += [(c, "in another form the family renders") for c in (declared_renderings(task) if declared else [])]
        for completion, what in forms:
            verdict = timed_verify(task, completion)
            if not (verdict.correct and verdict.reward == 1.0):
                raise ConformanceError(
                    f"{task.id}: a right answer in another form scores {_short(verdict)}: {shown(completion)} (the "
                    f"oracle's answer {shown(oracle)} {what}); every form of the right answer the prompt allows must "
                    f"score 1.0")
            checked += 1
    return checked


__all__ = ["REASONING", "ConformanceWarning", "check_pure", "check_renderings", "check_reward_range",
           "declared_renderings", "generic_renderings", "own_answers", "require_in_range", "warn_without_renderings"]
