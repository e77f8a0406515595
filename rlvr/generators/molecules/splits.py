"""Cluster-held-out molecule splits (MolecularIQ section 3.4): ``train``, ``easy`` (molecules from
clusters seen in train) and ``hard`` (molecules from held-out clusters).

Clustering (:mod:`rlvr.generators.molecules.clustering`): Morgan fingerprints (radius 2, 512 bits,
as the paper's ECFP(2, 512)) and a deterministic leader (sphere-exclusion) clustering at Tanimoto
0.7. Molecules are visited in the order of a seeded stable hash of their canonical SMILES; each
joins the most similar existing leader when that similarity is >= the threshold, otherwise it
becomes a new leader.

Split assignment is a property of a molecule's cluster: a cluster is held out (``hard``) when a
stable hash of its leader's canonical SMILES falls below ``hard_fraction``. In a seen cluster the
leader is always ``train`` (so every ``easy`` molecule has a train molecule of its own cluster);
other members go to ``easy`` with probability ``easy_fraction`` by a stable hash of their own
canonical SMILES. With ``purge_hard_leaks`` a hard molecule whose nearest train neighbour still
reaches the threshold (possible across clusters) is dropped from ``hard`` (split ``excluded``).

The result is cached on disk under ``rlvr.paths.cache_dir("molecules")``, keyed by a hash of the raw
pool rows, the filter and split parameters and the RDKit version.
"""
from __future__ import annotations

import gzip
import json
import logging
import os
import time
from dataclasses import asdict, dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any, Iterable, Sequence

import numpy as np
from rdkit import rdBase

from rlvr.chem.molecules.complexity import COMPLEXITY_BINS, bertz_ct, complexity_bin
from rlvr.chem.molecules.tables import FeatureTable, cached_table
from rlvr.generators.molecules.clustering import leader_clusters, nearest_neighbour_similarity, packed_fingerprints
from rlvr.generators.molecules.pools import (
    PoolFilter,
    default_pool_paths,
    default_pool_rows,
    filter_rows,
    read_rows,
    rows_from_dataset,
    rows_hash,
)
from rlvr.paths import cache_file
from rlvr.progress import progress
from rlvr.rng import stable_hash, unit_interval

log = logging.getLogger(__name__)

SPLITS: tuple[str, ...] = ("train", "easy", "hard")
_FORMAT_VERSION = 1


@dataclass(frozen=True)
class SplitParams:
    """Clustering and split parameters (defaults follow the paper where it states them)."""

    threshold: float = 0.7
    radius: int = 2
    n_bits: int = 512
    hard_fraction: float = 0.2
    easy_fraction: float = 0.5
    seed: int = 0
    purge_hard_leaks: bool = True


@dataclass(frozen=True, eq=False)
class SplitPool:
    """A filtered, clustered pool: parallel tuples indexed by molecule number."""

    smiles: tuple[str, ...]
    bertz: tuple[float, ...]
    split: tuple[str, ...]
    cluster: tuple[int, ...]
    cluster_keys: tuple[str, ...]
    report: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    def members(self, split: str, bin_name: str | None = None) -> tuple[int, ...]:
        """Indices of molecules in ``split`` (and complexity bin ``bin_name`` if given), ascending."""
        return self._groups.get((split, bin_name), ())

    def split_of(self, canonical_smiles: str) -> str | None:
        """The split of a canonical SMILES, or None if it is not in the pool."""
        idx = self._index.get(canonical_smiles)
        return None if idx is None else self.split[idx]

    def sizes(self) -> dict[str, int]:
        """Number of molecules per split (and ``excluded``)."""
        out: dict[str, int] = {}
        for s in self.split:
            out[s] = out.get(s, 0) + 1
        return out

    def bin_sizes(self, split: str) -> dict[str, int]:
        """Number of molecules of ``split`` per complexity bin."""
        return {name: len(self.members(split, name)) for name in COMPLEXITY_BINS}

    @property
    def key(self) -> str:
        return str(self.report.get("cache_key", ""))

    @cached_property
    def _groups(self) -> dict[tuple[str, str | None], tuple[int, ...]]:
        groups: dict[tuple[str, str | None], list[int]] = {}
        for i, (s, b) in enumerate(zip(self.split, self.bertz)):
            groups.setdefault((s, None), []).append(i)
            groups.setdefault((s, complexity_bin(b)), []).append(i)
        return {k: tuple(v) for k, v in groups.items()}

    @cached_property
    def _index(self) -> dict[str, int]:
        return {s: i for i, s in enumerate(self.smiles)}


