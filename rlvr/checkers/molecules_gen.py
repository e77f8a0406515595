"""Verifier of the constrained-generation tasks: a generated SMILES must parse and sanitise, have
no dummy atoms, be one connected molecule, stay within the size caps, and satisfy every constraint
when its values are recomputed (see :mod:`rlvr.checkers.molecules`)."""
from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import lru_cache, partial
from typing import Any

from rdkit import Chem
from rdkit.Chem import rdMolDescriptors

from rlvr.checkers.molecules_parse import answer_pairs, resolve_keys
from rlvr.checkers.molecules_verdict import reward_mode, verdict
from rlvr.chem.constraints import Constraint
from rlvr.chem.molecules.counts import count_values
from rlvr.chem.molecules.features import FeatureError, is_feature_key, molecule_features, molecule_features_for
from rlvr.chem.molecules.keys import SMILES_KEY
from rlvr.chem.molecules.specs import KEY_TO_SPEC
from rlvr.chem.smiles import SmilesError, parse_unmarked_smiles
from rlvr.reasons import Reason
from rlvr.task import Task, TaskFormatError, Verdict

#: Generated SMILES longer than this are rejected (``too_long``) before parsing (pool molecules: < 100).
MAX_GEN_SMILES_CHARS = 200
#: Generated molecules with more heavy atoms than this are rejected (``too_long``) before any
#: feature is computed (pool molecules: <= 50).
MAX_GEN_HEAVY_ATOMS = 100
#: Generated molecules with more rings than this are rejected (``too_long``; pool molecules: <= 10):
#: cages and large fused systems make the longest-chain search run to its work bound.
MAX_GEN_RINGS = 12

_DUMMY_ATOM = Chem.MolFromSmarts("[#0]")


def _checked(text: str) -> tuple[Chem.Mol | None, Reason]:
    """:func:`validate_generated` on stripped text (the molecule may be the shared parse of :func:`parse_smiles`)."""
    if not text:
        return None, Reason.INVALID_SMILES
    if len(text) > MAX_GEN_SMILES_CHARS:
        return None, Reason.TOO_LONG
    try:
        mol = parse_unmarked_smiles(text)
    except SmilesError:  # not a SMILES, or no atoms
        return None, Reason.INVALID_SMILES
    if ("*" in text or "#0" in text) and mol.HasSubstructMatch(_DUMMY_ATOM):  # SMILES writes a dummy atom so
        return None, Reason.INVALID_SMILES
    # every heavy atom takes at least one character of the text
    too_many_atoms = len(text) > MAX_GEN_HEAVY_ATOMS and mol.GetNumHeavyAtoms() > MAX_GEN_HEAVY_ATOMS
    if too_many_atoms or rdMolDescriptors.CalcNumRings(mol) > MAX_GEN_RINGS:
        return None, Reason.TOO_LONG
    if "." in text and len(Chem.GetMolFrags(mol)) != 1:  # a SMILES without a dot is one connected molecule
        return None, Reason.MULTIPLE_FRAGMENTS
    return mol, Reason.OK


def validate_generated(smiles: str) -> tuple[Chem.Mol | None, Reason]:
    """Parse a generated SMILES under the size caps: ``(mol, OK)`` or ``(None, reason)``.

    Never raises: text that is not a SMILES at all (non-ASCII, lone surrogates) is ``invalid_smiles``.
    """
    mol, status = _checked(smiles.strip())
    return (Chem.Mol(mol) if mol is not None else None), status


def _features_on(mol: Chem.Mol, smiles: str, keys: tuple[str, ...],
                 convention: str) -> tuple[dict[str, Any] | None, str]:
    """The values of the known ``keys`` for a generated molecule (``mol``, parsed from ``smiles``;
    unknown keys are left out), or None and why."""
    try:
        if convention == "rlvr":  # counts key by key, the rest from only the solver groups they need
            values = count_values(mol, keys, smiles=smiles)  # an unknown key has no count
            rest = [k for k in keys if k not in values and k in KEY_TO_SPEC]
            if rest:
                values.update(molecule_features_for(smiles, rest))
            return values, "ok"
        known = [k for k in keys if k in KEY_TO_SPEC or is_feature_key(k, convention)]
        return molecule_features(smiles, known, convention=convention), "ok"
    except (FeatureError, ValueError) as exc:
        return None, f"feature_error: {exc}"[:200]


