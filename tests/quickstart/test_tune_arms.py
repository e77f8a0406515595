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


def _tune(tiny_model, out, *extra):
    """``tune_arms.py --arm warm`` on 4 valid tasks of the confirmatory recipe, scoring ``tiny_model``."""
    return subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "tune_arms.py"), "--recipe", "quickstart_confirm", "--arm", "warm",
         "--warm", tiny_model, "--tuning-set", "valid:4", "--set", "max_completion_length=8", "--out", str(out),
         *extra], capture_output=True, text=True, timeout=600)


def test_a_tuning_set_at_out_of_range_coefficients(tmp_path, tiny_model):
    out = tmp_path / "tune"
    proc = _tune(tiny_model, out, "--tuning-options", json.dumps({"coef_in": [6, 10]}))
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


def test_against_pairs_a_candidate_with_an_earlier_run(tmp_path, tiny_model):
    first = _tune(tiny_model, tmp_path / "a")
    assert first.returncode == 0, first.stderr[-2000:]
    # the reference's greedy answers, one flipped: the same model then differs from it on exactly that task
    log = tmp_path / "a" / "try0" / "eval_warm" / "verdicts.jsonl"
    records = [json.loads(line) for line in log.read_text().splitlines()]
    flipped = not records[0]["rollouts"][0]["correct"]
    records[0]["rollouts"][0]["correct"] = flipped
    log.write_text("".join(json.dumps(r) + "\n" for r in records))
    second = _tune(tiny_model, tmp_path / "b", "--against", str(tmp_path / "a" / "try0"))
    assert second.returncode == 0, second.stderr[-2000:]
    against = json.loads((tmp_path / "b" / "tuning.json").read_text())[0]["against"]
    assert against["n"] == 4
    assert (against["gained"], against["lost"]) == ((0, 1) if flipped else (1, 0))
    assert against["diff"] == pytest.approx(-0.25 if flipped else 0.25)
    assert against["se"] == pytest.approx(0.25) and against["beats"] is False and against["p_value"] == 1.0
    assert "paired SE, n 4" in second.stdout


def test_against_a_run_on_other_tasks_ends_in_one_line(tmp_path, tiny_model):
    first = _tune(tiny_model, tmp_path / "a")
    assert first.returncode == 0, first.stderr[-2000:]
    proc = _tune(tiny_model, tmp_path / "b", "--against", str(tmp_path / "a" / "try0"), "--seed", "7",
                 "--tuning-options", json.dumps({"coef_in": [6, 10]}))
    assert proc.returncode != 0 and "Traceback" not in proc.stderr
    assert "scored other tasks" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "b").exists()  # nothing written: not even the tuning set's task file


def test_against_a_folder_without_a_scored_stage_ends_in_one_line(tmp_path, tiny_model):
    (tmp_path / "empty").mkdir()
    proc = _tune(tiny_model, tmp_path / "b", "--against", str(tmp_path / "empty"))
    assert proc.returncode != 0 and "Traceback" not in proc.stderr
    assert "must hold one scored stage" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


def test_against_a_log_without_answers_ends_in_one_line(tmp_path, tiny_model):
    stage = tmp_path / "other" / "eval_x"
    stage.mkdir(parents=True)
    (stage / "verdicts.jsonl").write_text(json.dumps({"task_id": "t1", "rollouts": []}) + "\n")
    proc = _tune(tiny_model, tmp_path / "b", "--against", str(tmp_path / "other"))
    assert proc.returncode != 0 and "Traceback" not in proc.stderr
    assert "is not an evaluation's verdict log" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "b").exists()
