"""Model-free reference answers of the molecular families (the floor of every table)."""
from __future__ import annotations

import json

from rlvr.task import Task


def copy_molecule(task: Task) -> str:
    """``mol.count``/``mol.index``: the molecule shown in the prompt (``meta["smiles"]``) as the value of
    every requested key (``{"key": "SMILES", ...}``, never type-valid)."""
    smiles = task.meta.get("smiles")
    if isinstance(smiles, str) and smiles:
        return "<answer>" + json.dumps({key: smiles for key in task.ground_truth}) + "</answer>"
    return copy_prompt(task)


def copy_prompt(task: Task) -> str:
    """``mol.gen``, whose prompt shows no molecule: the prompt text itself (the reference molecule in
    the meta is never used)."""
    return "<answer>" + task.user_text.strip() + "</answer>"
