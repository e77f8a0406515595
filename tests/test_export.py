"""``rlvr export``: JSONL, parquet, datasets folder and verl layouts round-trip to the same tasks."""
from __future__ import annotations

import json

import pyarrow.parquet as pq
import pytest

import rlvr
from rlvr.cli import main
from rlvr.datasets import build_dataset
from rlvr.export import FORMATS, export_tasks, read_tasks

MIX = "stoich.t2:2,stoich.balance,mol.count@easy,mol.index"


@pytest.fixture(scope="module")
def reference():
    return [json.loads(t) for t in build_dataset(MIX, n=9, split="train", seed=5)["task_json"]]


@pytest.mark.parametrize("fmt", FORMATS)
def test_round_trip(fmt, tmp_path, reference):
    out = tmp_path / f"tasks.{fmt}"
    assert export_tasks(MIX, "train", 9, fmt, out, seed=5) == 9
    tasks = read_tasks(out, fmt)
    assert [json.loads(t.to_json()) for t in tasks] == reference
    for task in tasks[:4]:
        assert rlvr.verify(task, rlvr.oracle_completion(task)).correct
        assert json.loads(rlvr.regenerate(task).to_json()) == json.loads(task.to_json())


def test_verl_layout(tmp_path, reference):
    from rlvr.rewards.verl import compute_score

    out = tmp_path / "train.parquet"
    export_tasks(MIX, "train", 9, "verl", out, seed=5, start=0)
    table = pq.read_table(out)
    assert table.column_names == ["data_source", "prompt", "ability", "reward_model", "extra_info"]
    rows = table.to_pylist()
    for i, (row, record) in enumerate(zip(rows, reference)):
        assert row["data_source"] == record["family"]
        assert row["prompt"] == record["prompt"]
        assert row["reward_model"]["style"] == "rule"
        assert json.loads(row["reward_model"]["ground_truth"]) == record["ground_truth"]
        assert row["extra_info"]["index"] == i and row["extra_info"]["split"] == record["meta"]["split"]
        assert row["extra_info"]["id"] == record["id"]
        oracle = rlvr.oracle_completion(record)
        assert compute_score(row["data_source"], oracle, row["reward_model"]["ground_truth"], row["extra_info"])["score"] == 1.0
    assert isinstance(rows[0]["ability"], str) and rows[0]["ability"]


def test_cli_export_with_options(tmp_path, capsys):
    out = tmp_path / "mol.jsonl"
    assert main(["export", "--family", "mol.count:1,mol.index", "-n", "4", "--load", "2", "--format", "jsonl",
                 "--out", str(out), "--seed", "2"]) == 0
    assert json.loads(capsys.readouterr().out)["written"] == 4
    tasks = read_tasks(out)
    assert len(tasks) == 4 and all(len(t.ground_truth) == 2 for t in tasks)
    assert main(["export", "--family", "mol.count", "-n", "2", "--format", "hf", "--out", str(tmp_path / "ds")]) == 0
    from datasets import load_from_disk

    assert load_from_disk(str(tmp_path / "ds")).column_names == ["prompt", "task_json", "family", "id", "split"]
    assert main(["export", "--family", "mol.count", "-n", "2", "-o", "colour=red", "--out", str(tmp_path / "x.jsonl")]) == 2
    assert "unknown option" in capsys.readouterr().err
    with pytest.raises(ValueError, match="verl"):
        export_tasks("mol.count", "train", 1, "verl", tmp_path / "v.parquet", with_solution=True)
