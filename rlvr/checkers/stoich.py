"""Checkers of the stoichiometry tasks: balancing, Type 1/2 product bags and byproducts (task
records: :mod:`rlvr.checkers.stoich_truth`; answer reading: :mod:`rlvr.checkers.stoich_parse`).

Pure functions ``check_*(task, completion, *, reward=...) -> Verdict`` with bounded work, and
oracles ``oracle_*(task) -> str`` that build a full-score completion from the ground truth.
Answer formats, reason codes, metrics and reward modes are documented in ``docs/verification.md``.

- Product and byproduct bags are compared as multisets of canonical species (Hill formula in the
  formula encoding, canonical SMILES in the SMILES encoding) with the ChemAlgebra metrics of
  :mod:`rlvr.checkers.metrics`; atom balance is reported, never rewarded.
- Balance answers are judged by conservation (elements and charge) and minimality, not by string
  equality, so any balanced, minimal, all-positive answer is correct.

A malformed completion always yields a zero-reward verdict with a reason; a malformed task raises
:class:`rlvr.task.TaskFormatError` (use :func:`validate_task` when loading records).
"""
from __future__ import annotations

from math import gcd
from typing import Any, Mapping

from rlvr.answer import extract_answer
from rlvr.chem.formula import Formula
from rlvr.chem.notation import format_bag, format_equation
from rlvr.checkers.metrics import bag_metrics, balance_rates
from rlvr.checkers.stoich_parse import AnswerError, BalanceAnswer, parse_balance_answer, parse_bag_answer, species_identity, species_parts
from rlvr.checkers.stoich_truth import (
    BagTruth,
    BalanceTruth,
    as_task,
    balance_delta,
    balance_truth,
    byproduct_truth,
    products_truth,
    validate_task,
)
from rlvr.reasons import Reason
from rlvr.task import Task, Verdict

#: Reward modes accepted by every stoichiometry checker (see docs/verification.md).
REWARD_MODES = ("em", "strict", "f1", "jaccard", "shaped", "em+format")
#: Reward of a well-formed, valid but wrong answer under ``reward="em+format"``.
FORMAT_CREDIT = 0.1
#: Balancing: shaped reward of a balanced, all-positive but non-minimal answer.
SHAPED_NOT_MINIMAL = 0.5
#: Balancing: shaped reward of an unbalanced answer: this times the fraction of balanced rows.
SHAPED_UNBALANCED_MAX = 0.4
#: The metric keys every stoichiometry verdict carries (numbers), besides ``diagnostics``.
METRIC_KEYS = ("em", "jaccard", "f1", "mol_jaccard", "mol_f1", "valid", "balanced", "deficitary", "exceeding", "both")

_MAX_LISTED = 20  # names listed in diagnostics
_MAX_NAME = 80  # characters per listed name


# ---------------------------------------------------------------------------------------------
# shared verdict helpers
# ---------------------------------------------------------------------------------------------


def _reward_mode(reward: str) -> str:
    if reward not in REWARD_MODES:
        raise ValueError(f"unknown reward mode {reward!r}; valid modes: {list(REWARD_MODES)}")
    return reward


def _zero_metrics() -> dict[str, Any]:
    return {key: 0.0 for key in METRIC_KEYS}


def _fail(reason: Reason, detail: str, **extra: Any) -> Verdict:
    metrics = _zero_metrics()
    metrics["diagnostics"] = {"detail": detail, **extra}
    return Verdict(reward=0.0, correct=False, metrics=metrics, reason=reason)


def _extract(completion: Any) -> tuple[str | None, Verdict | None]:
    """The answer text, or a failure verdict (``no_answer`` / ``too_long``)."""
    try:
        extraction = extract_answer(completion)
    except Exception as exc:  # noqa: BLE001 - extraction is total on strings; be safe on exotic objects
        return None, _fail(Reason.NO_ANSWER, f"could not read the completion ({type(exc).__name__})")
    if extraction.text is None:
        if extraction.reason == "too_long":
            return None, _fail(Reason.TOO_LONG, "completion or answer exceeds the length cap")
        detail = "completion is not text" if extraction.reason == "not_text" else "no <answer>...</answer> block"
        return None, _fail(Reason.NO_ANSWER, detail)
    return extraction.text, None


