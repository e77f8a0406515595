"""Precomputed feature tables: rows equal fresh computation, keys guard against stale solvers and
other pools, shards assemble into the same table, and the shipped table of the embedded pool is current."""
from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from rdkit import Chem

from rlvr.chem.molecules import feature_tiers, features, tables
from rlvr.chem.molecules.solvers import compute_record
from rlvr.generators.molecules.presentation import present
from rlvr.generators.molecules.splits import load_split_pool
from rlvr.paths import SHIPPED_CACHE

#: pool-like SMILES: rings, stereo, charges, isotopes, a long chain, and one the features reject
SAMPLE = [
    "CC(=O)Oc1ccccc1C(=O)O", "C[C@H](N)C(=O)O", "C/C=C/C(=O)OCC", "O=C([O-])c1ccc[n+](C)c1", "[2H]C([2H])c1ccccc1",
    "CCCCCCCCCCCCCCCCCC(=O)O", "C1CC2(C1)CCC1(CC2)OCCO1", "Cn1cnc2c1c(=O)n(C)c(=O)n2C", "ClC(Cl)(Cl)C(O)O",
    "c1ccc2c(c1)ccc1ccccc12", "N#CC1=CC=CC(C=O)=C1", "CS(=O)(=O)N1CCC(CC1)C(=O)N", "C*C",
]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    path = tmp_path_factory.mktemp("tables") / "sample.parquet"
    tables.build_table(SAMPLE, path, num_proc=1, show=False)
    return tables.load_table(path, SAMPLE)


def test_rows_equal_a_fresh_computation(built):
    features.clear_caches()
    for smiles in SAMPLE[:-1]:
        canonical, to_written = built.written(smiles)
        mol = Chem.MolFromSmiles(canonical)
        fresh = compute_record(mol)
        record = built.record(canonical)
        assert record is not None, smiles
        values = dict(record.values)
        assert values.pop(tables.BRICS_KEY) == feature_tiers.brics_count(canonical)[0]
        assert values == fresh.values and record.n_atoms == fresh.n_atoms, smiles
        assert {k: v for k, v in record.bounded.items() if k != "brics_decomposition"} == fresh.bounded
        written = feature_tiers.written_form(smiles)
        assert (canonical, to_written) == (written.canonical, written.to_written)
    assert built.written("C*C") is None and built.record("C*C") is None
    error = built.table.column("error").to_pylist()
    assert error[:-1] == [None] * (len(SAMPLE) - 1) and "dummy" in error[-1]


@pytest.mark.parametrize("convention", ["rlvr", "moleculariq"])
def test_features_read_from_a_table_are_the_computed_ones(built, convention):
    import random

    rng = random.Random(3)
    for smiles in SAMPLE[:-1]:
        for shown in (smiles, present(smiles, rng, p_randomized=1.0, p_kekulized=0.5)[0]):
            features.clear_caches()
            plain = features.molecule_features(shown, convention=convention)
            features.clear_caches()
            read = features.molecule_features(shown, convention=convention, table=built)
            assert read == plain, shown
    features.clear_caches()
    features.molecule_features(SAMPLE[0], table=built)
    assert features.cache_info()["core"]["misses"] == 0  # read from the table, not computed
    with pytest.raises(features.FeatureError):
        features.molecule_features("C*C", table=built)


def test_parallel_build_and_assembled_shards_give_the_same_rows(built, tmp_path):
    parallel = tables.build_table(SAMPLE * 1, tmp_path / "parallel.parquet", num_proc=2, show=False)
    shard_dir = tmp_path / "shards"
    shard_dir.mkdir()
    # out of order, as a cluster writes them; one shard from a dict batch, one from an Arrow batch
    pq.write_table(pa.Table.from_pydict(tables.feature_rows({"smiles": SAMPLE[7:]})), shard_dir / "part-0.parquet")
    pq.write_table(tables.feature_rows(pa.table({"smiles": SAMPLE[:7]})), shard_dir / "part-1.parquet")
    assembled = tables.assemble_table(shard_dir, SAMPLE, tmp_path / "assembled.parquet")
    expected = built.table.to_pylist()
    assert pq.read_table(parallel).to_pylist() == expected
    assert pq.read_table(assembled).to_pylist() == expected
    with pytest.raises(tables.TableError, match="no row"):
        tables.assemble_table(shard_dir, SAMPLE + ["CCCCCC"], tmp_path / "missing.parquet")


def test_a_table_is_read_only_for_its_pool_and_solvers(built, tmp_path):
    with pytest.raises(tables.TableError, match="another pool"):
        tables.load_table(built.path, SAMPLE[:-1])
    meta = tables.read_metadata(built.path)
    stale = built.table.replace_schema_metadata({b"rlvr.table": json.dumps({**meta, "solver_fingerprint": "0"}).encode()})
    pq.write_table(stale, tmp_path / "stale.parquet")
    with pytest.raises(tables.TableError, match="other feature solvers"):
        tables.load_table(tmp_path / "stale.parquet")
    with pytest.raises(tables.TableError, match="do not match"):
        tables.write_table(built.table, SAMPLE[::-1], tmp_path / "wrong.parquet")
    assert not (tmp_path / "wrong.parquet").exists()


def test_the_shipped_table_of_the_embedded_pool_is_current(tmp_path, monkeypatch):
    """Fails after a solver change until ``python scripts/build_shipped_cache.py`` rebuilds it."""
    monkeypatch.setenv("RLVR_CACHE", str(tmp_path))
    pool = load_split_pool()
    shipped = SHIPPED_CACHE / "molecules" / f"table-{tables.table_key(pool.smiles)}.parquet"
    assert shipped.is_file(), "the shipped feature table is stale; run python scripts/build_shipped_cache.py"
    assert tables.read_metadata(shipped)["n"] == len(pool.smiles)
    table = tables.cached_table(pool.smiles)
    assert table is not None and len(table) == len(pool.smiles)
    smiles = pool.smiles[len(pool.smiles) // 2]
    features.clear_caches()
    assert features.molecule_features(smiles, table=table) == features.molecule_features(smiles)
    stale = [p.name for p in (SHIPPED_CACHE / "molecules").glob("table-*.parquet") if p != shipped]
    assert stale == [], f"stale shipped tables: {stale}"
