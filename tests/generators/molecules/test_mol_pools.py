"""Molecule pools (filtering, file formats) and cluster-held-out splits."""
from __future__ import annotations

import json

import numpy as np
import pytest
from rdkit import Chem

from rlvr.chem.molecules.complexity import complexity_bin, parse_bin
from rlvr.generators.molecules.pools import (
    PoolError,
    PoolFilter,
    default_pool_paths,
    filter_rows,
    read_rows,
    rows_from_dataset,
)
from rlvr.generators.molecules.clustering import (
    leader_clusters,
    nearest_neighbour_similarity,
    packed_fingerprints,
    tanimoto_to_many,
)
from rlvr.generators.molecules.splits import SplitParams, build_split_pool, load_split_pool, split_pool_from_rows


def _small_rows(n_nci: int = 300, n_wehi: int = 120) -> list[str]:
    nci, wehi = (read_rows(p) for p in default_pool_paths())
    return list(nci[:n_nci]) + list(wehi[:n_wehi])


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    root = tmp_path_factory.mktemp("rlvr-cache")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("RLVR_CACHE", str(root))
        yield root


@pytest.fixture(scope="module")
def rows():
    return _small_rows()


@pytest.fixture(scope="module")
def pool(cache, rows):
    return split_pool_from_rows(rows, source="small")


def test_filter_counts_every_skip_reason():
    rows = ["CCO", "OCC", "C.C", "O=O", "CC", "C" * 51, "C" * 60, "CC(C)" * 20, "not a smiles", None, "",
            "CCCCCC", "C1=CC=CC=C1", "*CCCC"]
    kept, report = filter_rows(rows, PoolFilter(), source="t")
    smiles = [s for s, _ in kept]
    assert smiles == ["CCCCCC", "c1ccccc1"]
    assert report.n_rows == len(rows) and report.n_kept == 2
    # "CCO"/"OCC" have 3 heavy atoms; "C.C" is two fragments; "O=O" has no carbon
    assert report.skipped["too_few_heavy_atoms"] == 3  # CCO, OCC, CC
    assert report.skipped["multiple_fragments"] == 1
    assert report.skipped["no_carbon"] == 1
    assert report.skipped["too_many_heavy_atoms"] == 3
    assert report.skipped["invalid_smiles"] == 1
    assert report.skipped["empty"] == 2
    assert report.skipped["dummy_atoms"] == 1


def test_filter_dedupes_by_canonical_smiles_and_caps_length():
    kept, report = filter_rows(["CCCCO", "OCCCC", "C(CCC)O"])
    assert [s for s, _ in kept] == ["CCCCO"] and report.skipped == {"duplicate": 2}
    long = "C(Cl)(Cl)" * 16 + "Cl"  # 49 heavy atoms, but its canonical SMILES is >= 100 characters
    kept, report = filter_rows([long])
    assert not kept and report.skipped == {"smiles_too_long": 1}


def test_read_rows_formats(tmp_path):
    (tmp_path / "a.smi").write_text("SMILES name\nCCCCO mol1\n# comment\nc1ccccc1 mol2\n")
    assert read_rows(tmp_path / "a.smi") == ["CCCCO", "c1ccccc1"]
    (tmp_path / "b.csv").write_text("id,Smiles,x\n1,CCCCO,3\n2,c1ccccc1,4\n")
    assert read_rows(tmp_path / "b.csv") == ["CCCCO", "c1ccccc1"]
    (tmp_path / "c.csv").write_text('"CCCCO","id1"\n"c1ccccc1","id2"\n')  # no header (the WEHI file layout)
    assert read_rows(tmp_path / "c.csv") == ["CCCCO", "c1ccccc1"]
    (tmp_path / "d.tsv").write_text("name\tstructure\nx\tCCCCN\n")
    assert read_rows(tmp_path / "d.tsv", column="structure") == ["CCCCN"]
    (tmp_path / "e.jsonl").write_text(json.dumps({"smiles": "CCCCO"}) + "\n" + json.dumps({"smiles": None}) + "\n")
    assert read_rows(tmp_path / "e.jsonl") == ["CCCCO", None]
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"canonical_smiles": ["CCCCO", "CCCCC"], "y": [1, 2]}), tmp_path / "f.parquet")
    assert read_rows(tmp_path / "f.parquet") == ["CCCCO", "CCCCC"]
    with pytest.raises(PoolError):
        read_rows(tmp_path / "missing.smi")
    with pytest.raises(PoolError):
        read_rows(tmp_path / "b.csv", column="nope")
    (tmp_path / "g.xyz").write_text("x")
    with pytest.raises(PoolError):
        read_rows(tmp_path / "g.xyz")


def test_rows_from_dataset():
    import datasets

    ds = datasets.Dataset.from_dict({"SMILES": ["CCCCO", "bad"], "label": [0, 1]})
    assert rows_from_dataset(ds) == ["CCCCO", "bad"]
    with pytest.raises(PoolError):
        rows_from_dataset(datasets.Dataset.from_dict({"x": ["CCCCO"]}))


