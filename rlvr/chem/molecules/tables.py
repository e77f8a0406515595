"""Precomputed feature tables: every core-tier value of every molecule of a pool, computed once per
pool and solver version, stored as one parquet file.

A task generator that draws a pool molecule would otherwise compute all ~350 features of it
(several milliseconds); with the pool's table it reads one row instead. A row holds exactly what
:func:`rlvr.chem.molecules.features.molecule_features` derives from a SMILES before choosing keys:
how the SMILES as written maps to its canonical form (``canonical``, ``to_written``), and the
:class:`~rlvr.chem.molecules.solvers.Record` of the molecule the values are computed on
(``source``, ``n_atoms``, ``values``, ``bounded``). ``values`` is a JSON array in the order of the
file's ``value_keys`` metadata (null where the record has no value) and also carries the BRICS
leaf count. Values therefore come out identical with and without a table.

A table is keyed by the pool's content (a hash of its canonical SMILES, in order) and the solver
fingerprint (a hash of the solver modules' source and the RDKit version): a table built by other
solvers or for another pool is never read. Tables live under ``rlvr.paths.cache_dir("molecules")``
(``table-<key>.parquet``); the embedded pool's table ships with the package.

Building runs :func:`table_row` over the pool in parallel (``multiprocessing``, one process per
core by default) with a progress bar. For millions of molecules, :func:`feature_rows` is a batch
function for ``datasets.Dataset.map(batched=True, num_proc=...)`` or Ray Data's ``map_batches``;
:func:`assemble_table` turns the resulting parquet shards into a table (``docs/scale.md``).
"""
from __future__ import annotations

import hashlib
import json
import multiprocessing
import os
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any, Iterable, Iterator, Sequence

import pyarrow as pa
import pyarrow.parquet as pq
from rdkit import Chem, rdBase

import rlvr.chem.molecules as chem_molecules
from rlvr.chem.molecules import feature_tiers, features
from rlvr.chem.molecules.solvers import Record, compute_record
from rlvr.chem.molecules.specs import ORDERED_KEYS
from rlvr.chem.smiles import SmilesError
from rlvr.files import atomic_path
from rlvr.paths import cache_file
from rlvr.progress import progress
from rlvr.rng import stable_hash

#: storage format of a table (part of its key)
TABLE_VERSION = 2
#: modules of :mod:`rlvr.chem.molecules` that compute no stored value (left out of the solver fingerprint):
#: counts.py recomputes some values key by key for verdicts, checked equal to the solvers' by its tests;
#: the ``moleculariq`` convention's modules are computed on the SMILES as written, never read from a table
NON_SOLVER_MODULES = frozenset({"tables.py", "counts.py", "moleculariq.py", "moleculariq_data.py",
                                "moleculariq_substituents.py"})
#: value key of the BRICS leaf count a row carries beside the core record
BRICS_KEY = "brics_decomposition_count"
#: the order of a row's ``values`` array: every feature key (null where a record has no value)
VALUE_KEYS: tuple[str, ...] = tuple(ORDERED_KEYS)
_BRICS_BOUND = "brics_decomposition"
#: rows per parquet row group (and per write while building)
_BATCH = 10_000

SCHEMA = pa.schema([
    ("smiles", pa.string()),
    ("canonical", pa.string()),
    ("to_written", pa.list_(pa.int32())),
    ("source", pa.string()),
    ("n_atoms", pa.int32()),
    ("values", pa.string()),
    ("bounded", pa.string()),
    ("error", pa.string()),
])


class TableError(ValueError):
    """A feature table cannot be built or read (wrong pool, stale solvers, missing rows)."""


