"""Checker of the balancing answers: judged by conservation (elements and charge) and minimality,
not by string equality, so any balanced, minimal, all-positive answer is correct. Scored first
against the task's written truth, against the canonical truth when an answer writes a species
otherwise than the task (see :mod:`rlvr.checkers.stoich`)."""
from __future__ import annotations

from math import gcd
from typing import Any, Mapping

from rlvr.checkers.metrics import bag_metrics, balance_rates
from rlvr.checkers.stoich_balance_truth import BalanceTruth, balance_delta, balance_truth, written_balance_truth
from rlvr.checkers.stoich_parse import AnswerError, BalanceAnswer, parse_balance_answer
from rlvr.checkers.stoich_species import formula_key, species_identity
from rlvr.checkers.stoich_record import as_task
from rlvr.checkers.stoich_verdict import FORMAT_CREDIT, MAX_LISTED, extract, fail, reward_mode, short
from rlvr.reasons import Reason
from rlvr.task import Task, Verdict

#: Balancing: shaped reward of a balanced, all-positive but non-minimal answer.
SHAPED_NOT_MINIMAL = 0.5
#: Balancing: shaped reward of an unbalanced answer: this times the fraction of balanced rows.
SHAPED_UNBALANCED_MAX = 0.4


class _NeedsCanonical(Exception):
    """An answer species is not in the written truth: score against the canonical truth."""


def _key_of(truth: BalanceTruth, species: str) -> Any:
    """The truth's key of a written species (None: it does not parse); raises :class:`_NeedsCanonical`."""
    written = truth.written
    if written is None:
        ident = species_identity(species, truth.encoding)
        return None if ident is None else ident[0]
    key = written.get(species)
    if key is None:
        if truth.encoding != "formula":
            raise _NeedsCanonical
        key = formula_key(species) if type(species) is str else None
    return key


def _map_equation(truth: BalanceTruth, answer: BalanceAnswer) -> tuple[tuple[int, ...] | None, Verdict | None]:
    """Coefficients in question order from an equation/JSON answer, or a failure verdict."""
    n = len(truth.keys)
    coefficients = [0] * n
    seen = [False] * n
    unknown = wrong_side = 0
    invalid: list[str] = []
    if answer.form == "equation":
        sided = [(0, t) for t in answer.left] + [(1, t) for t in answer.right]
    else:  # json: the side is implied when the species occurs on one side of the question only
        sided = []
        for species, k in answer.terms:
            key = _key_of(truth, species)
            on = [side for side in (0, 1) if key is not None and (side, key) in truth.index]
            sided.append((on[0] if len(on) == 1 else -1, (species, k)))
    written = truth.written
    for side, (species, k) in sided:
        key = written.get(species) if written is not None else None  # the common case, inline
        if key is None:
            key = _key_of(truth, species)
        if key is None:
            invalid.append(species)
            continue
        i = truth.index.get((side, key))
        if i is None:
            if side >= 0 and (1 - side, key) in truth.index:
                wrong_side += 1
            else:
                unknown += 1
            continue
        coefficients[i] += k
        seen[i] = True
    if invalid:
        return None, fail(
            Reason.INVALID_SPECIES,
            f"{len(invalid)} species do not parse as {truth.encoding}",
            invalid_species=[short(s) for s in invalid[:MAX_LISTED]],
        )
    missing = seen.count(False)
    if unknown or wrong_side or missing:
        detail = "the equation must contain exactly the question's species, each on its side"
        failure = fail(Reason.SPECIES_MISMATCH, detail, n_unknown=unknown, n_wrong_side=wrong_side, n_missing=missing)
        failure.metrics["valid"] = 1.0
        return None, failure
    return tuple(coefficients), None


def check_balance(task: Task | Mapping[str, Any], completion: Any, *, reward: str = "strict") -> Verdict:
    """Score a balancing answer by conservation and minimality.

    Accepted answers: the balanced equation (``{2}H2.{1}O2>>{2}H2O``, ``2 H2 + O2 -> 2 H2O``;
    species matched to the question's by identity), the coefficient list in question order
    (``2, 1, 2`` or ``[2,1,2]``), or a JSON object ``{species: coefficient}``. Correct means every
    element and the charge are conserved, all coefficients are positive and their gcd is 1.
    ``reward``: ``strict`` (alias ``em``), ``shaped`` (aliases ``f1``, ``jaccard``) or ``em+format``.
    """
    mode = reward_mode(reward)
    task = as_task(task)
    return check_balance_with(task, written_balance_truth(task), completion, mode)


