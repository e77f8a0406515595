"""Does a reaction's product side carry stereocentres? (the stereo-accuracy subset of seed 002).

Read from the task's meta when the family provides a flag; otherwise computed with RDKit from the
SMILES products (``Chem.FindMolChiralCenters(mol, includeUnassigned=True)``). Formula-encoded
tasks without any SMILES in their meta are "unknown" (None), never guessed.
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, Iterable, Mapping

from rdkit import Chem, RDLogger

from rlvr.task import Task

#: meta keys a family may use for the flag
STEREO_META_KEYS = (
    "products_have_stereo", "stereo", "has_stereo", "product_stereo", "products_stereo", "stereo_products", "has_stereocentres",
    "has_stereocenters", "products_have_stereocentres", "products_have_stereocenters", "product_has_stereocentre",
    "stereocentres", "stereocenters",
)
#: meta keys that may hold the reference reaction as SMILES (string or {reactants, reagents, products})
_SMILES_REACTION_KEYS = ("reaction_smiles", "smiles_reaction", "reference_smiles", "reaction")
_COEF = re.compile(r"^\{\d+\}")


@lru_cache(maxsize=65536)
def smiles_has_stereocentre(smiles: str) -> bool | None:
    """True when the molecule has a (possibly unassigned) stereocentre; None when it does not parse."""
    RDLogger.DisableLog("rdApp.*")
    if len(smiles) > 1000:
        return None
    mol = Chem.MolFromSmiles(smiles)
    if mol is None:
        return None
    return bool(Chem.FindMolChiralCenters(mol, includeUnassigned=True, useLegacyImplementation=False))


def _products_from(value: Any) -> list[str] | None:
    if isinstance(value, str):
        if ">" not in value:
            return None
        side = value.split(">")[-1]
        return [_COEF.sub("", s) for s in side.split(".") if s]
    if isinstance(value, Mapping):
        products = value.get("products_smiles") or value.get("products")
        if isinstance(products, Mapping):
            return [str(k) for k in products]
        if isinstance(products, (list, tuple)):
            return [str(p) for p in products]
    return None


def _any_stereo(smiles: Iterable[str]) -> bool | None:
    flags = [smiles_has_stereocentre(s) for s in smiles]
    if not flags or any(f is None for f in flags):
        return None
    return any(flags)


def stereo_flag(task: Task) -> bool | None:
    """Whether the task's reference products carry stereocentres (None: cannot tell)."""
    meta = task.meta or {}
    for key in STEREO_META_KEYS:
        value = meta.get(key)
        if isinstance(value, bool):
            return value
        if isinstance(value, int) and not isinstance(value, bool):
            return value > 0
    encoding = meta.get("encoding") or (meta.get("config") or {}).get("encoding")
    for key in _SMILES_REACTION_KEYS:
        value = meta.get(key)
        if value is None:
            continue
        if key == "reaction" and encoding != "smiles":
            # the reference reaction is written in the task's encoding; only explicit SMILES fields help
            if isinstance(value, Mapping) and value.get("products_smiles"):
                return _any_stereo(_products_from({"products": value["products_smiles"]}) or [])
            continue
        products = _products_from(value)
        if products:
            return _any_stereo(products)
    if encoding == "smiles":
        gt = task.ground_truth or {}
        for key in ("products", "byproducts"):
            bag = gt.get(key)
            if isinstance(bag, Mapping) and bag:
                return _any_stereo(str(k) for k in bag)
    return None