@lru_cache(maxsize=8192)
def _generated(text: str, keys: tuple[str, ...], convention: str = "rlvr") -> tuple[Reason, dict[str, Any] | None, str]:
    """``(status, values, why)`` of a generated molecule (stripped ``text``): its :func:`validate_generated`
    status, then the values of ``keys`` (None when they cannot be computed, and why).

    One parse serves both and is dropped once the values are known; the result is cached, since a
    group of samples repeats molecules.
    """
    mol, status = _checked(text)
    if mol is None:
        return status, None, ""
    values, why = _features_on(mol, text, keys, convention)
    return status, values, why


def task_convention(task: Task) -> str:
    """The feature convention a task's ground truth follows (``meta["convention"]``, else its
    config's, else ``"rlvr"``)."""
    config = task.meta.get("config")
    fallback = config.get("convention") if isinstance(config, Mapping) else None
    return str(task.meta.get("convention") or fallback or "rlvr")


_SCALARS = frozenset((str, int, float))


def _constraints_key(raw: list) -> tuple | None:
    """A hashable form of a constraints record (each value with its type, lists as tuples); None: another shape."""
    out = []
    for c in raw:
        if type(c) is not dict:
            return None
        items = []
        for name, value in c.items():
            kind = type(value)
            if kind is list:
                if not all(type(v) in _SCALARS for v in value):
                    return None
                value = tuple((type(v), v) for v in value)
            elif kind not in _SCALARS:
                return None
            items.append((name, kind, value))
        out.append(tuple(items))
    return tuple(out)


def _parse_constraints(raw: list, convention: str) -> tuple[tuple[Constraint, ...], tuple[str, ...]]:
    """The constraints of a record and the keys they name (sorted, each once)."""
    constraints = tuple(Constraint.parse(c, convention) for c in raw)
    return constraints, tuple(sorted({c.key for c in constraints}))


@lru_cache(maxsize=4096)
def _parsed_constraints(key: tuple, convention: str) -> tuple[tuple[Constraint, ...], tuple[str, ...]]:
    raw = [{name: [v for _kind, v in value] if kind is list else value for name, kind, value in c} for c in key]
    return _parse_constraints(raw, convention)


def _constraints(task: Task, convention: str) -> tuple[tuple[Constraint, ...], tuple[str, ...]]:
    """The task's constraints and the keys they name (parsed once per record shape; raises
    :class:`TaskFormatError` for a bad one)."""
    raw = task.ground_truth.get("constraints")
    if not isinstance(raw, list) or not raw:
        raise TaskFormatError(f"task {task.id!r}: ground truth needs a non-empty list of constraints")
    try:
        key = _constraints_key(raw)
        if key is not None:
            return _parsed_constraints(key, convention)
        return _parse_constraints(raw, convention)
    except (ValueError, AttributeError, TypeError) as exc:
        raise TaskFormatError(f"task {task.id!r}: bad constraint: {exc}") from exc


#: per-key statuses of a failed generation that mean the answer had no value of the right type
_NO_VALUE = (Reason.NO_ANSWER, Reason.UNPARSABLE, Reason.MISSING_KEY, Reason.WRONG_TYPE)


