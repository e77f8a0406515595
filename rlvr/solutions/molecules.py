"""Worked solutions of the molecular-structure tasks: feature counts, atom indices, constrained generation.

Count and index questions (terse and detailed; the brief style scans the string, see
:mod:`rlvr.solutions.molecule_brief`): walk the SMILES exactly as shown (heavy atoms, 0-based, in written
order), then one short section per asked key that lists the relevant atoms (or rings, bonds,
group instances, ...) with their indices and ends with the value. Values come from the feature
solvers (:mod:`rlvr.chem.molecules.features`) run on the SMILES of the prompt, never from the
task's ground truth; the listed atoms and rings are recomputed here on the same string and shown
only when they agree with the solver's value.

Generation: the molecule the task was derived from (``meta["reference_smiles"]``) is proposed and
every constraint is checked on it.
"""
from __future__ import annotations

import json
from typing import Any, Sequence

from rlvr.chem.constraints import Constraint
from rlvr.chem.molecules.features import FeatureError, molecule_features
from rlvr.chem.molecules.keys import SMILES_KEY
from rlvr.solutions.common import SolutionError, SolutionOptions, Trace
from rlvr.solutions.molecule_brief import brief_lines
from rlvr.solutions.molecule_sections import feature_spec, section, structure, value_text
from rlvr.solutions.smiles_walk import labels
from rlvr.task import Task


def _values(smiles: str, keys: Sequence[str]) -> dict[str, Any]:
    try:
        return molecule_features(smiles, list(keys))
    except (FeatureError, ValueError, KeyError) as exc:
        raise SolutionError(f"cannot compute features of {smiles!r}: {exc}") from exc


def _related_keys(key: str) -> list[str]:
    spec = feature_spec(key)
    return [k for k in (spec.count_key, spec.index_key, key) if k]


def _shown_smiles(task: Task) -> str:
    smiles = task.meta.get("smiles")
    if not isinstance(smiles, str) or not smiles:
        raise SolutionError(f"task {task.id}: meta['smiles'] (the SMILES as shown) is missing")
    if smiles not in task.user_text:
        raise SolutionError(f"task {task.id}: meta['smiles'] does not appear in the prompt")
    return smiles


def solve_features(task: Task, options: SolutionOptions) -> tuple[Trace, str]:
    """Counts and atom indices: atom walk, one section per asked key, JSON answer.

    The brief style writes a one-line scan of the SMILES for the keys that have one
    (:mod:`rlvr.solutions.molecule_brief`), and the atom walk only when some asked key has none.
    """
    smiles = _shown_smiles(task)
    keys = list(task.ground_truth)  # the asked keys (named in the prompt); their values are not read
    if not keys:
        raise SolutionError(f"task {task.id}: no keys asked")
    wanted: list[str] = []
    for key in keys:
        for k in _related_keys(key):
            if k not in wanted:
                wanted.append(k)
    values = _values(smiles, wanted)
    trace = Trace()
    brief = {key: brief_lines(key, smiles, values) for key in keys} if options.brief else {}
    if not brief or not all(brief.values()):
        st = structure(smiles)
        trace.add(f"Heavy atoms of {smiles} in SMILES order (0-based): {labels(st.atoms, None)}.", detail=True)
        trace.add(f"{len(st.atoms)} heavy atoms, indexed 0 to {len(st.atoms) - 1} in the order written.")
    for key in keys:
        scanned = brief.get(key)
        if scanned:
            trace.extend(scanned)
            continue
        for text, detail in section(key, smiles, values):
            trace.add(text, detail=detail)
    answer = {k: (sorted(values[k]) if k == feature_spec(k).index_key else values[k]) for k in keys}
    return trace, json.dumps(answer, ensure_ascii=False)


def _target(c: Constraint) -> str:
    op, value = c.op, c.value
    return f"in [{value[0]}, {value[1]}]" if op == "range" else f"{op} {value_text(value)}"


def _check_line(c: Constraint, actual: Any, ok: bool) -> str:
    shown = len(actual) if isinstance(actual, list) else actual
    return f"{c.key} = {value_text(shown)} ({_target(c)}: {'yes' if ok else 'no'})"


def solve_generation(task: Task, options: SolutionOptions) -> tuple[Trace, str]:
    """Constrained generation: propose the reference molecule and check every constraint on it."""
    raw = task.ground_truth.get("constraints")  # the constraints are stated in the prompt
    if not isinstance(raw, list) or not raw:
        raise SolutionError(f"task {task.id}: ground_truth['constraints'] is missing")
    try:
        constraints = [Constraint.parse(c) for c in raw]
    except ValueError as exc:
        raise SolutionError(f"task {task.id}: {exc}") from exc
    candidate = task.meta.get("reference_smiles") or task.meta.get("reference")
    if not isinstance(candidate, str) or not candidate:
        raise SolutionError(f"task {task.id}: meta['reference_smiles'] (a molecule meeting the constraints) is missing")
    keys: list[str] = []
    for c in constraints:
        for k in _related_keys(c.key):
            if k not in keys:
                keys.append(k)
    values = _values(candidate, keys)
    trace = Trace()
    trace.add("Constraints: " + "; ".join(f"{c.key} {_target(c)}" for c in constraints) + ".")
    trace.add(f"Candidate: {candidate}")
    all_ok = True
    for c in constraints:
        actual = values.get(c.key)
        ok = actual is not None and c.holds(actual)
        all_ok &= ok
        if options.detailed:
            for text, _ in section(c.key, candidate, values)[1:-1]:
                trace.add("  " + text, detail=True)
        trace.add(_check_line(c, actual, ok))
    if not all_ok:
        raise SolutionError(f"task {task.id}: the reference molecule does not meet every constraint")
    trace.add("Every constraint holds, and the SMILES is one connected molecule.")
    return trace, json.dumps({SMILES_KEY: candidate})


__all__ = ["solve_features", "solve_generation"]