def _short(name: str) -> str:
    return name if len(name) <= _MAX_NAME else name[: _MAX_NAME - 3] + "..."


# ---------------------------------------------------------------------------------------------
# product and byproduct bags
# ---------------------------------------------------------------------------------------------


def _score_bag(truth: BagTruth, completion: Any, reward: str) -> Verdict:
    mode = _reward_mode(reward)
    text, failure = _extract(completion)
    if failure is not None:
        return failure
    try:
        terms, form = parse_bag_answer(text)
    except AnswerError as exc:
        return _fail(exc.reason, exc.detail)

    pred: dict[str, int] = {}
    formulas: dict[str, Formula] = {}
    written: dict[str, str] = {}
    invalid: list[str] = []
    encoding = truth.encoding
    for i, (species, k) in enumerate(terms):
        parts = species_parts(species, encoding)
        if parts is None:
            invalid.append(species)
            key = f"\x00invalid:{i}"  # never equal to a true species: counted as a false positive
            pred[key] = pred.get(key, 0) + k
            continue
        for part in parts:
            key = part.key
            pred[key] = pred.get(key, 0) + k * part.count
            formulas[key] = part.formula
            if key not in written:
                written[key] = species

    true_bag = truth.bag
    metrics: dict[str, Any] = bag_metrics(pred, true_bag)
    valid = not invalid
    metrics["valid"] = float(valid)
    diagnostics: dict[str, Any] = {
        "form": form,
        "n_extra": sum(1 for key in pred if key not in true_bag),
        "n_missing": sum(1 for key in true_bag if key not in pred),
        "wrong_coefficient": sorted(
            _short(written[key]) for key, k in pred.items() if key in true_bag and k != true_bag[key]
        )[:_MAX_LISTED],
    }
    if valid:  # predicted minus reference totals, as conservation_delta(reference, prediction) computes them
        total: dict[str, int] = {}
        charge = 0
        for key, k in pred.items():
            formula = formulas[key]
            for el, n in formula.counts:
                total[el] = total.get(el, 0) + n * k
            charge += formula.charge * k
        total["charge"] = total.get("charge", 0) + charge
        for key, n in truth.reference_total.items():
            total[key] = total.get(key, 0) - n
        delta = {key: v for key, v in sorted(total.items()) if v}
        metrics.update(balance_rates(delta))
        diagnostics["element_delta"] = delta
    else:
        metrics.update(balanced=0.0, deficitary=0.0, exceeding=0.0, both=0.0)
        diagnostics["element_delta"] = None
        diagnostics["invalid_species"] = [_short(s) for s in invalid[:_MAX_LISTED]]
    metrics["diagnostics"] = diagnostics

    correct = metrics["em"] == 1.0 and valid
    if not valid:
        reason = Reason.INVALID_SPECIES
    elif correct:
        reason = Reason.OK
    elif metrics["mol_em"] != 1.0:
        reason = Reason.WRONG_SPECIES
    else:
        reason = Reason.WRONG_COUNT

    if mode in ("em", "strict"):
        value = 1.0 if correct else 0.0
    elif mode in ("f1", "shaped"):
        value = float(metrics["f1"])
    elif mode == "jaccard":
        value = float(metrics["jaccard"])
    else:  # em+format
        value = 1.0 if correct else (FORMAT_CREDIT if valid else 0.0)
    return Verdict(reward=value, correct=correct, metrics=metrics, reason=reason)


def check_products(task: Task | Mapping[str, Any], completion: Any, *, reward: str = "em") -> Verdict:
    """Score a products answer (ChemAlgebra Type 1 / Type 2).

    The predicted bag is compared with ``ground_truth["products"]`` as a multiset of canonical
    species; conservation diagnostics are computed against ``meta["inputs"]``. ``reward`` is one
    of :data:`REWARD_MODES` (``em`` by default).
    """
    return _score_bag(products_truth(as_task(task)), completion, reward)


