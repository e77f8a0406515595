"""Multi-turn feedback for the molecular families, from the verdict's metrics alone.

It never reads ``task.ground_truth``: the names of wrong, missing, duplicated or mistyped keys, and
the model's own molecule's values for unmet constraints. It says *what* is wrong, never the right value.
"""
from __future__ import annotations

from typing import Any, Mapping

from rlvr.families.text import MAX_ITEMS, count, names
from rlvr.reasons import Reason
from rlvr.task import Task, Verdict

_GENERATION = {
    Reason.MISSING_KEY: 'No SMILES found in your answer: give {"smiles": "..."}.',
    Reason.DUPLICATE_KEY: "More than one SMILES given: give exactly one molecule.",
    Reason.WRONG_TYPE: "The SMILES must be a JSON string.",
}
_KEY_REASONS = (Reason.MISSING_KEY, Reason.DUPLICATE_KEY, Reason.WRONG_TYPE)


def _lines(verdict: Verdict, generation: bool) -> list[str]:
    m: Mapping[str, Any] = verdict.metrics
    lines: list[str] = []
    if (generation or "constraints" in m) and verdict.reason in _GENERATION:
        return [_GENERATION[verdict.reason]]
    if verdict.reason in (Reason.INVALID_SMILES, Reason.MULTIPLE_FRAGMENTS) or (
        "smiles_valid" in m and not m.get("smiles_valid") and verdict.reason not in _KEY_REASONS
    ):
        why = {
            Reason.INVALID_SMILES: "does not parse as a valid molecule",
            Reason.MULTIPLE_FRAGMENTS: "has several disconnected fragments; give one connected molecule",
            Reason.TOO_LONG: "is too large",
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
            for c in unmet[:MAX_ITEMS]:
                value = c.get("value")
                shown = f"in [{value[0]}, {value[1]}]" if c.get("op") == "range" and isinstance(value, (list, tuple)) else f"{c.get('op')} {value}"
                parts.append(f"{c.get('key')} {shown} (your molecule: {c.get('actual')})")
            lines.append("Constraints not met: " + "; ".join(parts) + ".")
        return lines
    if missing:
        lines.append(f"Missing from your answer: {names(missing)}.")
    if duplicate:
        lines.append(f"Answered more than once: {names(duplicate)}.")
    if mistyped:
        lines.append(f"Wrong type (counts are JSON integers, indices are lists of distinct integers): {names(mistyped)}.")
    wrong = [k for k in (m.get("wrong_keys") or []) if k not in special]
    if wrong:
        lines.append(f"Wrong value for: {names(wrong)}.")
    n_keys = int(m.get("n_keys", 0) or 0)
    if n_keys > 1:
        n_ok = n_keys - len(set(m.get("wrong_keys") or []))
        if n_ok > 0:
            lines.append(f"{count(n_ok, 'key is', 'keys are')} already correct.")
    unknown = list(m.get("unknown_keys") or [])
    if unknown:
        lines.append(f"Ignored keys that were not asked: {names(unknown)}.")
    return lines


def features_feedback(task: Task, verdict: Verdict) -> list[str]:
    """``mol.count`` / ``mol.index``: wrong, missing, duplicated or mistyped keys."""
    return _lines(verdict, generation=False)


def generation_feedback(task: Task, verdict: Verdict) -> list[str]:
    """``mol.gen``: a missing or invalid SMILES, or the unmet constraints with the molecule's own values."""
    return _lines(verdict, generation=True)