def check_balance_with(task: Task, truth: BalanceTruth, completion: Any, mode: str) -> Verdict:
    """Read and score a balance answer against ``truth``; against the canonical truth when the written one cannot tell."""
    text, failure = extract(completion)
    if failure is not None:
        return failure
    try:
        answer = parse_balance_answer(text)
    except AnswerError as exc:
        return fail(exc.reason, exc.detail)
    try:
        return _score_balance(truth, answer, mode)
    except _NeedsCanonical:  # a species written otherwise than in the task: compare canonical identities
        return _score_balance(balance_truth(task), answer, mode)


def _score_balance(truth: BalanceTruth, answer: BalanceAnswer, mode: str) -> Verdict:
    n = len(truth.keys)
    if answer.form == "list":
        if len(answer.coefficients) != n:
            failure = fail(Reason.WRONG_LENGTH, f"expected {n} coefficients in question order, got {len(answer.coefficients)}")
            failure.metrics["valid"] = 1.0
            return failure
        coefficients = answer.coefficients
    else:
        mapped, failure = _map_equation(truth, answer)
        if mapped is None:
            return failure if failure is not None else fail(Reason.UNPARSABLE, "no coefficients")
        coefficients = mapped
    if truth.exact and coefficients == truth.coefficients:  # the reference answer: a known verdict
        n_rows = len(truth.rows)
        metrics = {
            "em": 1.0, "jaccard": 1.0, "f1": 1.0, "mol_jaccard": 1.0, "mol_f1": 1.0, "valid": 1.0,
            "balanced": 1.0, "deficitary": 0.0, "exceeding": 0.0, "both": 0.0,
            "positive": 1.0, "minimal": 1.0, "rows_balanced": 1.0,
            "diagnostics": {"form": answer.form, "imbalance": {}, "n_rows": n_rows, "n_rows_balanced": n_rows},
        }
        return Verdict(reward=1.0, correct=True, metrics=metrics, reason=Reason.OK)

    delta = balance_delta(truth, coefficients)
    positive = all(k > 0 for k in coefficients)
    balanced = not delta
    minimal = gcd(*coefficients) == 1
    correct = balanced and positive and minimal
    rows_balanced = sum(1 for row in truth.rows if row not in delta)

    pred_bag = {i: k for i, k in enumerate(coefficients) if k}
    true_bag = dict(enumerate(truth.coefficients))
    overlap = bag_metrics(pred_bag, true_bag)
    metrics: dict[str, Any] = {
        "em": float(correct),
        "jaccard": overlap["jaccard"],
        "f1": overlap["f1"],
        "mol_jaccard": 1.0,  # the answer names exactly the question's species
        "mol_f1": 1.0,
        "valid": 1.0,
        **balance_rates(delta),
        "positive": float(positive),
        "minimal": float(minimal),
        "rows_balanced": rows_balanced / len(truth.rows),
        "diagnostics": {
            "form": answer.form,
            "imbalance": delta,
            "n_rows": len(truth.rows),
            "n_rows_balanced": rows_balanced,
        },
    }

    if not positive:
        reason = Reason.NOT_POSITIVE
    elif not balanced:
        reason = Reason.UNBALANCED
        if answer.form == "list" and sorted(coefficients) == sorted(truth.coefficients):
            reason = Reason.WRONG_ORDER
    elif not minimal:
        reason = Reason.NOT_MINIMAL
    else:
        reason = Reason.OK

    if correct:
        value = 1.0
    elif mode in ("strict", "em"):
        value = 0.0
    elif mode == "em+format":
        value = FORMAT_CREDIT
    elif not positive:
        value = 0.0
    elif balanced:  # balanced, positive, not minimal
        value = SHAPED_NOT_MINIMAL
    else:
        value = SHAPED_UNBALANCED_MAX * rows_balanced / len(truth.rows)
    return Verdict(reward=value, correct=correct, metrics=metrics, reason=reason)


__all__ = ["SHAPED_NOT_MINIMAL", "SHAPED_UNBALANCED_MAX", "check_balance", "check_balance_with"]