@lru_cache(maxsize=1)
def solver_fingerprint() -> str:
    """A hash of the feature solvers' source (the modules of :mod:`rlvr.chem.molecules`) and the
    RDKit version: statistics and tables computed by other solvers are never reused."""
    parts = [rdBase.rdkitVersion]
    for path in sorted(Path(chem_molecules.__file__).parent.glob("*.py")):
        if path.name not in NON_SOLVER_MODULES:
            parts.append(path.name + ":" + hashlib.blake2b(path.read_bytes(), digest_size=8).hexdigest())
    return format(stable_hash(*parts), "016x")


def pool_hash(smiles: Iterable[str]) -> str:
    """A content hash of a pool's canonical SMILES, in order."""
    h = hashlib.blake2b(digest_size=16)
    for s in smiles:
        h.update(s.encode("utf-8"))
        h.update(b"\n")
    return h.hexdigest()


def table_key(smiles: Sequence[str]) -> str:
    """The key of a pool's table: pool content, solver fingerprint and storage format."""
    return format(stable_hash("mol-table", TABLE_VERSION, pool_hash(smiles), solver_fingerprint()), "016x")


def cache_path(smiles: Sequence[str]) -> Path:
    """Where the table of a pool lives in the cache (seeded from the shipped copy when there is one)."""
    return cache_file("molecules", f"table-{table_key(smiles)}.parquet")


# --------------------------------------------------------------------------- computing rows

def _encode(values: dict[str, Any]) -> str:
    """A record's values as one JSON array in :data:`VALUE_KEYS` order (absent keys null)."""
    unknown = set(values) - set(VALUE_KEYS)
    if unknown or any(v is None for v in values.values()):
        raise TableError(f"a record has keys a table cannot store: {sorted(unknown) or 'null values'}")
    return json.dumps([values.get(k) for k in VALUE_KEYS], separators=(",", ":"))


def table_row(smiles: str) -> dict[str, Any]:
    """The table row of one pool SMILES, computed by the same steps as ``molecule_features``.

    A SMILES the features reject gets a row with ``error`` set and no values (its tasks compute
    and raise as without a table).
    """
    row: dict[str, Any] = {"smiles": smiles, "canonical": None, "to_written": None, "source": None,
                           "n_atoms": None, "values": None, "bounded": None, "error": None}
    try:
        written = feature_tiers.written_form(smiles)
        source, _mapping, record = feature_tiers.source_record(  # as in molecule_features
            smiles, lambda s: compute_record(Chem.Mol(feature_tiers.parsed(s))), written)
        brics, reason = feature_tiers.brics_count(source)
    except (feature_tiers.FeatureError, SmilesError, ValueError) as exc:
        row["error"] = str(exc) or type(exc).__name__
        return row
    values = dict(record.values)
    values[BRICS_KEY] = brics
    bounded = dict(record.bounded)
    if reason:
        bounded[_BRICS_BOUND] = reason
    row.update(canonical=written.canonical, to_written=list(written.to_written), source=source,
               n_atoms=record.n_atoms, values=_encode(values), bounded=json.dumps(bounded))
    return row


def _row_quiet(smiles: str) -> dict[str, Any]:
    row = table_row(smiles)
    features.clear_caches()  # a worker sees each molecule once: keep its memory flat
    return row


def feature_rows(batch: Any) -> Any:
    """A batch function for ``datasets.Dataset.map(batched=True)`` and Ray Data's ``map_batches``:
    a batch with a ``smiles`` column in, the table's columns out (one row per SMILES). A dict of
    lists gives a dict of lists (``datasets``), a ``pyarrow.Table`` a table of :data:`SCHEMA`
    (Ray Data with ``batch_format="pyarrow"``)."""
    if isinstance(batch, pa.Table):
        return pa.Table.from_pylist([_row_quiet(str(s)) for s in batch.column("smiles").to_pylist()], schema=SCHEMA)
    rows = [_row_quiet(str(s)) for s in batch["smiles"]]
    return {name: [r[name] for r in rows] for name in SCHEMA.names}


