"""Checkers for the stoichiometry families (``stoich.balance``, ``stoich.t1``/``t2``, ``stoich.byproduct``).

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

from collections import Counter
from dataclasses import dataclass
from math import gcd, isfinite
from typing import Any, Iterable, Mapping

from rlvr.answer import extract_answer
from rlvr.chem.balance import conservation_delta
from rlvr.chem.formula import Formula
from rlvr.chem.notation import MAX_COEFFICIENT, format_bag, format_equation
from rlvr.chem.species import looks_like_smiles
from rlvr.checkers.metrics import bag_metrics, balance_rates
from rlvr.checkers.stoich_parse import (
    AnswerError,
    BalanceAnswer,
    StrictEncoding,
    parse_balance_answer,
    parse_bag_answer,
    species_identity,
    species_parts,
)
from rlvr.task import Task, TaskFormatError, Verdict

#: Reward modes accepted by every stoichiometry checker (see docs/verification.md).
REWARD_MODES = ("em", "strict", "f1", "jaccard", "shaped", "em+format")
#: Reward of a well-formed, valid but wrong answer under ``reward="em+format"``.
FORMAT_CREDIT = 0.1
#: ``stoich.balance`` shaped reward of a balanced, all-positive but non-minimal answer.
SHAPED_NOT_MINIMAL = 0.5
#: ``stoich.balance`` shaped reward of an unbalanced answer: this times the fraction of balanced rows.
SHAPED_UNBALANCED_MAX = 0.4
#: The metric keys every stoichiometry verdict carries (numbers), besides ``diagnostics``.
METRIC_KEYS = ("em", "jaccard", "f1", "mol_jaccard", "mol_f1", "valid", "balanced", "deficitary", "exceeding", "both")

_MAX_LISTED = 20  # names listed in diagnostics
_MAX_NAME = 80  # characters per listed name


# ---------------------------------------------------------------------------------------------
# task records
# ---------------------------------------------------------------------------------------------


def _as_task(task: Task | Mapping[str, Any]) -> Task:
    return Task.from_dict(task) if not isinstance(task, Task) else task


def _task_encoding(task: Task, species: Iterable[str]) -> StrictEncoding:
    """``meta["encoding"]``; when absent, SMILES if any ground-truth species can only be SMILES."""
    enc = task.meta.get("encoding")
    if enc is None:
        return "smiles" if any(isinstance(s, str) and looks_like_smiles(s) for s in species) else "formula"
    if enc not in ("formula", "smiles"):
        raise TaskFormatError(f"task {task.id!r}: meta['encoding'] must be 'formula' or 'smiles', got {enc!r}")
    return enc


def _int_coefficient(task: Task, where: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not isfinite(value) or int(value) != value:
        raise TaskFormatError(f"task {task.id!r}: {where} must be an integer, got {value!r}")
    value = int(value)
    if value < 1 or value > MAX_COEFFICIENT:
        raise TaskFormatError(f"task {task.id!r}: {where} must be in [1, {MAX_COEFFICIENT}], got {value}")
    return value


def _species_bag(task: Task, where: str, raw: Any, encoding: StrictEncoding) -> tuple[Counter, dict[str, Formula]]:
    """A ``{species: coefficient}`` record field as a canonical bag (fragments split) plus compositions."""
    if not isinstance(raw, Mapping) or not raw:
        raise TaskFormatError(f"task {task.id!r}: {where} must be a non-empty {{species: coefficient}} dict")
    bag: Counter = Counter()
    formulas: dict[str, Formula] = {}
    for species, k in raw.items():
        k = _int_coefficient(task, f"{where}[{species!r}]", k)
        parts = species_parts(species, encoding) if isinstance(species, str) else None
        if parts is None:
            raise TaskFormatError(f"task {task.id!r}: {where} species {species!r} is not a valid {encoding}")
        for part in parts:
            bag[part.key] += k * part.count
            formulas[part.key] = part.formula
    return bag, formulas


def _pairs(bag: Mapping[str, int], formulas: Mapping[str, Formula]) -> list[tuple[Formula, int]]:
    return [(formulas[key], k) for key, k in bag.items()]


@dataclass(frozen=True)
class _BagTruth:
    encoding: StrictEncoding
    bag: Counter
    formulas: dict[str, Formula]
    reference: tuple[tuple[Formula, int], ...]  # what the predicted bag must conserve


def _products_truth(task: Task) -> _BagTruth:
    raw = task.ground_truth.get("products")
    inputs = task.meta.get("inputs")
    species = list(raw) if isinstance(raw, Mapping) else []
    encoding = _task_encoding(task, species)
    bag, formulas = _species_bag(task, "ground_truth['products']", raw, encoding)
    if inputs is None:
        raise TaskFormatError(f"task {task.id!r}: meta['inputs'] (the input bag shown to the model) is missing")
    in_bag, in_formulas = _species_bag(task, "meta['inputs']", inputs, encoding)
    return _BagTruth(encoding, bag, formulas, tuple(_pairs(in_bag, in_formulas)))


def _byproduct_truth(task: Task) -> _BagTruth:
    raw = task.ground_truth.get("byproducts")
    species = list(raw) if isinstance(raw, Mapping) else []
    encoding = _task_encoding(task, species)
    bag, formulas = _species_bag(task, "ground_truth['byproducts']", raw, encoding)
    # the shown equation lacks exactly the byproducts' atoms: a prediction conserves iff its
    # element totals equal theirs
    return _BagTruth(encoding, bag, formulas, tuple(_pairs(bag, formulas)))


@dataclass(frozen=True)
class _BalanceTruth:
    encoding: StrictEncoding
    n_reactants: int
    formulas: tuple[Formula, ...]
    keys: tuple[str, ...]
    coefficients: tuple[int, ...]
    index: dict[tuple[int, str], int]  # (side 0/1, canonical key) -> position in question order
    rows: tuple[str, ...]  # conservation rows: elements present, then "charge" if any species is charged


def _balance_truth(task: Task) -> _BalanceTruth:
    gt = task.ground_truth
    reactants, products, coefficients = gt.get("reactants"), gt.get("products"), gt.get("coefficients")
    for name, value in (("reactants", reactants), ("products", products), ("coefficients", coefficients)):
        if not isinstance(value, list) or not value:
            raise TaskFormatError(f"task {task.id!r}: ground_truth[{name!r}] must be a non-empty list")
    species = list(reactants) + list(products)
    if len(coefficients) != len(species):
        raise TaskFormatError(
            f"task {task.id!r}: {len(coefficients)} coefficients for {len(species)} species in ground_truth"
        )
    encoding = _task_encoding(task, species)
    formulas, keys, index = [], [], {}
    for i, text in enumerate(species):
        ident = species_identity(text, encoding) if isinstance(text, str) else None
        if ident is None:
            raise TaskFormatError(f"task {task.id!r}: ground_truth species {text!r} is not a valid {encoding}")
        side = 0 if i < len(reactants) else 1
        if (side, ident[0]) in index:
            raise TaskFormatError(f"task {task.id!r}: species {text!r} appears twice on the same side")
        index[(side, ident[0])] = i
        keys.append(ident[0])
        formulas.append(ident[1])
    coefs = tuple(_int_coefficient(task, f"ground_truth['coefficients'][{i}]", k) for i, k in enumerate(coefficients))
    elements = sorted({el for f in formulas for el, _ in f.counts})
    rows = tuple(elements) + (("charge",) if any(f.charge for f in formulas) else ())
    return _BalanceTruth(encoding, len(reactants), tuple(formulas), tuple(keys), coefs, index, rows)


def validate_task(task: Task | Mapping[str, Any]) -> None:
    """Raise :class:`TaskFormatError` unless ``task`` is a well-formed stoichiometry record.

    Beyond the fields the checkers need, this verifies the chemistry of the ground truth: balance
    coefficients conserve every element and the charge and are minimal; product bags conserve the
    input bag; byproducts close the shown equation when ``meta["reaction"]`` is present.
    """
    task = _as_task(task)
    family = task.family
    if family == "stoich.balance":
        truth = _balance_truth(task)
        delta = _balance_delta(truth, truth.coefficients)
        if delta:
            raise TaskFormatError(f"task {task.id!r}: ground-truth coefficients are unbalanced: {delta}")
        if _gcd(truth.coefficients) != 1:
            raise TaskFormatError(f"task {task.id!r}: ground-truth coefficients are not minimal")
    elif family in ("stoich.t1", "stoich.t2"):
        truth = _products_truth(task)
        delta = conservation_delta(truth.reference, _pairs(truth.bag, truth.formulas))
        if delta:
            raise TaskFormatError(f"task {task.id!r}: ground-truth products do not conserve the input: {delta}")
    elif family == "stoich.byproduct":
        truth = _byproduct_truth(task)
        reaction = task.meta.get("reaction")
        if reaction is not None:
            _validate_byproduct_reaction(task, truth, reaction)
    else:
        raise TaskFormatError(f"task {task.id!r}: not a stoichiometry family: {family!r}")


def _validate_byproduct_reaction(task: Task, truth: _BagTruth, reaction: Any) -> None:
    """The reference reaction either already contains the byproducts (balanced) or lacks exactly them."""
    if not isinstance(reaction, Mapping):
        raise TaskFormatError(f"task {task.id!r}: meta['reaction'] must be a dict")
    sides, bags = [], []
    for side in ("reactants", "products"):
        raw = reaction.get(side)
        bag, formulas = _species_bag(task, f"meta['reaction'][{side!r}]", raw, truth.encoding)
        sides.append(_pairs(bag, formulas))
        bags.append(bag)
    imbalance = conservation_delta(sides[0], sides[1])  # products - reactants (reagents cancel)
    if not imbalance:  # the full reference reaction: its products must include the byproducts
        short = {key: k for key, k in truth.bag.items() if bags[1].get(key, 0) < k}
        if short:
            raise TaskFormatError(
                f"task {task.id!r}: ground-truth byproducts {sorted(short)} are not among the reaction's products"
            )
        return
    completed = conservation_delta(sides[0], sides[1] + list(truth.reference))
    if completed:
        raise TaskFormatError(
            f"task {task.id!r}: ground-truth byproducts do not close the reaction (left over: {completed})"
        )


# ---------------------------------------------------------------------------------------------
# shared verdict helpers
# ---------------------------------------------------------------------------------------------


def _reward_mode(reward: str) -> str:
    if reward not in REWARD_MODES:
        raise ValueError(f"unknown reward mode {reward!r}; valid modes: {list(REWARD_MODES)}")
    return reward


def _zero_metrics() -> dict[str, Any]:
    return {key: 0.0 for key in METRIC_KEYS}


def _fail(reason: str, detail: str, **extra: Any) -> Verdict:
    metrics = _zero_metrics()
    metrics["diagnostics"] = {"detail": detail, **extra}
    return Verdict(reward=0.0, correct=False, metrics=metrics, reason=reason)


def _extract(completion: Any) -> tuple[str | None, Verdict | None]:
    """The answer text, or a failure verdict (``no_answer`` / ``too_long``)."""
    try:
        extraction = extract_answer(completion)
    except Exception as exc:  # noqa: BLE001 - extraction is total on strings; be safe on exotic objects
        return None, _fail("no_answer", f"could not read the completion ({type(exc).__name__})")
    if extraction.text is None:
        if extraction.reason == "too_long":
            return None, _fail("too_long", "completion or answer exceeds the length cap")
        detail = "completion is not text" if extraction.reason == "not_text" else "no <answer>...</answer> block"
        return None, _fail("no_answer", detail)
    return extraction.text, None


def _short(name: str) -> str:
    return name if len(name) <= _MAX_NAME else name[: _MAX_NAME - 3] + "..."


def _gcd(values: Iterable[int]) -> int:
    g = 0
    for v in values:
        g = gcd(g, v)
    return g


# ---------------------------------------------------------------------------------------------
# product and byproduct bags
# ---------------------------------------------------------------------------------------------


def _score_bag(truth: _BagTruth, completion: Any, reward: str) -> Verdict:
    mode = _reward_mode(reward)
    text, failure = _extract(completion)
    if failure is not None:
        return failure
    try:
        terms, form = parse_bag_answer(text)
    except AnswerError as exc:
        return _fail(exc.reason, exc.detail)

    pred: Counter = Counter()
    formulas: dict[str, Formula] = {}
    written: dict[str, str] = {}
    invalid: list[str] = []
    for i, (species, k) in enumerate(terms):
        parts = species_parts(species, truth.encoding)
        if parts is None:
            invalid.append(species)
            pred[f"\x00invalid:{i}"] += k  # never equal to a true species: counted as a false positive
            continue
        for part in parts:
            pred[part.key] += k * part.count
            formulas[part.key] = part.formula
            written.setdefault(part.key, species)

    metrics: dict[str, Any] = dict(bag_metrics(pred, truth.bag))
    valid = not invalid
    metrics["valid"] = float(valid)
    diagnostics: dict[str, Any] = {
        "form": form,
        "n_extra": sum(1 for key in pred if key not in truth.bag),
        "n_missing": sum(1 for key in truth.bag if key not in pred),
        "wrong_coefficient": sorted(
            _short(written[key]) for key in pred if key in truth.bag and pred[key] != truth.bag[key]
        )[:_MAX_LISTED],
    }
    if valid:
        delta = conservation_delta(truth.reference, _pairs(pred, formulas))
        metrics.update(balance_rates(delta))
        diagnostics["element_delta"] = delta
    else:
        metrics.update(balanced=0.0, deficitary=0.0, exceeding=0.0, both=0.0)
        diagnostics["element_delta"] = None
        diagnostics["invalid_species"] = [_short(s) for s in invalid[:_MAX_LISTED]]
    metrics["diagnostics"] = diagnostics

    correct = metrics["em"] == 1.0 and valid
    if not valid:
        reason = "invalid_species"
    elif correct:
        reason = "ok"
    elif metrics["mol_em"] != 1.0:
        reason = "wrong_species"
    else:
        reason = "wrong_count"

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
    """Score a products answer for ``stoich.t1`` / ``stoich.t2``.

    The predicted bag is compared with ``ground_truth["products"]`` as a multiset of canonical
    species; conservation diagnostics are computed against ``meta["inputs"]``. ``reward`` is one
    of :data:`REWARD_MODES` (``em`` by default).
    """
    return _score_bag(_products_truth(_as_task(task)), completion, reward)


def check_byproduct(task: Task | Mapping[str, Any], completion: Any, *, reward: str = "em") -> Verdict:
    """Score a byproducts answer for ``stoich.byproduct`` against ``ground_truth["byproducts"]``.

    Conservation diagnostics measure the completed equation: ``element_delta`` is what the predicted
    byproducts add minus what the shown equation lacks (empty when they close it).
    """
    return _score_bag(_byproduct_truth(_as_task(task)), completion, reward)


# ---------------------------------------------------------------------------------------------
# balancing
# ---------------------------------------------------------------------------------------------


def _balance_delta(truth: _BalanceTruth, coefficients: tuple[int, ...]) -> dict[str, int]:
    """Product side minus reactant side, per element and charge (empty when balanced)."""
    n = truth.n_reactants
    pairs = list(zip(truth.formulas, coefficients))
    return conservation_delta(pairs[:n], pairs[n:])


def _map_equation(truth: _BalanceTruth, answer: BalanceAnswer) -> tuple[tuple[int, ...] | None, Verdict | None]:
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
            "invalid_species",
            f"{len(invalid)} species do not parse as {truth.encoding}",
            invalid_species=[_short(s) for s in invalid[:_MAX_LISTED]],
        )
    missing = seen.count(False)
    if unknown or wrong_side or missing:
        detail = "the equation must contain exactly the question's species, each on its side"
        failure = _fail("species_mismatch", detail, n_unknown=unknown, n_wrong_side=wrong_side, n_missing=missing)
        failure.metrics["valid"] = 1.0
        return None, failure
    return tuple(coefficients), None


def check_balance(task: Task | Mapping[str, Any], completion: Any, *, reward: str = "strict") -> Verdict:
    """Score a balancing answer for ``stoich.balance`` by conservation and minimality.

    Accepted answers: the balanced equation (``{2}H2.{1}O2>>{2}H2O``, ``2 H2 + O2 -> 2 H2O``;
    species matched to the question's by identity), the coefficient list in question order
    (``2, 1, 2`` or ``[2,1,2]``), or a JSON object ``{species: coefficient}``. Correct means every
    element and the charge are conserved, all coefficients are positive and their gcd is 1.
    ``reward``: ``strict`` (alias ``em``), ``shaped`` (aliases ``f1``, ``jaccard``) or ``em+format``.
    """
    mode = _reward_mode(reward)
    truth = _balance_truth(_as_task(task))
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
            failure = _fail("wrong_length", f"expected {n} coefficients in question order, got {len(answer.coefficients)}")
            failure.metrics["valid"] = 1.0
            return failure
        coefficients = answer.coefficients
    else:
        mapped, failure = _map_equation(truth, answer)
        if mapped is None:
            return failure if failure is not None else _fail("unparsable", "no coefficients")
        coefficients = mapped

    delta = _balance_delta(truth, coefficients)
    positive = all(k > 0 for k in coefficients)
    balanced = not delta
    minimal = _gcd(coefficients) == 1
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
        reason = "not_positive"
    elif not balanced:
        reason = "unbalanced"
        if answer.form == "list" and sorted(coefficients) == sorted(truth.coefficients):
            reason = "wrong_order"
    elif not minimal:
        reason = "not_minimal"
    else:
        reason = "ok"

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
    task = _as_task(task)
    _balance_truth(task)
    gt = task.ground_truth
    return f"<answer>{format_equation(gt['reactants'], gt['products'], [int(k) for k in gt['coefficients']])}</answer>"


def oracle_products(task: Task | Mapping[str, Any]) -> str:
    """``<answer>{2}CH4.{4}H2O.{2}Ni</answer>`` from ``ground_truth["products"]``."""
    task = _as_task(task)
    _products_truth(task)
    return f"<answer>{format_bag({s: int(k) for s, k in task.ground_truth['products'].items()})}</answer>"


def oracle_byproduct(task: Task | Mapping[str, Any]) -> str:
    """``<answer>{1}H2O</answer>`` from ``ground_truth["byproducts"]``."""
    task = _as_task(task)
    _byproduct_truth(task)
    return f"<answer>{format_bag({s: int(k) for s, k in task.ground_truth['byproducts'].items()})}</answer>"


__all__ = [
    "FORMAT_CREDIT", "METRIC_KEYS", "REWARD_MODES", "SHAPED_NOT_MINIMAL", "SHAPED_UNBALANCED_MAX",
    "check_balance", "check_byproduct", "check_products", "oracle_balance", "oracle_byproduct",
    "oracle_products", "validate_task",
]
