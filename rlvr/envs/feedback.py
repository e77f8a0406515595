"""Exact, non-leaking feedback on a wrong answer, written from a :class:`~rlvr.task.Verdict` alone.

The feedback never reads ``task.ground_truth``: it is built from the verdict's reason code and the
diagnostics the checkers put in ``Verdict.metrics`` — per-element/charge imbalance of the model's own
answer, counts of extra/missing species, the model's own species with wrong coefficients
(stoichiometry); the names of wrong, missing, duplicated or mistyped keys, and the model's own
molecule's values for unmet constraints (molecular tasks). It says *what* is wrong, never the right value.
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from rlvr.task import Task, Verdict

#: reason codes meaning "no readable answer" (shared by every family)
FORMAT_REASONS = frozenset({"no_answer", "too_long", "not_text", "unparsable", "checker_error"})

_MAX_ITEMS = 12


def _names(items: Sequence[Any]) -> str:
    items = [str(x) for x in items]
    shown = ", ".join(items[:_MAX_ITEMS])
    return shown + (f" and {len(items) - _MAX_ITEMS} more" if len(items) > _MAX_ITEMS else "")


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def _delta_text(delta: Mapping[str, Any], more: str, fewer: str) -> list[str]:
    """``{"O": 2, "H": -1, "charge": 1}`` -> phrases, elements first, charge last."""
    parts: list[str] = []
    for element in sorted(k for k in delta if k != "charge"):
        value = int(delta[element])
        if value > 0:
            parts.append(f"{_count(value, 'more ' + element + ' atom', 'more ' + element + ' atoms')} {more}")
        elif value < 0:
            parts.append(f"{_count(-value, 'fewer ' + element + ' atom', 'fewer ' + element + ' atoms')} {fewer}")
    charge = int(delta.get("charge", 0) or 0)
    if charge:
        parts.append(f"a net charge that differs by {charge:+d}")
    return parts


def _format_failure(verdict: Verdict) -> list[str]:
    reason = verdict.reason
    if reason == "no_answer":
        return ["No answer found: write the final answer inside <answer>...</answer> (after any reasoning)."]
    if reason == "too_long":
        return ["The response or the answer is too long; give a shorter final answer inside <answer>...</answer>."]
    if reason == "not_text":
        return ["The response is not text."]
    if reason == "checker_error":
        return ["The answer could not be checked; write it in the format the question asks for."]
    detail = _diagnostics(verdict).get("detail")
    text = "The answer could not be parsed"
    return [f"{text}: {detail}." if detail else f"{text}; use the format the question asks for."]


def _diagnostics(verdict: Verdict) -> Mapping[str, Any]:
    diag = verdict.metrics.get("diagnostics") if isinstance(verdict.metrics, Mapping) else None
    return diag if isinstance(diag, Mapping) else {}


def _stoich_bag(verdict: Verdict, task: Task) -> list[str]:
    diag = _diagnostics(verdict)
    lines: list[str] = []
    invalid = diag.get("invalid_species") or []
    if invalid:
        encoding = task.meta.get("encoding", "formula")
        lines.append(f"These species do not parse as {'SMILES' if encoding == 'smiles' else 'formulas'}: {_names(invalid)}.")
    n_extra = int(diag.get("n_extra", 0) or 0)
    n_missing = int(diag.get("n_missing", 0) or 0)
    if n_extra:
        lines.append(f"{_count(n_extra, 'species in your answer does', 'species in your answer do')} not belong in the answer.")
    if n_missing:
        lines.append(f"{_count(n_missing, 'expected species is', 'expected species are')} missing from your answer.")
    wrong = diag.get("wrong_coefficient") or []
    if wrong:
        lines.append(f"Right species, wrong coefficient: {_names(wrong)}.")
    delta = diag.get("element_delta")
    if isinstance(delta, Mapping) and delta:
        if task.family == "stoich.byproduct":
            phrases = _delta_text(delta, "than needed", "than needed")
            lines.append("With your byproducts the equation does not balance: they add " + "; ".join(phrases) + ".")
        else:
            phrases = _delta_text(delta, "than the inputs", "than the inputs")
            lines.append("Atoms are not conserved: your answer has " + "; ".join(phrases) + ".")
    elif isinstance(delta, Mapping) and not invalid and (n_extra or n_missing or wrong):
        lines.append("Your answer conserves every element and the charge, but it is not the right set of species and coefficients.")
    if not lines and diag.get("detail"):
        lines.append(f"{diag['detail']}.")
    return lines


def _stoich_balance(verdict: Verdict) -> list[str]:
    diag = _diagnostics(verdict)
    reason = verdict.reason
    lines: list[str] = []
    if reason == "not_positive":
        lines.append("Every coefficient must be a positive whole number.")
    if reason == "not_minimal":
        lines.append("The equation balances, but the coefficients share a common factor: give the smallest whole numbers.")
    if reason == "wrong_order":
        lines.append("These coefficients are in the wrong order: list them in the order the species appear in the question.")
    imbalance = diag.get("imbalance")
    if isinstance(imbalance, Mapping) and imbalance:
        phrases = _delta_text(imbalance, "on the product side", "on the product side")
        lines.append("Not balanced: compared with the reactant side, your equation has " + "; ".join(phrases) + ".")
    if reason == "species_mismatch":
        parts = []
        if diag.get("n_unknown"):
            parts.append(_count(int(diag["n_unknown"]), "species that is not in the question", "species that are not in the question"))
        if diag.get("n_wrong_side"):
            parts.append(_count(int(diag["n_wrong_side"]), "species on the wrong side", "species on the wrong side"))
        if diag.get("n_missing"):
            parts.append(_count(int(diag["n_missing"]), "species of the question missing", "species of the question missing"))
        lines.append("The equation must contain exactly the question's species, each on its own side" + (f" ({'; '.join(parts)})." if parts else "."))
    if reason in ("wrong_length", "invalid_species") or (not lines and diag.get("detail")):
        detail = diag.get("detail")
        invalid = diag.get("invalid_species") or []
        if detail:
            lines.append(f"{str(detail)[0].upper()}{str(detail)[1:]}" + (f": {_names(invalid)}." if invalid else "."))
    return lines


def _molecules(verdict: Verdict, task: Task) -> list[str]:
    m = verdict.metrics
    lines: list[str] = []
    if task.family == "mol.gen" or "constraints" in m:
        generation = {
            "missing_key": 'No SMILES found in your answer: give {"smiles": "..."}.',
            "duplicate_key": "More than one SMILES given: give exactly one molecule.",
            "wrong_type": "The SMILES must be a JSON string.",
        }
        if verdict.reason in generation:
            return [generation[verdict.reason]]
    if verdict.reason in ("invalid_smiles", "multiple_fragments") or (
        "smiles_valid" in m and not m.get("smiles_valid") and verdict.reason not in ("missing_key", "duplicate_key", "wrong_type")
    ):
        why = {
            "invalid_smiles": "does not parse as a valid molecule",
            "multiple_fragments": "has several disconnected fragments; give one connected molecule",
            "too_long": "is too large",
        }.get(verdict.reason, "is not a valid molecule")
        return [f"Your SMILES {why}."]
    missing = list(m.get("missing_keys") or [])
    duplicate = list(m.get("duplicate_keys") or [])
    mistyped = list(m.get("invalid_type_keys") or [])
    special = set(missing) | set(duplicate) | set(mistyped)
    constraints = m.get("constraints") or []
    if constraints:
        unmet = [c for c in constraints if isinstance(c, Mapping) and not c.get("satisfied")]
        if unmet:
            parts = []
            for c in unmet[:_MAX_ITEMS]:
                value = c.get("value")
                shown = f"in [{value[0]}, {value[1]}]" if c.get("op") == "range" and isinstance(value, (list, tuple)) else f"{c.get('op')} {value}"
                parts.append(f"{c.get('key')} {shown} (your molecule: {c.get('actual')})")
            lines.append("Constraints not met: " + "; ".join(parts) + ".")
        return lines
    if missing:
        lines.append(f"Missing from your answer: {_names(missing)}.")
    if duplicate:
        lines.append(f"Answered more than once: {_names(duplicate)}.")
    if mistyped:
        lines.append(f"Wrong type (counts are JSON integers, indices are lists of distinct integers): {_names(mistyped)}.")
    wrong = [k for k in (m.get("wrong_keys") or []) if k not in special]
    if wrong:
        lines.append(f"Wrong value for: {_names(wrong)}.")
    n_keys = int(m.get("n_keys", 0) or 0)
    if n_keys > 1:
        n_ok = n_keys - len(set(m.get("wrong_keys") or []))
        if n_ok > 0:
            lines.append(f"{_count(n_ok, 'key is', 'keys are')} already correct.")
    unknown = list(m.get("unknown_keys") or [])
    if unknown:
        lines.append(f"Ignored keys that were not asked: {_names(unknown)}.")
    return lines


def feedback_lines(task: Task, verdict: Verdict) -> list[str]:
    """What is wrong with the answer, one sentence per line (empty for a correct answer)."""
    if verdict.correct:
        return []
    if verdict.reason in FORMAT_REASONS:
        return _format_failure(verdict)
    if task.family == "stoich.balance":
        lines = _stoich_balance(verdict)
    elif task.family.startswith("stoich."):
        lines = _stoich_bag(verdict, task)
    elif task.family.startswith("mol."):
        lines = _molecules(verdict, task)
    else:
        lines = []
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
