"""Worked solutions through the public entry points: `rlvr sample --with-solution` and dataset builders."""
from __future__ import annotations

import json

import rlvr
from rlvr.cli import main
from rlvr.datasets import build_dataset, task_from_row


def test_sample_with_solution_writes_verified_completions(tmp_path):
    out = tmp_path / "tasks.jsonl"
    assert main(["sample", "--family", "stoich.balance", "-n", "3", "--with-solution", "--style", "detailed",
                 "--out", str(out)]) == 0
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(records) == 3
    for record in records:
        assert [m["role"] for m in record["completion"]] == ["assistant"]
        assert rlvr.verify(record, record["completion"]).reward == 1.0
    assert main(["verify", "--tasks", str(out)]) == 0


def test_build_dataset_with_solution_has_conversational_columns():
    ds = build_dataset("stoich.t1:1,mol.index:1", n=4, split="train", seed=2, with_solution=True)
    assert {"prompt", "completion"} <= set(ds.column_names)
    for row in ds:
        assert row["completion"][0]["role"] == "assistant"
        assert rlvr.verify(task_from_row(row), row["completion"][0]["content"]).reward == 1.0
