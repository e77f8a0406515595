"""The embedded default pool (RDKit wheel data): filtering, cluster split, and the documented CLI run.

Builds the full ~14.7k-molecule split once in a temporary cache (about 10 s on one core).
"""
from __future__ import annotations

import json

import pytest

from rlvr.cli import main
from rlvr.generators.molecules.splits import load_split_pool, pool_report


@pytest.fixture(scope="module")
def default_pool(tmp_path_factory):
    root = tmp_path_factory.mktemp("default-pool")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("RLVR_CACHE", str(root))
        yield load_split_pool()


@pytest.mark.slow
def test_default_pool_sizes_and_held_out_clusters(default_pool):
    report = pool_report(default_pool)
    assert report["pool"]["n_rows"] == 14999
    assert 14000 < report["n_molecules"] < 14999
    sizes = report["sizes"]
    assert sizes["train"] > 10000 and sizes["hard"] > 2000 and sizes["easy"] > 100
    assert sum(sizes.values()) == report["n_molecules"]
    assert report["hard_vs_train_nn"]["max"] < 0.7 <= report["easy_vs_train_nn"]["p05"]
    assert all(report["bins"]["hard"][b] > 50 for b in ("0-250", "250-1000", "1000-inf"))
    seen: dict[str, str] = {}
    for smiles, split in zip(default_pool.smiles, default_pool.split):
        assert seen.setdefault(smiles, split) == split


@pytest.mark.slow
def test_documented_cli_run(default_pool, tmp_path, capsys):
    out = tmp_path / "tasks.jsonl"
    assert main(["sample", "--family", "mol.index", "--split", "hard", "--load", "3", "-n", "500", "--out", str(out)]) == 0
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(records) == 500 and all(r["meta"]["pool_split"] == "hard" and r["meta"]["load"] == 3 for r in records)
    assert main(["verify", "--tasks", str(out), "--oracle"]) == 0
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert summary == {"n": 500, "mean_reward": 1.0, "accuracy": 1.0, "reasons": {"ok": 500}}
