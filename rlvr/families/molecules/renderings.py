"""The right answer of a molecular task in each other form its prompt allows (``FamilySpec.renderings``):
every one scores 1.0.

- counts and indices (``mol.count``, ``mol.index``): the keys in reverse order, compact JSON, one key per
  line, every index list in reverse order (index answers are sets), a formula value in another atom order
  (``OH6C2``), a SMILES value (a scaffold) written from another atom;
- generation (``mol.gen``): the reference molecule written from another atom and kekulised (any spelling of
  a molecule that meets the constraints is right).
"""
from __future__ import annotations

import json
from typing import Any

from rdkit import Chem

from rlvr.checkers.molecules import is_generation
from rlvr.chem.molecules.keys import SMILES_KEY
from rlvr.families.respell import other_formula, other_smiles
from rlvr.task import Task


def _answer(value: Any, **dumps: Any) -> str:
    return "<answer>" + json.dumps(value, ensure_ascii=False, **dumps) + "</answer>"


def _respelt(key: str, value: Any) -> Any:
    """``value`` spelt another way where its key reads it as a formula or a SMILES, else unchanged."""
    if not isinstance(value, str):
        return value
    lowered = key.lower()
    if "formula" in lowered:
        return other_formula(value) or value
    if "smiles" in lowered or "scaffold" in lowered or "product" in lowered:
        return other_smiles(value) or value
    return value


def feature_renderings(task: Task) -> list[str]:
    """The renderings of a count or index answer (``{key: value}``)."""
    truth = task.ground_truth
    if not isinstance(truth, dict) or not truth:
        return []
    reordered = {key: truth[key] for key in reversed(list(truth))}
    reversed_lists = {key: list(reversed(v)) if isinstance(v, list) else v for key, v in truth.items()}
    respelt = {key: _respelt(key, v) for key, v in truth.items()}
    forms = [_answer(reordered), _answer(truth, separators=(",", ":")), _answer(truth, indent=1),
             _answer(reversed_lists), _answer(respelt)]
    return [form for form in dict.fromkeys(forms) if form != _answer(truth)]


def generation_renderings(task: Task) -> list[str]:
    """The renderings of a generation answer: the reference molecule spelt from another atom and kekulised."""
    smiles = task.meta.get("reference_smiles")
    if not isinstance(smiles, str) or not smiles:
        return []
    forms = [other_smiles(smiles)]
    try:
        mol = Chem.MolFromSmiles(smiles)
        if mol is not None:
            Chem.Kekulize(mol, clearAromaticFlags=True)
            forms.append(Chem.MolToSmiles(mol, kekuleSmiles=True))
    except Exception:  # noqa: BLE001 - RDKit raises its own errors; no kekulé form is one rendering fewer
        pass
    return list(dict.fromkeys(_answer({SMILES_KEY: s}) for s in forms if s and s != smiles))


def renderings(task: Task) -> list[str]:
    """Every molecular task's renderings: :func:`generation_renderings` or :func:`feature_renderings`."""
    return generation_renderings(task) if is_generation(task) else feature_renderings(task)


__all__ = ["feature_renderings", "generation_renderings", "renderings"]
