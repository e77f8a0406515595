"""Checkers of the product (ChemAlgebra Type 1/2) and byproduct bag answers: multisets of species
compared with the ChemAlgebra metrics of :mod:`rlvr.checkers.metrics`; atom balance is reported,
never rewarded. Scored first against the task's written truth, against the canonical truth when an
answer writes a species otherwise than the task (see :mod:`rlvr.checkers.stoich`)."""
from __future__ import annotations

from typing import Any, Callable, Mapping

from rlvr.checkers.metrics import bag_metrics, balance_rates
from rlvr.checkers.stoich_bag_truth import (
    BagTruth,
    bag_delta,
    byproduct_truth,
    products_truth,
    written_byproduct_truth,
    written_products_truth,
)
from rlvr.checkers.stoich_parse import AnswerError, parse_bag_answer
from rlvr.checkers.stoich_species import formula_parts, species_parts
from rlvr.checkers.stoich_record import as_task
from rlvr.checkers.stoich_verdict import FORMAT_CREDIT, MAX_LISTED, extract, fail, reward_mode, short
from rlvr.chem.formula import Formula
from rlvr.reasons import Reason
from rlvr.task import Task, Verdict


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
                wrong.append(short(written[key]))
    diagnostics: dict[str, Any] = {
        "form": form,
        "n_extra": n_extra,
        "n_missing": len(true_bag) - n_common,
        "wrong_coefficient": sorted(wrong)[:MAX_LISTED] if wrong else [],
    }
    if valid:  # predicted minus reference totals, as conservation_delta(reference, prediction) computes them
        delta = bag_delta(pred, formulas, truth.totals)
        metrics.update(balance_rates(delta))
        diagnostics["element_delta"] = delta
    else:
        metrics.update(balanced=0.0, deficitary=0.0, exceeding=0.0, both=0.0)
        diagnostics["element_delta"] = None
        diagnostics["invalid_species"] = [short(s) for s in invalid[:MAX_LISTED]]
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
    text, failure = extract(completion)
    if failure is not None:
        return failure
    try:
        return parse_bag_answer(text)
    except AnswerError as exc:
        return fail(exc.reason, exc.detail)


def check_bag(task: Task, truth: BagTruth, canonical: Callable[[Task], BagTruth], completion: Any,
              reward: str) -> Verdict:
    """Read and score a bag answer against ``truth``; against ``canonical(task)`` when the written truth cannot tell."""
    mode = reward_mode(reward)
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
    return check_bag(task, written_products_truth(task), products_truth, completion, reward)


def check_byproduct(task: Task | Mapping[str, Any], completion: Any, *, reward: str = "em") -> Verdict:
    """Score a byproducts answer against ``ground_truth["byproducts"]``.

    Conservation diagnostics measure the completed equation: ``element_delta`` is what the predicted
    byproducts add minus what the shown equation lacks (empty when they close it).
    """
    task = as_task(task)
    return check_bag(task, written_byproduct_truth(task), byproduct_truth, completion, reward)


__all__ = ["check_bag", "check_byproduct", "check_products"]