def _answer_smiles(completion: Any) -> tuple[str | None, str | None, str, list[str]]:
    """``(text, failure, source, unknown keys)`` of a generation answer: the stripped SMILES it names,
    or (text None) the reason it names none usable (no answer, a missing, repeated or non-string
    ``smiles`` key, text over :data:`MAX_GEN_SMILES_CHARS`)."""
    pairs, source = answer_pairs(completion, allow_bare_smiles=True)
    if pairs is None:
        return None, source, source, []
    found, unknown = resolve_keys(pairs, [SMILES_KEY])
    values = found.get(SMILES_KEY, [])
    if not values:
        return None, Reason.MISSING_KEY, source, unknown
    if len(values) > 1:
        return None, Reason.DUPLICATE_KEY, source, unknown
    if not isinstance(values[0], str):
        return None, Reason.WRONG_TYPE, source, unknown
    text = values[0].strip()
    if len(text) > MAX_GEN_SMILES_CHARS:
        return None, Reason.TOO_LONG, source, unknown
    return text, None, source, unknown


def check_gen(task: Task, completion: Any, **options: Any) -> Verdict:
    """Verify a generated molecule against ``task.ground_truth["constraints"]``."""
    mode = reward_mode(options)
    convention = task_convention(task)
    constraints, keys = _constraints(task, convention)
    base = {"smiles_valid": False, "constraints": [], "n_constraints": len(constraints)}

    def fail(reason: Reason, **extra: Any) -> Verdict:
        metrics = {**base, "keys": {SMILES_KEY: {"correct": False, "valid_type": reason not in _NO_VALUE,
                                                  "status": reason}},
                   "key_accuracy": 0.0, "type_valid": False, "wrong_keys": [c.key for c in constraints],
                   "n_keys": len(constraints), **extra}
        return Verdict(reward=0.0, correct=False, metrics=metrics, reason=reason)

    text, failure, source, unknown = _answer_smiles(completion)
    if failure is not None:
        if failure in (Reason.MISSING_KEY, Reason.DUPLICATE_KEY):
            return fail(failure, source=source, unknown_keys=unknown[:20])
        return fail(failure, source=source)
    status, features, why = _generated(text, keys, convention)
    if status != Reason.OK:
        return fail(status, source=source)
    if features is None:
        return fail(Reason.INVALID_SMILES, source=source, error=why)
    results: dict[str, dict[str, Any]] = {}
    details = []
    reason = Reason.OK
    for i, c in enumerate(constraints):
        actual = features.get(c.key)
        ok = actual is not None and c.holds(actual)
        if ok:
            status = Reason.OK
        else:
            status = "unsupported_constraint" if c.key not in features else Reason.CONSTRAINT_FAILED
            reason = Reason.CONSTRAINT_FAILED
        details.append({**c.to_dict(), "actual": actual if not isinstance(actual, list) else len(actual),
                        "satisfied": bool(ok)})
        name = c.key if c.key not in results else f"{c.key}#{i}"
        results[name] = {"correct": bool(ok), "valid_type": True, "status": status}
    extra = {**base, "smiles_valid": True, "constraints": details, "source": source, "unknown_keys": unknown[:20],
             "missing_keys": [], "duplicate_keys": [], "invalid_type_keys": []}
    result = verdict(results, extra, reason, mode)
    result.metrics["type_valid"] = True
    return result


def prepare(task: Task, completion: Any) -> Callable[[], Any] | None:
    """What a batch can do ahead for this verdict (:func:`rlvr.api.prepare`): for a generation task
    whose answer names one SMILES, a job that parses, validates and counts the molecule into the
    cache :func:`check_gen` reads; None otherwise."""
    if not is_generation(task):
        return None
    convention = task_convention(task)
    keys = _constraints(task, convention)[1]
    text = _answer_smiles(completion)[0]
    return None if text is None else partial(_generated, text, keys, convention)


def is_generation(task: Task) -> bool:
    """Whether a task asks for a molecule (constraints in its ground truth, or task type ``gen``)."""
    return "constraints" in task.ground_truth or task.meta.get("task_type") == "gen"


__all__ = [
    "MAX_GEN_HEAVY_ATOMS", "MAX_GEN_RINGS", "MAX_GEN_SMILES_CHARS", "check_gen", "is_generation", "prepare",
    "task_convention", "validate_generated",
]
