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

Verdicts are first scored against the task's *written* truth (:mod:`rlvr.checkers.stoich_truth`):
species an answer writes exactly as the task does are known without canonicalising anything, and
formulas are keyed by composition. A SMILES species written any other way sends the verdict to the
canonical truth, so the verdict is the same either way; :func:`check_canonical` always takes the
canonical path (the reference the fast path is tested against).
"""
from __future__ import annotations

from math import gcd
from typing import Any, Callable, Mapping

from rlvr.answer import answer_text
from rlvr.checkers.metrics import bag_metrics, balance_rates
from rlvr.checkers.stoich_parse import (
    AnswerError,
    BalanceAnswer,
    formula_key,
    formula_parts,
    parse_bag_answer,
    parse_balance_answer,
    species_identity,
    species_parts,
)
from rlvr.checkers.stoich_truth import (
    BagTruth,
    BalanceTruth,
    as_task,
    bag_delta,
    balance_delta,
    balance_truth,
    byproduct_truth,
    formula_products_exact,
    products_truth,
    validate_task,
    written_balance_truth,
    written_byproduct_truth,
    written_products_truth,
)
from rlvr.chem.formula import Formula
from rlvr.chem.notation import format_bag, format_equation
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
        text, reason = answer_text(completion)
    except Exception as exc:  # noqa: BLE001 - extraction is total on strings; be safe on exotic objects
        return None, _fail(Reason.NO_ANSWER, f"could not read the completion ({type(exc).__name__})")
    if text is None:
        if reason == "too_long":
            return None, _fail(Reason.TOO_LONG, "completion or answer exceeds the length cap")
        detail = "completion is not text" if reason == "not_text" else "no <answer>...</answer> block"
        return None, _fail(Reason.NO_ANSWER, detail)
    return text, None


def _short(name: str) -> str:
    return name if len(name) <= _MAX_NAME else name[: _MAX_NAME - 3] + "..."


# ---------------------------------------------------------------------------------------------
# product and byproduct bags
# ---------------------------------------------------------------------------------------------


def _bag_parts(truth: BagTruth, terms: list[tuple[str, int]]) -> list | None:
    """The parts of each answer term (None: invalid), or None when a species is not in the written truth."""
    written = truth.written
    if written is None:
        encoding = truth.encoding
        return [species_parts(species, encoding) for species, _k in terms]
    out = []
    for species, _k in terms:
        parts = written.get(species)
        if parts is None:
            if truth.encoding != "formula":
                return None  # written another way: only canonical SMILES can tell
            parts = formula_parts(species) if type(species) is str else None
        out.append(parts)
    return out


def _exact_verdict(metrics: Mapping[str, Any], delta: Mapping[str, int], form: str) -> Verdict:
    """The verdict on the exact answer (its ``metrics`` and element ``delta``), written in ``form``."""
    out = dict(metrics)
    out["diagnostics"] = {"form": form, "n_extra": 0, "n_missing": 0, "wrong_coefficient": [],
                          "element_delta": dict(delta)}
    return Verdict(reward=1.0, correct=True, metrics=out, reason=Reason.OK)


def _as_written(terms: list[tuple[str, int]]) -> dict[str, int]:
    """An answer's bag as written: each species string with its summed coefficient."""
    answer: dict[str, int] = {}
    for species, k in terms:
        answer[species] = answer.get(species, 0) + k
    return answer


def _score_bag(truth: BagTruth, terms: list[tuple[str, int]], form: str, mode: str) -> Verdict | None:
    """The verdict on a parsed bag answer (None: the answer needs the canonical truth)."""
    all_parts = _bag_parts(truth, terms)
    if all_parts is None:
        return None
    exact = truth.exact
    if exact is not None and None not in all_parts:
        pred: dict[Any, int] = {}
        for (_species, k), parts in zip(terms, all_parts):
            for key, _formula, count in parts:
                pred[key] = pred.get(key, 0) + k * count
        if pred == exact[0]:  # the exact answer: a known verdict
            return _exact_verdict(exact[1], exact[2], form)
    pred = {}
    formulas: dict[Any, Formula] = {}
    written: dict[Any, str] = {}
    invalid: list[str] = []
    for i, ((species, k), parts) in enumerate(zip(terms, all_parts)):
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
    n_extra = n_common = 0
    wrong: list[str] = []
    for key, k in pred.items():
        t = true_bag.get(key)
        if t is None:
            n_extra += 1
        else:
            n_common += 1
            if k != t:
                wrong.append(_short(written[key]))
    diagnostics: dict[str, Any] = {
        "form": form,
        "n_extra": n_extra,
        "n_missing": len(true_bag) - n_common,
        "wrong_coefficient": sorted(wrong)[:_MAX_LISTED] if wrong else [],
    }
    if valid:  # predicted minus reference totals, as conservation_delta(reference, prediction) computes them
        delta = bag_delta(pred, formulas, truth.totals)
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


