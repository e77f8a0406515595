"""Strict verifiers of the MolecularIQ tasks: feature counts, atom-index attribution and constrained
generation (generation: :mod:`rlvr.checkers.molecules_gen`; answer reading:
:mod:`rlvr.checkers.molecules_parse`; answer keys: :mod:`rlvr.checkers.molecules_keys`).

Extraction follows the cascade of MolecularIQ appendix B.2.3 (:func:`rlvr.answer.extract_json_answer`:
last ``<answer>`` block with JSON; tag text without JSON; last JSON object without tags; nothing;
text before ``</think>`` ignored). Tag text without a JSON object is read as ``"key": value`` pairs
(the paper's own prompt shows answers without braces) or ``key: value`` lines, and, for generation
only, as a bare SMILES token.

Stricter than the paper:

- answer keys are canonicalised (case, punctuation, plurals, natural-language aliases such as
  ``"number of carbon atoms"`` or ``"carbon count"`` for ``carbon_atom_count``), but an alias must
  identify the asked key uniquely among all known feature keys, and a key that names another
  known feature never stands in for the asked one;
- a missing key is wrong; two answers for the same key (exact duplicates in the JSON text, or
  two spellings that canonicalise to the same key) are wrong;
- counts must be JSON integers: ``2.7``, ``2.0``, ``"2"``, ``true`` and ``null`` are wrong types;
- index answers must be lists of distinct integers (order-insensitive);
- a generated SMILES must parse and sanitise, have no dummy atoms, be one connected molecule
  (no ``.``), stay within the size caps, and satisfy every constraint when recomputed.

Every verdict carries per-key results in ``metrics["keys"]`` plus ``key_accuracy``, ``type_valid``
and the lists ``wrong_keys``, ``missing_keys``, ``duplicate_keys``, ``invalid_type_keys`` and
``unknown_keys`` (key names only, never values, so a multi-turn environment can give feedback
without leaking the answer). Reward is binary by default; ``reward="shaped"`` gives the fraction
of asked keys (or constraints) that are correct.
"""
from __future__ import annotations

import json
import math
from typing import Any

from rlvr.checkers.molecules_gen import (
    MAX_GEN_HEAVY_ATOMS,
    MAX_GEN_RINGS,
    MAX_GEN_SMILES_CHARS,
    check_gen,
    is_generation,
    prepare,
    validate_generated,
)
from rlvr.checkers.molecules_parse import answer_pairs, resolve_keys
from rlvr.checkers.molecules_verdict import REWARD_MODES, reward_mode, verdict
from rlvr.chem.formula import same_formula
from rlvr.chem.molecules.keys import SMILES_KEY
from rlvr.chem.smiles import same_smiles
from rlvr.reasons import Reason
from rlvr.task import Task, TaskFormatError, Verdict

#: Index lists longer than this are rejected (wrong type) without further work.
MAX_INDEX_LIST = 1_000
#: String values (formulas, SMILES) longer than this are wrong.
MAX_VALUE_CHARS = 500


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def check_value(key: str, pred: Any, true: Any) -> tuple[bool, bool, str]:
    """Compare one answer value with the ground truth: ``(valid_type, correct, status)``.

    The comparison is chosen by the ground-truth type: integer list (index answers: a list of
    distinct integers, order-insensitive), integer (a JSON integer, no floats, strings or booleans),
    boolean, or string (molecular formulas compared as formulas, SMILES-valued keys as canonical
    SMILES, other strings after trimming and case folding).
    """
    if isinstance(true, (list, tuple)):
        if not isinstance(pred, list) or len(pred) > MAX_INDEX_LIST or not all(_is_int(x) for x in pred):
            return False, False, Reason.WRONG_TYPE
        if len(set(pred)) != len(pred):
            return True, False, "duplicate_indices"
        return True, set(pred) == {int(x) for x in true}, Reason.OK
    if isinstance(true, bool):
        if not isinstance(pred, bool):
            return False, False, Reason.WRONG_TYPE
        return True, pred == true, Reason.OK
    if isinstance(true, float) and true.is_integer():
        true = int(true)
    if _is_int(true):
        if not _is_int(pred):
            return False, False, Reason.WRONG_TYPE
        return True, pred == true, Reason.OK
    if isinstance(true, float):
        if not isinstance(pred, (int, float)) or isinstance(pred, bool) or not math.isfinite(pred):
            return False, False, Reason.WRONG_TYPE
        return True, math.isclose(pred, true, rel_tol=1e-9, abs_tol=1e-9), Reason.OK
    if isinstance(true, str):
        if not isinstance(pred, str) or len(pred) > MAX_VALUE_CHARS:
            return False, False, Reason.WRONG_TYPE
        k = key.lower()
        if "formula" in k:
            return True, same_formula(pred, true), Reason.OK
        if "smiles" in k or "scaffold" in k or "product" in k:
            return True, same_smiles(pred, true, max_chars=MAX_GEN_SMILES_CHARS), Reason.OK
        return True, pred.strip().casefold() == true.strip().casefold(), Reason.OK
    return False, False, Reason.WRONG_TYPE


