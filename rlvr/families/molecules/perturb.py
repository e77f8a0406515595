"""Minimal wrong variants of a correct molecular answer (the conformance checks' near misses).

- counts (``mol.count``): one integer value +-1 (never below 0), one formula subscript +-1;
- indices (``mol.index``): one index replaced by the nearest index not in the list, one index left
  out, one index added (only the last two for ``longest_carbon_chain_index``, where another chain of
  the same length may be just as right);
- generation (``mol.gen``): the answer molecule with one atom added, removed or changed, or one bond
  lengthened by a CH2, chosen so that a constrained feature no longer holds (none when no single edit
  breaks a constraint).
"""
from __future__ import annotations

import json
import re
from typing import Any, Iterator

from rdkit import Chem, RDLogger

from rlvr.chem.constraints import Constraint
from rlvr.chem.molecules.features import FeatureError, molecule_features
from rlvr.task import Task

_ANSWER = re.compile(r"<answer>(.*)</answer>", re.S)
_SUBSCRIPT = re.compile(r"\d+")
#: index keys where a different set of the same size can also be right
_MANY_ANSWERS = ("longest_carbon_chain_index",)
#: at most this many molecules are tried for a generation answer
MAX_EDITS = 400
#: generation answers: at most this many perturbations are returned
MAX_GENERATED = 3


def _answer(completion: str) -> tuple[dict[str, Any], int, int] | None:
    match = _ANSWER.search(completion)
    if match is None:
        return None
    try:
        value = json.loads(match.group(1))
    except json.JSONDecodeError:
        return None
    return (value, match.start(1), match.end(1)) if isinstance(value, dict) else None


def _with(completion: str, start: int, end: int, value: dict[str, Any]) -> str:
    return completion[:start] + json.dumps(value) + completion[end:]


def _value_steps(key: str, value: Any) -> Iterator[Any]:
    if isinstance(value, bool):
        yield not value
    elif isinstance(value, int):
        yield from (v for v in (value - 1, value + 1) if v >= 0)
    elif isinstance(value, list) and all(isinstance(i, int) for i in value):
        absent = [i for i in range(max(value, default=-1) + 2) if i not in value]
        if value and key not in _MANY_ANSWERS:
            first = value[0]
            nearest = min(absent, key=lambda i: (abs(i - first), i))
            yield [nearest, *value[1:]]
        if value:
            yield value[:-1]
        yield [*value, absent[0]]
    elif isinstance(value, str) and "formula" in key:
        for match in _SUBSCRIPT.finditer(value):
            for new in (int(match.group()) - 1, int(match.group()) + 1):
                if new >= 2:
                    yield value[:match.start()] + str(new) + value[match.end():]


def feature_steps(task: Task, completion: str) -> list[str]:
    """``mol.count`` / ``mol.index``: one value of the answer object moved by the smallest step its type has."""
    parsed = _answer(completion)
    if parsed is None:
        return []
    answer, start, end = parsed
    out = []
    for key, value in answer.items():
        for new in _value_steps(key, value):
            out.append(_with(completion, start, end, {**answer, key: new}))
    return out


def _edits(mol: Chem.Mol) -> Iterator[Chem.Mol]:
    """Molecules one edit away: a methyl added, a terminal atom removed, a carbon made nitrogen, a CH2 put in a bond."""
    for atom in mol.GetAtoms():
        i = atom.GetIdx()
        if atom.GetTotalNumHs() > 0:
            rw = Chem.RWMol(mol)
            j = rw.AddAtom(Chem.Atom(6))
            rw.AddBond(i, j, Chem.BondType.SINGLE)
            yield rw.GetMol()
        if atom.GetDegree() == 1:
            rw = Chem.RWMol(mol)
            rw.RemoveAtom(i)
            yield rw.GetMol()
        if atom.GetSymbol() == "C" and not atom.GetIsAromatic():
            rw = Chem.RWMol(mol)
            rw.GetAtomWithIdx(i).SetAtomicNum(7)
            yield rw.GetMol()
    for bond in mol.GetBonds():
        if bond.GetBondType() == Chem.BondType.SINGLE and not bond.GetIsAromatic():
            rw = Chem.RWMol(mol)
            a, b = bond.GetBeginAtomIdx(), bond.GetEndAtomIdx()
            rw.RemoveBond(a, b)
            j = rw.AddAtom(Chem.Atom(6))
            rw.AddBond(a, j, Chem.BondType.SINGLE)
            rw.AddBond(j, b, Chem.BondType.SINGLE)
            yield rw.GetMol()


def _valid_smiles(mol: Chem.Mol) -> str | None:
    try:
        mol = Chem.Mol(mol)
        Chem.SanitizeMol(mol)
        smiles = Chem.MolToSmiles(mol)
    except Exception:  # noqa: BLE001 - an edit RDKit cannot sanitise is skipped
        return None
    return smiles if smiles and "." not in smiles else None


def constraint_breaking_edits(task: Task, completion: str) -> list[str]:
    """``mol.gen``: the answer molecule edited once so that at least one constraint fails (at most
    :data:`MAX_GENERATED`, from the first :data:`MAX_EDITS` edits)."""
    parsed = _answer(completion)
    if parsed is None or not isinstance(parsed[0].get("smiles"), str):
        return []
    answer, start, end = parsed
    mol = Chem.MolFromSmiles(answer["smiles"])
    if mol is None:
        return []
    convention = str(task.meta.get("convention") or (task.meta.get("config") or {}).get("convention") or "rlvr")
    constraints = [Constraint.parse(raw, convention) for raw in task.ground_truth.get("constraints", [])]
    keys = sorted({c.key for c in constraints})
    out: list[str] = []
    seen = {Chem.MolToSmiles(mol)}
    RDLogger.DisableLog("rdApp.*")
    try:
        for n, edited in enumerate(_edits(mol)):
            smiles = _valid_smiles(edited)
            if n >= MAX_EDITS or len(out) >= MAX_GENERATED:
                break
            if smiles is None or smiles in seen:
                continue
            seen.add(smiles)
            try:
                values = molecule_features(smiles, keys, convention=convention)
            except (FeatureError, KeyError, ValueError):
                continue
            if not all(c.holds(values.get(c.key)) for c in constraints):
                out.append(_with(completion, start, end, {**answer, "smiles": smiles}))
    finally:
        RDLogger.EnableLog("rdApp.*")
    return out


__all__ = ["constraint_breaking_edits", "feature_steps"]
