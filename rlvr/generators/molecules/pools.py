"""Molecule pools: the embedded default pool and user pools (SMILES/CSV/TSV/parquet/JSON(L) files or
a ``datasets`` dataset), filtered as in MolecularIQ appendix A.2.

Filter: parseable and sanitisable, a single fragment, contains carbon, no dummy atoms,
5-50 heavy atoms, canonical SMILES shorter than 100 characters; deduplicated by canonical SMILES.
Bad rows are skipped and counted by reason in a :class:`PoolReport`, never raised.
"""
from __future__ import annotations

import csv
import gzip
import hashlib
import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Iterable, Sequence

from rdkit import Chem, RDLogger

from rlvr.chem.rdkit_data import MOLECULE_FILES, RDKitDataError, molecule_files, molecule_smiles
from rlvr.chem.smiles import mol_from_smiles

RDLogger.DisableLog("rdApp.*")

#: The embedded default pool: the molecule files shipped inside the RDKit wheel (:mod:`rlvr.chem.rdkit_data`).
DEFAULT_POOL_FILES: tuple[str, ...] = MOLECULE_FILES

#: Column names recognised as holding SMILES (case-insensitive), in order of preference.
SMILES_COLUMNS: tuple[str, ...] = (
    "smiles", "canonical_smiles", "isomeric_smiles", "original_smiles", "input_smiles", "smi",
    "smiles_string", "molecule", "mol", "structure",
)

#: Raw rows longer than this are skipped before parsing (cheap guard against junk input).
_MAX_RAW_CHARS = 1_000


class PoolError(ValueError):
    """A pool source cannot be read at all (missing file, no SMILES column, unknown format)."""


@dataclass(frozen=True)
class PoolFilter:
    """Which molecules enter a pool (defaults: MolecularIQ appendix A.2)."""

    min_heavy_atoms: int = 5
    max_heavy_atoms: int = 50
    max_smiles_chars: int = 99
    require_carbon: bool = True
    single_fragment: bool = True


@dataclass
class PoolReport:
    """What happened to the rows of a pool source: kept count and skipped counts by reason."""

    source: str
    n_rows: int = 0
    n_kept: int = 0
    skipped: dict[str, int] = field(default_factory=dict)

    def skip(self, reason: str) -> None:
        self.skipped[reason] = self.skipped.get(reason, 0) + 1

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def default_pool_paths() -> list[Path]:
    """Paths of the embedded default pool files inside the installed RDKit."""
    try:
        return molecule_files()
    except RDKitDataError as exc:
        raise PoolError(f"the default pool is unavailable: {exc}") from exc


def _pick_column(names: Sequence[str], column: str | None) -> str | None:
    lowered = {str(n).strip().lower(): n for n in names}
    if column is not None:
        if column in names:
            return column
        if column.lower() in lowered:
            return lowered[column.lower()]
        raise PoolError(f"column {column!r} not found; columns are {list(names)}")
    for candidate in SMILES_COLUMNS:
        if candidate in lowered:
            return lowered[candidate]
    return None


def _parses(text: Any) -> bool:
    return isinstance(text, str) and 0 < len(text) <= _MAX_RAW_CHARS and mol_from_smiles(text.strip()) is not None


def _read_delimited(path: Path, column: str | None, delimiter: str) -> list[Any]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8", newline="") as fh:
        rows = [r for r in csv.reader(fh, delimiter=delimiter) if r]
    if not rows:
        return []
    header = rows[0]
    name = _pick_column(header, column)
    if name is not None:
        idx = header.index(name)
        body = rows[1:]
    else:
        # no recognised header: a first row that parses is data; otherwise it is an unknown header
        has_header = not any(_parses(c) for c in header)
        body = rows[1:] if has_header else rows
        probe = body[0] if body else header
        idx = next((i for i, c in enumerate(probe) if _parses(c)), 0)
    return [r[idx] if idx < len(r) else None for r in body]


def _read_smi(path: Path) -> list[Any]:
    opener = gzip.open if path.suffix == ".gz" else open
    out: list[Any] = []
    with opener(path, "rt", encoding="utf-8") as fh:
        for i, line in enumerate(fh):
            text = line.strip()
            if not text or text.startswith("#"):
                continue
            token = text.split()[0]
            if i == 0 and token.lower() in SMILES_COLUMNS:
                continue  # header line
            out.append(token)
    return out


def _read_json(path: Path, column: str | None) -> list[Any]:
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".jsonl" or (text.lstrip()[:1] == "{" and "\n{" in text):
        records = [json.loads(line) for line in text.splitlines() if line.strip()]
    else:
        data = json.loads(text)
        records = data if isinstance(data, list) else data.get("data", data.get("rows", []))
    if records and all(isinstance(r, str) for r in records):
        return list(records)
    names = sorted({k for r in records if isinstance(r, dict) for k in r})
    name = _pick_column(names, column)
    if name is None:
        raise PoolError(f"{path}: no SMILES column among {names}; pass column=...")
    return [r.get(name) if isinstance(r, dict) else None for r in records]


