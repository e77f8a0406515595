"""``scripts/tune_arms.py`` scores a candidate on a tuning set only; ``--tuning-options`` gives that set generator
options (valid reactions at out-of-range coefficients), so a recipe can be tuned toward generalization without
touching a test split."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_a_tuning_set_at_out_of_range_coefficients(tmp_path, tiny_model):
    out = tmp_path / "tune"
    proc = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "tune_arms.py"), "--recipe", "quickstart_confirm", "--arm", "warm",
         "--warm", tiny_model, "--tuning-set", "valid:4", "--tuning-options", json.dumps({"coef_in": [6, 10]}),
         "--set", "max_completion_length=8", "--out", str(out)],
        capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    tasks = [json.loads(line) for line in (out / "try0" / "eval_tasks.jsonl").read_text().splitlines()]
    assert len(tasks) == 4 and all(t["meta"]["split"] == "valid" for t in tasks)
    assert all(6 <= t["meta"]["factor"] <= 10 and t["meta"]["corpus"] == "classic" for t in tasks)
    rows = json.loads((out / "tuning.json").read_text())
    assert list(rows[0]["scores"]) == ["valid"] and rows[0]["scores"]["valid"]["n"] == 4


@pytest.mark.parametrize("options, message", [
    ('{"coef_in": "x"}', "coef_in must be a pair"),
    ("[1]", "options must be a mapping"),
])
def test_bad_tuning_options_end_in_one_line(tmp_path, tiny_model, options, message):
    proc = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "tune_arms.py"), "--recipe", "quickstart_confirm", "--arm", "warm",
         "--warm", tiny_model, "--tuning-set", "valid:4", "--tuning-options", options, "--out", str(tmp_path / "t")],
        capture_output=True, text=True, timeout=300)
    assert proc.returncode != 0
    assert message in proc.stderr and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "t").exists()