#: the verdict reason of an answer with several wrong keys: the first of these any key has
_REASON_ORDER = (Reason.DUPLICATE_KEY, Reason.MISSING_KEY, Reason.WRONG_TYPE, Reason.WRONG_VALUE)


def check_answer(task: Task, completion: Any, **options: Any) -> Verdict:
    """Verify a count or index answer against ``task.ground_truth`` (``{key: value}``)."""
    mode = reward_mode(options)
    truth = dict(task.ground_truth)
    asked = list(truth)
    if not asked:
        raise TaskFormatError(f"task {task.id!r}: ground truth has no keys")
    empty = {k: {"correct": False, "valid_type": False, "status": Reason.NO_ANSWER} for k in asked}
    pairs, source = answer_pairs(completion, allow_bare_smiles=False)
    if pairs is None:
        reason = source
        for r in empty.values():
            r["status"] = reason
        return verdict(empty, {"source": source, "missing_keys": asked, "duplicate_keys": [],
                                "invalid_type_keys": [], "unknown_keys": []}, reason, mode)
    found, unknown = resolve_keys(pairs, asked)
    results: dict[str, dict[str, Any]] = {}
    statuses: set[str] = set()
    for key in asked:
        values = found.get(key, [])
        if not values:
            results[key] = {"correct": False, "valid_type": False, "status": Reason.MISSING_KEY}
        elif len(values) > 1:
            results[key] = {"correct": False, "valid_type": all(check_value(key, v, truth[key])[0] for v in values),
                            "status": Reason.DUPLICATE_KEY}
        else:
            valid, ok, status = check_value(key, values[0], truth[key])
            if status == Reason.OK and not ok or status == "duplicate_indices":
                status = Reason.WRONG_VALUE
            results[key] = {"correct": bool(ok), "valid_type": valid, "status": status}
        statuses.add(results[key]["status"])
    reason = next((r for r in _REASON_ORDER if r in statuses), Reason.OK)
    extra = {
        "source": source,
        "missing_keys": [k for k, r in results.items() if r["status"] == Reason.MISSING_KEY],
        "duplicate_keys": [k for k, r in results.items() if r["status"] == Reason.DUPLICATE_KEY],
        "invalid_type_keys": [k for k, r in results.items() if r["status"] == Reason.WRONG_TYPE],
        "unknown_keys": unknown[:20],
    }
    return verdict(results, extra, reason, mode)


check_count = check_answer
check_index = check_answer


def check(task: Task, completion: Any, **options: Any) -> Verdict:
    """Any molecular task: generation tasks (:func:`is_generation`) to :func:`check_gen`, others to :func:`check_answer`."""
    if is_generation(task):
        return check_gen(task, completion, **options)
    return check_answer(task, completion, **options)


def oracle(task: Task) -> str:
    """A completion that scores 1.0: the ground truth (or the reference molecule) as an answer block."""
    if is_generation(task):
        smiles = task.meta.get("reference_smiles")
        if not smiles:
            raise ValueError(f"task {task.id} has no reference molecule for its constraints")
        return "<answer>" + json.dumps({SMILES_KEY: smiles}) + "</answer>"
    return "<answer>" + json.dumps(task.ground_truth, ensure_ascii=False) + "</answer>"


__all__ = [
    "MAX_GEN_HEAVY_ATOMS", "MAX_GEN_RINGS", "MAX_GEN_SMILES_CHARS", "MAX_INDEX_LIST", "MAX_VALUE_CHARS",
    "REWARD_MODES", "SMILES_KEY", "check", "check_answer", "check_count", "check_gen", "check_index", "check_value",
    "is_generation", "oracle", "prepare", "validate_generated",
]
