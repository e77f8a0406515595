"""The molecule files shipped inside the RDKit wheel (``RDConfig.RDDataDir``): the one reader of them.

Both embedded molecule sources use these files (nothing is downloaded): the molecules of the
stoichiometry reaction corpus and the default molecule pool of the molecular tasks.
"""
from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Iterator

from rdkit import RDConfig

#: the molecule files, relative to ``RDConfig.RDDataDir``: NCI first 5K (SMILES + id) and the WEHI
#: PAINS test molecules (quoted CSV: SMILES, id)
MOLECULE_FILES: tuple[str, ...] = ("NCI/first_5K.smi", "Pains/test_data/wehi_mols.csv")


class RDKitDataError(FileNotFoundError):
    """A molecule file of the RDKit wheel is missing (a stripped or unusual RDKit installation)."""


def molecule_files() -> list[Path]:
    """Absolute paths of :data:`MOLECULE_FILES` in the installed RDKit (raises if one is missing)."""
    root = Path(RDConfig.RDDataDir)
    paths = [root / rel for rel in MOLECULE_FILES]
    missing = [str(p) for p in paths if not p.exists()]
    if missing:
        raise RDKitDataError(f"RDKit data files are missing: {missing}")
    return paths


def read_smiles(path: Path) -> Iterator[str]:
    """The SMILES of each record of one molecule file, in file order (first field of a line; quoted
    CSV fields unquoted; blank and ``#`` lines skipped)."""
    with open(path, encoding="utf-8", errors="replace") as fh:
        for line in fh:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            if line.startswith('"'):
                yield line.split('"')[1]
            else:
                yield line.replace(",", " ").split()[0]


def molecule_smiles() -> list[str]:
    """The SMILES of every record of every molecule file, files in :data:`MOLECULE_FILES` order."""
    return [smi for path in molecule_files() for smi in read_smiles(path)]


def files_digest() -> list[str]:
    """SHA-256 of each molecule file (part of the cache keys of everything built from them)."""
    return [hashlib.sha256(p.read_bytes()).hexdigest() for p in molecule_files()]


__all__ = ["MOLECULE_FILES", "RDKitDataError", "files_digest", "molecule_files", "molecule_smiles", "read_smiles"]