def check_byproduct(task: Task | Mapping[str, Any], completion: Any, *, reward: str = "em") -> Verdict:
    """Score a byproducts answer against ``ground_truth["byproducts"]``.

    Conservation diagnostics measure the completed equation: ``element_delta`` is what the predicted
    byproducts add minus what the shown equation lacks (empty when they close it).
    """
    return _score_bag(byproduct_truth(as_task(task)), completion, reward)


# ---------------------------------------------------------------------------------------------
# balancing
# ---------------------------------------------------------------------------------------------


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
            ident = species_identity(species, truth.encoding)
            on = [side for side in (0, 1) if ident is not None and (side, ident[0]) in truth.index]
            sided.append((on[0] if len(on) == 1 else -1, (species, k)))
    for side, (species, k) in sided:
        ident = species_identity(species, truth.encoding)
        if ident is None:
            invalid.append(species)
            continue
        i = truth.index.get((side, ident[0]))
        if i is None:
            if side >= 0 and (1 - side, ident[0]) in truth.index:
                wrong_side += 1
            else:
                unknown += 1
            continue
        coefficients[i] += k
        seen[i] = True
    if invalid:
        return None, _fail(
            Reason.INVALID_SPECIES,
            f"{len(invalid)} species do not parse as {truth.encoding}",
            invalid_species=[_short(s) for s in invalid[:_MAX_LISTED]],
        )
    missing = seen.count(False)
    if unknown or wrong_side or missing:
        detail = "the equation must contain exactly the question's species, each on its side"
        failure = _fail(Reason.SPECIES_MISMATCH, detail, n_unknown=unknown, n_wrong_side=wrong_side, n_missing=missing)
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
    mode = _reward_mode(reward)
    truth = balance_truth(as_task(task))
    text, failure = _extract(completion)
    if failure is not None:
        return failure
    try:
        answer = parse_balance_answer(text)
    except AnswerError as exc:
        return _fail(exc.reason, exc.detail)

    n = len(truth.keys)
    if answer.form == "list":
        if len(answer.coefficients) != n:
            failure = _fail(Reason.WRONG_LENGTH, f"expected {n} coefficients in question order, got {len(answer.coefficients)}")
            failure.metrics["valid"] = 1.0
            return failure
        coefficients = answer.coefficients
    else:
        mapped, failure = _map_equation(truth, answer)
        if mapped is None:
            return failure if failure is not None else _fail(Reason.UNPARSABLE, "no coefficients")
        coefficients = mapped

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


# ---------------------------------------------------------------------------------------------
# oracles
# ---------------------------------------------------------------------------------------------


def oracle_balance(task: Task | Mapping[str, Any]) -> str:
    """``<answer>{2}H2.{1}O2>>{2}H2O</answer>`` from the ground truth."""
    task = as_task(task)
    balance_truth(task)
    gt = task.ground_truth
    return f"<answer>{format_equation(gt['reactants'], gt['products'], [int(k) for k in gt['coefficients']])}</answer>"


def oracle_products(task: Task | Mapping[str, Any]) -> str:
    """``<answer>{2}CH4.{4}H2O.{2}Ni</answer>`` from ``ground_truth["products"]``."""
    task = as_task(task)
    products_truth(task)
    return f"<answer>{format_bag({s: int(k) for s, k in task.ground_truth['products'].items()})}</answer>"


def oracle_byproduct(task: Task | Mapping[str, Any]) -> str:
    """``<answer>{1}H2O</answer>`` from ``ground_truth["byproducts"]``."""
    task = as_task(task)
    byproduct_truth(task)
    return f"<answer>{format_bag({s: int(k) for s, k in task.ground_truth['byproducts'].items()})}</answer>"


__all__ = [
    "FORMAT_CREDIT", "METRIC_KEYS", "REWARD_MODES", "SHAPED_NOT_MINIMAL", "SHAPED_UNBALANCED_MAX",
    "check_balance", "check_byproduct", "check_products", "oracle_balance", "oracle_byproduct",
    "oracle_products", "validate_task",
]
