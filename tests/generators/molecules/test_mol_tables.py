"""Molecular tasks read a pool's feature table (built by ``rlvr features build-table``) and come out
identical to tasks computed without one."""
from __future__ import annotations

import pytest

import rlvr
from rlvr.chem.molecules import features, tables
from rlvr.cli import main
from rlvr.generators.molecules import splits
from rlvr.generators.molecules.pools import default_pool_paths, read_rows


@pytest.fixture()
def pool_file(tmp_path, monkeypatch):
    monkeypatch.setenv("RLVR_CACHE", str(tmp_path / "cache"))
    nci, wehi = (read_rows(p) for p in default_pool_paths())
    path = tmp_path / "pool.smi"
    path.write_text("\n".join(list(nci[:60]) + list(wehi[:30]) + ["CCO", "not a smiles"]) + "\n")
    splits.pool_table.cache_clear()
    yield path
    splits.pool_table.cache_clear()


def _tasks(pool: str) -> list[dict]:
    out = []
    for family in ("mol.count", "mol.index", "mol.gen"):
        for load in (1, 3):
            out += [t.to_dict() for t in rlvr.sample(family, n=12, split="train", pool=pool, load=load)]
    out += [t.to_dict() for t in rlvr.sample("mol.count", n=8, pool=pool, convention="moleculariq", load=2)]
    return out


def test_tasks_with_and_without_the_table_are_identical(pool_file, capsys):
    features.clear_caches()
    without = _tasks(str(pool_file))
    assert splits.pool_table(splits.load_split_pool(str(pool_file))) is None
    assert main(["features", "build-table", "--pool", str(pool_file), "--num-proc", "2"]) == 0
    assert "(90 featurised)" in capsys.readouterr().out
    splits.pool_table.cache_clear()
    features.clear_caches()
    pool = splits.load_split_pool(str(pool_file))
    table = splits.pool_table(pool)
    assert table is not None and len(table) == len(pool.smiles)
    with_table = _tasks(str(pool_file))
    assert with_table == without
    assert features.cache_info()["core"]["misses"] == 0  # every record came from the table
    assert main(["features", "build-table", "--pool", str(pool_file)]) == 0
    assert capsys.readouterr().out.startswith("up to date")


def test_build_table_out_rule_and_mistakes(pool_file, tmp_path, capsys):
    out = tmp_path / "tables/"
    assert main(["features", "build-table", "--pool", str(pool_file), "--out", f"{out}/", "--num-proc", "1"]) == 0
    written = list(out.glob("table-*.parquet"))
    assert len(written) == 1 and tables.load_table(written[0]) is not None
    capsys.readouterr()
    for argv, message in (
        (["features", "build-table", "--pool", str(pool_file), "--out", f"{out}/"], "exists"),
        (["features", "build-table"], "needs --pool"),
        (["features", "build-table", "--pool", str(tmp_path / "missing.smi")], "no such file"),
        (["features", "--num-proc", "2"], "belongs to build-table"),
    ):
        assert main(argv) == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and message in err, err