def _read_bag(completion: Any) -> tuple[list[tuple[str, int]], str] | Verdict:
    """The terms and form of a bag answer, or the failure verdict of a completion without one."""
    text, failure = _extract(completion)
    if failure is not None:
        return failure
    try:
        return parse_bag_answer(text)
    except AnswerError as exc:
        return _fail(exc.reason, exc.detail)


def _check_bag(task: Task, truth: BagTruth, canonical: Callable[[Task], BagTruth], completion: Any,
               reward: str, answer: tuple[list[tuple[str, int]], str] | Verdict | None = None) -> Verdict:
    """Read (unless ``answer`` is given: :func:`_read_bag`) and score a bag answer against ``truth``;
    against ``canonical(task)`` when the written truth cannot tell."""
    mode = _reward_mode(reward)
    if answer is None:
        answer = _read_bag(completion)
    if isinstance(answer, Verdict):
        return answer
    terms, form = answer
    verdict = _score_bag(truth, terms, form, mode)
    if verdict is None:  # a species written otherwise than in the task: compare canonical identities
        verdict = _score_bag(canonical(task), terms, form, mode)
        assert verdict is not None
    return verdict


def check_products(task: Task | Mapping[str, Any], completion: Any, *, reward: str = "em") -> Verdict:
    """Score a products answer (ChemAlgebra Type 1 / Type 2).

    The predicted bag is compared with ``ground_truth["products"]`` as a multiset of canonical
    species; conservation diagnostics are computed against ``meta["inputs"]``. ``reward`` is one
    of :data:`REWARD_MODES` (``em`` by default).
    """
    task = as_task(task)
    answer = _read_bag(completion)
    if not isinstance(answer, Verdict) and _as_written(answer[0]) == task.ground_truth.get("products"):
        exact = formula_products_exact(task)  # the record's own products: the record alone gives the verdict
        if exact is not None:
            _reward_mode(reward)
            return _exact_verdict(*exact, answer[1])
    return _check_bag(task, written_products_truth(task), products_truth, completion, reward, answer)


def check_byproduct(task: Task | Mapping[str, Any], completion: Any, *, reward: str = "em") -> Verdict:
    """Score a byproducts answer against ``ground_truth["byproducts"]``.

    Conservation diagnostics measure the completed equation: ``element_delta`` is what the predicted
    byproducts add minus what the shown equation lacks (empty when they close it).
    """
    task = as_task(task)
    return _check_bag(task, written_byproduct_truth(task), byproduct_truth, completion, reward)


# ---------------------------------------------------------------------------------------------
# balancing
# ---------------------------------------------------------------------------------------------


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
    task = as_task(task)
    return _check_balance(task, written_balance_truth(task), completion, mode)


def _check_balance(task: Task, truth: BalanceTruth, completion: Any, mode: str) -> Verdict:
    """Read and score a balance answer against ``truth``; against the canonical truth when the written one cannot tell."""
    text, failure = _extract(completion)
    if failure is not None:
        return failure
    try:
        answer = parse_balance_answer(text)
    except AnswerError as exc:
        return _fail(exc.reason, exc.detail)
    try:
        return _score_balance(truth, answer, mode)
    except _NeedsCanonical:  # a species written otherwise than in the task: compare canonical identities
        return _score_balance(balance_truth(task), answer, mode)


def _score_balance(truth: BalanceTruth, answer: BalanceAnswer, mode: str) -> Verdict:
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


def check_canonical(task: Task | Mapping[str, Any], completion: Any, *, reward: str | None = None) -> Verdict:
    """The verdict of the stoichiometry checker for ``task`` computed on canonical identities only.

    The same verdict as :func:`check_balance`, :func:`check_byproduct` or :func:`check_products`
    (picked by the ground truth, like :func:`validate_task`), without the written-species fast path:
    every species is canonicalised. ``reward`` defaults to the checker's own default.
    """
    task = as_task(task)
    gt = task.ground_truth
    if "coefficients" in gt:
        mode = _reward_mode(reward or "strict")
        return _check_balance(task, balance_truth(task), completion, mode)
    if "byproducts" in gt:
        return _check_bag(task, byproduct_truth(task), byproduct_truth, completion, reward or "em")
    return _check_bag(task, products_truth(task), products_truth, completion, reward or "em")


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
    "check_balance", "check_byproduct", "check_canonical", "check_products", "oracle_balance", "oracle_byproduct",
    "oracle_products", "validate_task",
]