def iter_rows(smiles: Sequence[str], *, num_proc: int | None = None, show: bool | None = None,
              chunksize: int = 32) -> Iterator[dict[str, Any]]:
    """Table rows of ``smiles`` in order, over ``num_proc`` processes (default: every core) with a progress bar."""
    n_proc = max(1, int(num_proc or os.cpu_count() or 1))
    n_proc = min(n_proc, max(1, len(smiles) // chunksize))
    if n_proc == 1:
        yield from (_row_quiet(s) for s in progress(smiles, "feature table", unit="mol", show=show))
        return
    with multiprocessing.get_context().Pool(n_proc) as workers:
        rows = workers.imap(_row_quiet, smiles, chunksize=chunksize)
        yield from progress(rows, "feature table", total=len(smiles), unit="mol", show=show)


# --------------------------------------------------------------------------- writing

def _metadata(smiles: Sequence[str]) -> dict[bytes, bytes]:
    return {b"rlvr.table": json.dumps({
        "version": TABLE_VERSION, "pool_hash": pool_hash(smiles), "solver_fingerprint": solver_fingerprint(),
        "rdkit": rdBase.rdkitVersion, "n": len(smiles), "value_keys": list(VALUE_KEYS),
    }).encode()}


def _batches(rows: Iterable[dict[str, Any]], size: int) -> Iterator[pa.RecordBatch]:
    batch: list[dict[str, Any]] = []
    for row in rows:
        batch.append(row)
        if len(batch) >= size:
            yield pa.RecordBatch.from_pylist(batch, schema=SCHEMA)
            batch = []
    if batch:
        yield pa.RecordBatch.from_pylist(batch, schema=SCHEMA)


def write_rows(batches: Iterable[pa.RecordBatch | pa.Table], smiles: Sequence[str],
               path: str | os.PathLike[str]) -> Path:
    """Write row batches (:data:`SCHEMA`, in pool order) as the table of ``smiles``, atomically and
    streaming (one row group per batch); raises :class:`TableError` when the rows are not the pool's."""
    schema = SCHEMA.with_metadata(_metadata(smiles))
    target = Path(path)
    done = 0
    with atomic_path(target) as tmp:
        with pq.ParquetWriter(tmp, schema, compression="zstd", compression_level=12) as writer:
            for batch in batches:
                batch = batch.select(SCHEMA.names).cast(SCHEMA)
                names = batch.column("smiles").to_pylist()
                if names != list(smiles[done:done + len(names)]):
                    raise TableError("the rows do not match the pool's SMILES (order or content)")
                writer.write(pa.Table.from_batches([batch]) if isinstance(batch, pa.RecordBatch) else batch)
                done += len(names)
        if done != len(smiles):
            raise TableError(f"{done} rows for a pool of {len(smiles)} molecules")
    return target


def write_table(table: pa.Table, smiles: Sequence[str], path: str | os.PathLike[str]) -> Path:
    """Write the rows of ``smiles`` (a table of :data:`SCHEMA`, in pool order) to ``path`` atomically."""
    return write_rows(table.to_batches(max_chunksize=_BATCH), smiles, path)


def build_table(smiles: Sequence[str], path: str | os.PathLike[str] | None = None, *,
                num_proc: int | None = None, show: bool | None = None) -> Path:
    """Compute and write the table of a pool (``path`` default: the cache, where generators look).

    Rows stream to disk in row groups of :data:`_BATCH`, so memory stays flat for any pool size."""
    smiles = list(smiles)
    rows = iter_rows(smiles, num_proc=num_proc, show=show)
    return write_rows(_batches(rows, _BATCH), smiles, path if path is not None else cache_path(smiles))


def assemble_table(shards: str | os.PathLike[str] | Sequence[str], smiles: Sequence[str],
                   path: str | os.PathLike[str] | None = None) -> Path:
    """A table from row shards computed elsewhere (parquet files or a folder of them, written by
    ``datasets`` or Ray Data with :func:`feature_rows`), checked against and ordered as the pool."""
    smiles = list(smiles)
    sources = [os.fspath(shards)] if isinstance(shards, (str, os.PathLike)) else [os.fspath(s) for s in shards]
    parts = [pq.read_table(s, columns=SCHEMA.names) for s in sources]
    rows = pa.concat_tables([p.select(SCHEMA.names).cast(SCHEMA) for p in parts])
    names = rows.column("smiles").to_pylist()
    first: dict[str, int] = {}
    for i, s in enumerate(names):
        first.setdefault(s, i)
    missing = [s for s in smiles if s not in first]
    if missing:
        raise TableError(f"{len(missing)} of the pool's {len(smiles)} molecules have no row, e.g. {missing[0]!r}")
    ordered = rows.take(pa.array([first[s] for s in smiles], type=pa.int64()))
    return write_table(ordered, smiles, path if path is not None else cache_path(smiles))


# --------------------------------------------------------------------------- reading

@dataclass(frozen=True, eq=False)
class FeatureTable:
    """A loaded table: rows by pool SMILES (how it is written) and by source SMILES (its record)."""

    path: Path
    table: pa.Table
    by_smiles: dict[str, int]
    by_source: dict[str, int]
    keys: tuple[str, ...]

    def __len__(self) -> int:
        return self.table.num_rows

    @cached_property
    def _columns(self) -> dict[str, pa.Array]:
        return {name: self.table.column(name).combine_chunks() for name in self.table.column_names}

    def written(self, smiles: str) -> tuple[str, tuple[int, ...]] | None:
        """``(canonical SMILES, canonical position -> written index)`` of a pool SMILES, or None."""
        i = self.by_smiles.get(smiles)
        if i is None:
            return None
        canonical = self._columns["canonical"][i].as_py()
        if canonical is None:
            return None
        return canonical, tuple(self._columns["to_written"][i].as_py())

    def record(self, source: str) -> Record | None:
        """The record (core values plus the BRICS leaf count) computed on ``source``, or None."""
        i = self.by_source.get(source)
        if i is None:
            return None
        columns = self._columns
        row = json.loads(columns["values"][i].as_py())
        values = {k: (tuple(v) if type(v) is list else v) for k, v in zip(self.keys, row) if v is not None}
        return Record(values, json.loads(columns["bounded"][i].as_py()), columns["n_atoms"][i].as_py())


def read_metadata(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The key fields a table file was written with (version, pool hash, solver fingerprint, size)."""
    meta = pq.read_schema(path).metadata or {}
    raw = meta.get(b"rlvr.table")
    if raw is None:
        raise TableError(f"{path} is not an rlvr feature table")
    return json.loads(raw)


def load_table(path: str | os.PathLike[str], smiles: Sequence[str] | None = None) -> FeatureTable:
    """Read a table, checking that it was written by the current solvers (and for ``smiles``'s pool)."""
    path = Path(path)
    meta = read_metadata(path)
    if meta.get("version") != TABLE_VERSION or meta.get("solver_fingerprint") != solver_fingerprint():
        raise TableError(f"{path} was built by other feature solvers; build it again")
    if smiles is not None and meta.get("pool_hash") != pool_hash(smiles):
        raise TableError(f"{path} was built for another pool")
    table = pq.read_table(path)
    names = table.column("smiles").to_pylist()
    sources = table.column("source").to_pylist()
    return FeatureTable(path, table, {s: i for i, s in enumerate(names)},
                        {s: i for i, s in enumerate(sources) if s is not None}, tuple(meta["value_keys"]))


def cached_table(smiles: Sequence[str]) -> FeatureTable | None:
    """The pool's table from the cache (or the shipped copy), or None when there is none or it is unreadable."""
    path = cache_path(smiles)
    if not path.exists():
        return None
    try:
        return load_table(path, smiles)
    except (OSError, TableError, pa.ArrowException, ValueError):
        return None