# --------------------------------------------------------------------------- building

def _summary(values: np.ndarray, threshold: float) -> dict[str, float]:
    if len(values) == 0:
        return {"n": 0}
    return {
        "n": int(len(values)),
        "mean": round(float(values.mean()), 4),
        "median": round(float(np.median(values)), 4),
        "p05": round(float(np.quantile(values, 0.05)), 4),
        "p95": round(float(np.quantile(values, 0.95)), 4),
        "max": round(float(values.max()), 4),
        "frac_ge_threshold": round(float((values >= threshold).mean()), 4),
    }


def build_split_pool(
    rows: Iterable[Any],
    *,
    source: str = "rows",
    flt: PoolFilter = PoolFilter(),
    params: SplitParams = SplitParams(),
    cache_key: str = "",
) -> SplitPool:
    """Filter, cluster and split raw SMILES rows (no caching; see :func:`load_split_pool`)."""
    timings: dict[str, float] = {}
    t0 = time.perf_counter()
    kept, report = filter_rows(progress(rows, "molecule pool: parsing", unit="mol"), flt, source=source)
    timings["filter_s"] = time.perf_counter() - t0
    smiles = [s for s, _ in kept]
    mols = [m for _, m in kept]

    t = time.perf_counter()
    bertz = [round(bertz_ct(m), 3) for m in progress(mols, "molecule pool: complexity", unit="mol")]
    timings["bertz_s"] = time.perf_counter() - t

    t = time.perf_counter()
    fps = packed_fingerprints(mols, params.radius, params.n_bits) if mols else np.zeros((0, params.n_bits // 64), np.uint64)
    timings["fingerprints_s"] = time.perf_counter() - t

    t = time.perf_counter()
    order = sorted(range(len(smiles)), key=lambda i: stable_hash("pool-order", params.seed, smiles[i]))
    assign, leader_ids = leader_clusters(fps, order, params.threshold)
    timings["cluster_s"] = time.perf_counter() - t

    cluster_keys = [smiles[i] for i in leader_ids]
    held_out = [unit_interval("cluster-split", params.seed, key) < params.hard_fraction for key in cluster_keys]
    leader_set = set(leader_ids)
    split: list[str] = []
    for i, s in enumerate(smiles):
        c = int(assign[i])
        if held_out[c]:
            split.append("hard")
        elif i in leader_set or unit_interval("easy-split", params.seed, s) >= params.easy_fraction:
            split.append("train")
        else:
            split.append("easy")

    t = time.perf_counter()
    idx = {name: np.array([i for i, s in enumerate(split) if s == name], dtype=np.int64) for name in SPLITS}
    hard_nn = nearest_neighbour_similarity(fps[idx["hard"]], fps[idx["train"]])
    leaks = idx["hard"][hard_nn >= params.threshold]
    if params.purge_hard_leaks:
        for i in leaks:
            split[int(i)] = "excluded"
        keep = hard_nn < params.threshold
        hard_nn = hard_nn[keep]
    easy_nn = nearest_neighbour_similarity(fps[idx["easy"]], fps[idx["train"]])
    timings["nn_s"] = time.perf_counter() - t

    sizes_clusters = np.bincount(assign, minlength=len(leader_ids)) if len(assign) else np.zeros(0, int)
    sizes: dict[str, int] = {name: 0 for name in (*SPLITS, "excluded")}
    for s in split:
        sizes[s] += 1
    full = {
        "cache_key": cache_key,
        "source": source,
        "rdkit": rdBase.rdkitVersion,
        "filter": asdict(flt),
        "params": asdict(params),
        "pool": report.to_dict(),
        "n_molecules": len(smiles),
        "n_clusters": len(leader_ids),
        "n_singleton_clusters": int((sizes_clusters == 1).sum()),
        "largest_cluster": int(sizes_clusters.max()) if len(sizes_clusters) else 0,
        "sizes": sizes,
        "n_hard_leaks": int(len(leaks)),
        "hard_vs_train_nn": _summary(hard_nn, params.threshold),
        "easy_vs_train_nn": _summary(easy_nn, params.threshold),
        "bins": {
            name: {b: sum(1 for i, s in enumerate(split) if s == name and complexity_bin(bertz[i]) == b) for b in COMPLEXITY_BINS}
            for name in SPLITS
        },
        "timings_s": {k: round(v, 3) for k, v in timings.items()},
    }
    full["timings_s"]["total_s"] = round(time.perf_counter() - t0, 3)
    return SplitPool(
        smiles=tuple(smiles),
        bertz=tuple(bertz),
        split=tuple(split),
        cluster=tuple(int(c) for c in assign),
        cluster_keys=tuple(cluster_keys),
        report=full,
    )


def _cache_key(content: str, flt: PoolFilter, params: SplitParams) -> str:
    payload = json.dumps({"content": content, "filter": asdict(flt), "params": asdict(params),
                          "rdkit": rdBase.rdkitVersion, "format": _FORMAT_VERSION}, sort_keys=True)
    return format(stable_hash("mol-pool", payload), "016x")


def _save(pool: SplitPool, path: Path) -> None:
    data = {
        "smiles": pool.smiles, "bertz": pool.bertz, "split": pool.split, "cluster": pool.cluster,
        "cluster_keys": pool.cluster_keys, "report": pool.report,
    }
    tmp = path.with_name(path.name + f".{os.getpid()}.tmp")
    with gzip.open(tmp, "wt", encoding="utf-8") as fh:
        json.dump(data, fh)
    tmp.replace(path)


def _load(path: Path) -> SplitPool | None:
    try:
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            data = json.load(fh)
        return SplitPool(
            smiles=tuple(data["smiles"]), bertz=tuple(float(b) for b in data["bertz"]), split=tuple(data["split"]),
            cluster=tuple(int(c) for c in data["cluster"]), cluster_keys=tuple(data["cluster_keys"]),
            report=dict(data["report"]),
        )
    except (OSError, EOFError, ValueError, KeyError, TypeError):
        return None  # corrupt or stale cache: rebuild


def split_pool_from_rows(
    rows: Sequence[Any],
    *,
    source: str = "rows",
    flt: PoolFilter = PoolFilter(),
    params: SplitParams = SplitParams(),
    use_cache: bool = True,
) -> SplitPool:
    """Build (or load from the disk cache) the split pool of raw rows."""
    key = _cache_key(rows_hash(rows), flt, params)
    path = cache_file("molecules", f"pool-{key}.json.gz")
    if use_cache and path.exists():
        pool = _load(path)
        if pool is not None:
            return pool
    log.warning("building the %s molecule pool (once per machine) ...", source.split("(")[0])
    pool = build_split_pool(rows, source=source, flt=flt, params=params, cache_key=key)
    if use_cache:
        _save(pool, path)
    return pool


@lru_cache(maxsize=8)
def _load_file_pool(path: str, stamp: tuple[int, int], column: str | None, flt: PoolFilter, params: SplitParams) -> SplitPool:
    if path == "default":
        rows, source = default_pool_rows(), "default:rdkit(" + ",".join(p.name for p in default_pool_paths()) + ")"
    else:
        rows, source = read_rows(path, column), path
    return split_pool_from_rows(rows, source=source, flt=flt, params=params)


def _stamp(path: str) -> tuple[int, int]:
    paths = default_pool_paths() if path == "default" else [Path(path)]
    st = [p.stat() for p in paths]
    return (sum(s.st_mtime_ns for s in st), sum(s.st_size for s in st))


def load_split_pool(
    source: Any = None,
    *,
    column: str | None = None,
    flt: PoolFilter = PoolFilter(),
    params: SplitParams = SplitParams(),
) -> SplitPool:
    """The split pool of ``source``: None/``"default"`` (embedded pool), a file path, a
    ``datasets.Dataset``, or an iterable of SMILES strings. Cached in memory and on disk."""
    if source is None or source == "default":
        return _load_file_pool("default", _stamp("default"), None, flt, params)
    if isinstance(source, (str, os.PathLike)):
        path = str(Path(source).expanduser().resolve())
        return _load_file_pool(path, _stamp(path), column, flt, params)
    if hasattr(source, "column_names"):
        return split_pool_from_rows(rows_from_dataset(source, column), source="dataset", flt=flt, params=params)
    return split_pool_from_rows(list(source), source="iterable", flt=flt, params=params)


def pool_report(pool: SplitPool) -> dict[str, Any]:
    """Sizes, cluster statistics, nearest-neighbour similarity of hard/easy vs train and build timings."""
    return dict(pool.report)


@lru_cache(maxsize=8)
def pool_table(pool: SplitPool) -> FeatureTable | None:
    """The pool's precomputed feature table (:mod:`rlvr.chem.molecules.tables`) from the cache or the
    shipped copy, or None: tasks then compute each molecule's features as they draw it."""
    return cached_table(pool.smiles)

