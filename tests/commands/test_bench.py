"""``rlvr bench``: a tiny run end to end (fresh processes, a real reward server) and its user errors."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from rlvr.cli import main

TINY = ["--quick", "-n", "5", "--duration", "0.5", "--families", "stoich.t1,mol.count", "--workers", "2",
        "--clients", "1", "--batch", "8", "--group", "2"]


def test_a_tiny_run_measures_every_case_and_both_worker_counts(tmp_path, capsys):
    out = tmp_path / "bench.json"
    assert main(["bench", *TINY, "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    result = json.loads(out.read_text())
    cases = [row["case"] for row in result["families"]]
    assert cases == ["stoich.t1 formula", "stoich.t1 smiles", "mol.count"]
    for row in result["families"]:
        assert row["n"] == 5 and row["oracle_below_1"] == 0, row
        assert min(row["tasks_per_s"], row["first_per_s"], row["again_per_s"]) > 0, row
        assert (row["parse_floor_per_s"] is None) == (row["case"] == "stoich.t1 formula"), row
        assert row["case"] in printed
    assert [row["workers"] for row in result["server"]] == [1, 2]
    assert all(row["requests"] > 0 and row["completions_per_s"] > 0 for row in result["server"])
    size = result["sizing"]
    assert size["completions_per_s"] == max(row["completions_per_s"] for row in result["server"])
    assert f"enough for a trainer producing {size['rollouts_per_s']:,.0f} rollouts/s" in printed
    assert result["settings"]["n"] == 5 and result["machine"]["cpus"] >= 1


@pytest.mark.parametrize("argv, message", [
    (["--families", "no.such"], "unknown families ['no.such']"),
    (["--duration", "0"], "--duration must be positive"),
    (["-n", "0"], "must be"),
])
def test_mistakes_end_in_one_line(argv, message):
    proc = subprocess.run([sys.executable, "-m", "rlvr.cli", "bench", "--no-server", *argv], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 2 and message in proc.stderr and "Traceback" not in proc.stderr, proc.stderr


def test_an_existing_json_file_is_kept_without_overwrite(tmp_path, capsys):
    out = tmp_path / "mine.json"
    out.write_text("keep me")
    assert main(["bench", "--no-server", "-n", "2", "--families", "mol.count", "--json", str(out)]) == 2
    assert out.read_text() == "keep me" and "--overwrite" in capsys.readouterr().err
    assert main(["bench", "--no-server", "-n", "2", "--families", "mol.count", "--json", str(out),
                 "--overwrite"]) == 0
    assert json.loads(out.read_text())["server"] == []