def test_tanimoto_matches_rdkit():
    from rdkit import DataStructs
    from rdkit.Chem import rdFingerprintGenerator

    smiles = ["CCCCCCO", "CCCCCCN", "c1ccccc1O", "c1ccccc1N", "CC(=O)Oc1ccccc1C(=O)O"]
    mols = [Chem.MolFromSmiles(s) for s in smiles]
    packed = packed_fingerprints(mols, 2, 512)
    gen = rdFingerprintGenerator.GetMorganGenerator(radius=2, fpSize=512)
    fps = [gen.GetFingerprint(m) for m in mols]
    for i in range(len(mols)):
        ours = tanimoto_to_many(packed[i], packed)
        ref = DataStructs.BulkTanimotoSimilarity(fps[i], fps)
        assert np.allclose(ours, ref)
    nn = nearest_neighbour_similarity(packed[:2], packed[2:])
    assert np.allclose(nn, [max(DataStructs.BulkTanimotoSimilarity(fps[i], fps[2:])) for i in range(2)])


def test_leader_clustering_threshold_and_order():
    mols = [Chem.MolFromSmiles(s) for s in ["CCCCCCCCO", "CCCCCCCCCO", "c1ccccc1", "c1ccncc1", "CCCCCCCCCCO"]]
    fps = packed_fingerprints(mols)
    assign, leaders = leader_clusters(fps, range(len(mols)), 0.7)
    assert leaders[0] == 0 and assign[0] == 0
    for i, c in enumerate(assign):  # every member is within the threshold of its leader
        assert tanimoto_to_many(fps[i], fps[[leaders[c]]])[0] >= 0.7 or leaders[c] == i
    assert assign[1] == assign[0]  # the two long alcohols cluster
    assert assign[2] != assign[0]


def test_splits_are_disjoint_complete_and_cluster_consistent(pool):
    sizes = pool.sizes()
    assert sizes.get("train", 0) > sizes.get("hard", 0) > 0 and sizes.get("easy", 0) > 0
    assert sum(sizes.values()) == len(pool.smiles) == len(set(pool.smiles))
    by_split = {s: {pool.smiles[i] for i in pool.members(s)} for s in ("train", "easy", "hard")}
    assert not (by_split["train"] & by_split["easy"]) and not (by_split["train"] & by_split["hard"])
    assert not (by_split["easy"] & by_split["hard"])
    clusters = {s: {pool.cluster[i] for i in pool.members(s)} for s in ("train", "easy", "hard")}
    assert clusters["easy"] <= clusters["train"]  # easy molecules come from clusters seen in train
    assert not (clusters["hard"] & clusters["train"])  # hard clusters are held out
    for i in pool.members("easy"):
        assert pool.split[pool.smiles.index(pool.cluster_keys[pool.cluster[i]])] == "train"  # leader in train


def test_hard_is_dissimilar_to_train(pool):
    report = pool.report
    assert report["hard_vs_train_nn"]["max"] < 0.7
    assert report["hard_vs_train_nn"]["frac_ge_threshold"] == 0.0
    assert report["easy_vs_train_nn"]["p05"] >= 0.7
    assert report["pool"]["n_rows"] == 420 and report["n_molecules"] == report["pool"]["n_kept"]
    for key in ("n_clusters", "timings_s", "bins", "sizes"):
        assert key in report


def test_split_membership_is_deterministic_and_seeded(cache, rows, pool):
    again = build_split_pool(rows, source="small")
    assert again.smiles == pool.smiles and again.split == pool.split and again.cluster == pool.cluster
    other = build_split_pool(rows, source="small", params=SplitParams(seed=1))
    assert other.split != pool.split
    assert set(other.smiles) == set(pool.smiles)


def test_disk_cache_roundtrip(cache, rows, pool):
    files = list((cache / "molecules").glob("pool-*.json.gz"))
    assert files
    loaded = split_pool_from_rows(rows, source="small")
    assert loaded.smiles == pool.smiles and loaded.split == pool.split and loaded.bertz == pool.bertz
    assert loaded.report["cache_key"] == pool.report["cache_key"]
    # a corrupt cache file is rebuilt, not trusted
    for f in files:
        f.write_bytes(b"garbage")
    rebuilt = split_pool_from_rows(rows, source="small")
    assert rebuilt.split == pool.split


def test_load_split_pool_from_file_and_dataset(cache, tmp_path, rows):
    path = tmp_path / "pool.smi"
    path.write_text("\n".join(r for r in rows if isinstance(r, str)) + "\nnot_smiles\n")
    pool = load_split_pool(str(path))
    assert pool.report["pool"]["skipped"].get("invalid_smiles", 0) >= 1
    assert load_split_pool(str(path)) is pool  # in-memory cache
    import datasets

    ds = datasets.Dataset.from_dict({"smiles": ["CCCCCO", "CCCCCCN", "c1ccccc1CC", "junk"]})
    small = load_split_pool(ds)
    assert small.report["pool"]["n_kept"] == 3 and small.report["pool"]["skipped"] == {"invalid_smiles": 1}


def test_complexity_bins(pool):
    assert complexity_bin(0) == "0-250" and complexity_bin(250) == "250-1000" and complexity_bin(5000) == "1000-inf"
    assert parse_bin("[250,1000)") == "250-1000" and parse_bin("any") is None and parse_bin("balanced") == "balanced"
    with pytest.raises(ValueError):
        parse_bin("huge")
    for b in ("0-250", "250-1000", "1000-inf"):
        assert all(complexity_bin(pool.bertz[i]) == b for i in pool.members("train", b))
    assert sum(len(pool.members("train", b)) for b in ("0-250", "250-1000", "1000-inf")) == len(pool.members("train"))
