"""The molecules the embedded reaction corpus is built from: the RDKit-wheel molecule files
(:mod:`rlvr.chem.rdkit_data`), filtered to single-fragment, neutral, organic molecules of 4-35 heavy
atoms, canonical SMILES that are fixed points of canonicalisation, cached on disk.
"""
from __future__ import annotations

import hashlib
import json
import os
from functools import lru_cache

from rdkit import Chem, rdBase

from rlvr.chem.rdkit_data import files_digest, molecule_smiles
from rlvr.generators.stoich.corpus_model import CORPUS_VERSION
from rlvr.paths import cache_dir
from rlvr.progress import progress
from rlvr.rng import stable_hash

ORGANIC_ELEMENTS = frozenset({"C", "H", "N", "O", "S", "P", "F", "Cl", "Br", "I", "B", "Si"})
MIN_HEAVY_ATOMS = 4
MAX_HEAVY_ATOMS = 35


def _accept_molecule(mol: Chem.Mol | None) -> bool:
    """Single fragment, neutral, organic elements only, no isotopes or radicals, 4-35 heavy atoms."""
    if mol is None or len(Chem.GetMolFrags(mol)) != 1:
        return False
    if Chem.GetFormalCharge(mol) != 0:
        return False
    heavy = mol.GetNumHeavyAtoms()
    if not MIN_HEAVY_ATOMS <= heavy <= MAX_HEAVY_ATOMS:
        return False
    for atom in mol.GetAtoms():
        if atom.GetSymbol() not in ORGANIC_ELEMENTS or atom.GetIsotope() or atom.GetNumRadicalElectrons():
            return False
    return True


def molecule_pool_key() -> str:
    """Hash of everything the molecule pool depends on (its cache key; cheap: no molecule is parsed)."""
    return hashlib.sha256(json.dumps([CORPUS_VERSION, rdBase.rdkitVersion, MIN_HEAVY_ATOMS, MAX_HEAVY_ATOMS,
                                      sorted(ORGANIC_ELEMENTS), files_digest()]).encode()).hexdigest()[:16]


@lru_cache(maxsize=4)
def load_molecule_pool(limit: int | None = None) -> tuple[str, ...]:
    """Canonical SMILES of the accepted RDKit-wheel molecules (single fragment, neutral, organic
    elements, 4-35 heavy atoms), de-duplicated; sorted, or the first ``limit`` in stable-hash order.

    The full pool is cached on disk next to the corpora (keyed by the files' digests and RDKit version).
    """
    key = molecule_pool_key()
    path = cache_dir("stoich") / f"pool-v{CORPUS_VERSION}-{key}.txt"
    pool: list[str] | None = None
    if path.exists():
        lines = path.read_text(encoding="utf-8").split("\n")
        if lines and lines[0] == f"# {key} {len(lines) - 1}":
            pool = lines[1:]
    if pool is None:
        pool = _scan_molecule_files()
        tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        tmp.write_text("\n".join([f"# {key} {len(pool)}", *pool]), encoding="utf-8")
        os.replace(tmp, path)
    if limit is not None:
        pool = sorted(sorted(pool, key=lambda s: stable_hash("pool", s))[:limit])
    return tuple(pool)


def _scan_molecule_files() -> list[str]:
    found: set[str] = set()
    for smi in progress(molecule_smiles(), "reaction corpus: scanning molecules", unit="mol"):
        mol = Chem.MolFromSmiles(smi)
        if not _accept_molecule(mol):
            continue
        can = Chem.MolToSmiles(mol)
        if can in found:
            continue
        again = Chem.MolFromSmiles(can)
        if again is not None and Chem.MolToSmiles(again) == can:
            found.add(can)
    return sorted(found)
