"""``rlvr export --num-proc N`` writes the same bytes as one process, in every format."""
from __future__ import annotations

import json

import pytest

from rlvr.cli import main
from rlvr.export import FORMATS, export_tasks, read_tasks

MIX = "stoich.t1:2,stoich.balance,mol.count"


def _tree(path) -> dict[str, bytes]:
    if path.is_file():
        return {path.name: path.read_bytes()}
    return {p.relative_to(path).as_posix(): p.read_bytes() for p in sorted(path.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("fmt", FORMATS)
def test_num_proc_output_is_byte_identical(tmp_path, capsys, fmt):
    outputs = []
    for procs in ("1", "3"):
        out = tmp_path / f"p{procs}"
        argv = ["export", "--family", MIX, "-n", "90", "--start", "7", "--seed", "3", "--format", fmt,
                "--out", f"{out}/", "--num-proc", procs]
        assert main(argv) == 0
        summary = json.loads(capsys.readouterr().out)
        assert summary["written"] == 90
        outputs.append(_tree(out))
    assert outputs[0] == outputs[1] and outputs[0]


def test_parallel_rows_keep_their_indices(tmp_path):
    out = tmp_path / "v.parquet"
    export_tasks(MIX, "train", 70, "verl", out, start=5, num_proc=2)
    serial = tmp_path / "s.jsonl"
    export_tasks(MIX, "train", 70, "jsonl", serial, start=5)
    assert [t.id for t in read_tasks(out, "verl")] == [t.id for t in read_tasks(serial)]
