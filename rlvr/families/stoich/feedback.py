"""Multi-turn feedback for the stoichiometry families, from the verdict's diagnostics alone.

It never reads ``task.ground_truth``: per-element/charge imbalance of the model's own answer,
counts of extra/missing species, the model's own species with wrong coefficients. It says *what*
is wrong, never the right value.
"""
from __future__ import annotations

from typing import Any, Mapping

from rlvr.families.text import count, names
from rlvr.reasons import Reason
from rlvr.task import Task, Verdict


def _delta_text(delta: Mapping[str, Any], more: str, fewer: str) -> list[str]:
    """``{"O": 2, "H": -1, "charge": 1}`` -> phrases, elements first, charge last."""
    parts: list[str] = []
    for element in sorted(k for k in delta if k != "charge"):
        value = int(delta[element])
        if value > 0:
            parts.append(f"{count(value, 'more ' + element + ' atom', 'more ' + element + ' atoms')} {more}")
        elif value < 0:
            parts.append(f"{count(-value, 'fewer ' + element + ' atom', 'fewer ' + element + ' atoms')} {fewer}")
    charge = int(delta.get("charge", 0) or 0)
    if charge:
        parts.append(f"a net charge that differs by {charge:+d}")
    return parts


def _bag_lines(task: Task, verdict: Verdict, unbalanced: str, compared_with: str) -> list[str]:
    """Bag feedback; ``unbalanced`` frames the atom/charge difference, worded as ``compared_with``."""
    diag = verdict.diagnostics
    lines: list[str] = []
    invalid = diag.get("invalid_species") or []
    if invalid:
        encoding = task.meta.get("encoding", "formula")
        lines.append(f"These species do not parse as {'SMILES' if encoding == 'smiles' else 'formulas'}: {names(invalid)}.")
    n_extra = int(diag.get("n_extra", 0) or 0)
    n_missing = int(diag.get("n_missing", 0) or 0)
    if n_extra:
        lines.append(f"{count(n_extra, 'species in your answer does', 'species in your answer do')} not belong in the answer.")
    if n_missing:
        lines.append(f"{count(n_missing, 'expected species is', 'expected species are')} missing from your answer.")
    wrong = diag.get("wrong_coefficient") or []
    if wrong:
        lines.append(f"Right species, wrong coefficient: {names(wrong)}.")
    delta = diag.get("element_delta")
    if isinstance(delta, Mapping) and delta:
        lines.append(unbalanced.format("; ".join(_delta_text(delta, compared_with, compared_with))))
    elif isinstance(delta, Mapping) and not invalid and (n_extra or n_missing or wrong):
        lines.append("Your answer conserves every element and the charge, but it is not the right set of species and coefficients.")
    if not lines and diag.get("detail"):
        lines.append(f"{diag['detail']}.")
    return lines


def products_feedback(task: Task, verdict: Verdict) -> list[str]:
    """``stoich.t1`` / ``stoich.t2``: what is wrong with a predicted product bag."""
    return _bag_lines(task, verdict, "Atoms are not conserved: your answer has {}.", "than the inputs")


def byproduct_feedback(task: Task, verdict: Verdict) -> list[str]:
    """``stoich.byproduct``: what is wrong with the predicted byproducts."""
    return _bag_lines(task, verdict, "With your byproducts the equation does not balance: they add {}.", "than needed")


def balance_feedback(task: Task, verdict: Verdict) -> list[str]:
    """``stoich.balance``: what is wrong with a balanced equation or coefficient list."""
    diag = verdict.diagnostics
    reason = verdict.reason
    lines: list[str] = []
    if reason == Reason.NOT_POSITIVE:
        lines.append("Every coefficient must be a positive whole number.")
    if reason == Reason.NOT_MINIMAL:
        lines.append("The equation balances, but the coefficients share a common factor: give the smallest whole numbers.")
    if reason == Reason.WRONG_ORDER:
        lines.append("These coefficients are in the wrong order: list them in the order the species appear in the question.")
    imbalance = diag.get("imbalance")
    if isinstance(imbalance, Mapping) and imbalance:
        phrases = _delta_text(imbalance, "on the product side", "on the product side")
        lines.append("Not balanced: compared with the reactant side, your equation has " + "; ".join(phrases) + ".")
    if reason == Reason.SPECIES_MISMATCH:
        parts = []
        if diag.get("n_unknown"):
            parts.append(count(int(diag["n_unknown"]), "species that is not in the question", "species that are not in the question"))
        if diag.get("n_wrong_side"):
            parts.append(count(int(diag["n_wrong_side"]), "species on the wrong side", "species on the wrong side"))
        if diag.get("n_missing"):
            parts.append(count(int(diag["n_missing"]), "species of the question missing", "species of the question missing"))
        lines.append("The equation must contain exactly the question's species, each on its own side" + (f" ({'; '.join(parts)})." if parts else "."))
    if reason in (Reason.WRONG_LENGTH, Reason.INVALID_SPECIES) or (not lines and diag.get("detail")):
        detail = diag.get("detail")
        invalid = diag.get("invalid_species") or []
        if detail:
            lines.append(f"{str(detail)[0].upper()}{str(detail)[1:]}" + (f": {names(invalid)}." if invalid else "."))
    return lines