def _read_parquet(path: Path, column: str | None) -> list[Any]:
    import pyarrow.parquet as pq

    names = pq.read_schema(path).names
    name = _pick_column(names, column)
    if name is None:
        raise PoolError(f"{path}: no SMILES column among {names}; pass column=...")
    return pq.read_table(path, columns=[name]).column(name).to_pylist()


def read_rows(path: str | os.PathLike, column: str | None = None) -> list[Any]:
    """The raw SMILES cells of a pool file (one per row; unreadable cells come back as None).

    Formats by extension: ``.smi``/``.smiles``/``.txt`` (first whitespace token per line),
    ``.csv``/``.tsv`` (column ``column``, a recognised header such as ``smiles``, or the first
    column that parses), ``.parquet``, ``.json``/``.jsonl`` (records or plain strings); ``.gz`` allowed
    for text formats.
    """
    p = Path(path)
    if not p.exists():
        raise PoolError(f"pool file not found: {p}")
    suffixes = [s.lower() for s in p.suffixes]
    ext = suffixes[-2] if suffixes and suffixes[-1] == ".gz" and len(suffixes) > 1 else (suffixes[-1] if suffixes else "")
    if ext in (".smi", ".smiles", ".txt", ".ism", ""):
        return _read_smi(p)
    if ext == ".csv":
        return _read_delimited(p, column, ",")
    if ext in (".tsv", ".tab"):
        return _read_delimited(p, column, "\t")
    if ext == ".parquet":
        return _read_parquet(p, column)
    if ext in (".json", ".jsonl"):
        return _read_json(p, column)
    raise PoolError(f"unknown pool file format {p.suffix!r} ({p}); use .smi, .csv, .tsv, .parquet, .json or .jsonl")


def rows_from_dataset(dataset: Any, column: str | None = None) -> list[Any]:
    """The raw SMILES cells of a ``datasets.Dataset`` (or any object with ``column_names`` and ``__getitem__``)."""
    names = list(getattr(dataset, "column_names", []))
    name = _pick_column(names, column)
    if name is None:
        raise PoolError(f"dataset has no SMILES column among {names}; pass column=...")
    return list(dataset[name])


def default_pool_rows() -> list[Any]:
    """Raw rows of the embedded default pool (NCI first 5K + WEHI PAINS test molecules)."""
    default_pool_paths()  # a missing file is a PoolError
    return list(molecule_smiles())


def rows_hash(rows: Iterable[Any]) -> str:
    """A content hash of raw rows (order-sensitive), used as part of the pool cache key."""
    h = hashlib.blake2b(digest_size=16)
    for row in rows:
        h.update(repr(row).encode("utf-8", "replace"))
        h.update(b"\x1e")
    return h.hexdigest()


def filter_rows(rows: Iterable[Any], flt: PoolFilter = PoolFilter(), source: str = "rows") -> tuple[list[tuple[str, Chem.Mol]], PoolReport]:
    """Apply the pool filter: returns ``[(canonical SMILES, mol)]`` in first-seen order and a report."""
    report = PoolReport(source=source)
    seen: set[str] = set()
    kept: list[tuple[str, Chem.Mol]] = []
    for raw in rows:
        report.n_rows += 1
        if not isinstance(raw, str) or not raw.strip():
            report.skip("empty")
            continue
        text = raw.strip()
        if len(text) > _MAX_RAW_CHARS:
            report.skip("smiles_too_long")
            continue
        mol = mol_from_smiles(text)
        if mol is None or mol.GetNumAtoms() == 0:
            report.skip("invalid_smiles")
            continue
        if flt.single_fragment and len(Chem.GetMolFrags(mol)) != 1:
            report.skip("multiple_fragments")
            continue
        atoms = list(mol.GetAtoms())
        if any(a.GetAtomicNum() == 0 for a in atoms):
            report.skip("dummy_atoms")
            continue
        if flt.require_carbon and not any(a.GetAtomicNum() == 6 for a in atoms):
            report.skip("no_carbon")
            continue
        heavy = mol.GetNumHeavyAtoms()
        if heavy < flt.min_heavy_atoms:
            report.skip("too_few_heavy_atoms")
            continue
        if heavy > flt.max_heavy_atoms:
            report.skip("too_many_heavy_atoms")
            continue
        canonical = Chem.MolToSmiles(mol)
        if len(canonical) > flt.max_smiles_chars:
            report.skip("smiles_too_long")
            continue
        if canonical in seen:
            report.skip("duplicate")
            continue
        seen.add(canonical)
        kept.append((canonical, mol))
    report.n_kept = len(kept)
    return kept, report
