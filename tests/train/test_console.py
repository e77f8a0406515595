"""``rlvr train`` console: compact lines by default, every metric in metrics.jsonl, ``--console full`` for TRL's dicts."""
from __future__ import annotations

import json

import pytest

from rlvr.train.config import TaskArguments
from rlvr.train.entry import main
from rlvr.train.progress import CompactProgress, JsonlMetricsLog, compact_every, console_callbacks, eval_line

#: a key of every TRL GRPO metrics dict, printed as part of it (its repr) by transformers' printer
DICT_KEY = "'completions/mean_length'"


@pytest.mark.slow
def test_compact_console_by_default_and_every_metric_in_the_jsonl_log(tmp_path, tiny_model, make_recipe, capsys):
    out = tmp_path / "out"
    recipe = make_recipe(tmp_path / "r.yaml", tiny_model, out, save_strategy="no")
    assert main(["--config", str(recipe)]) == 0
    console = capsys.readouterr()
    assert DICT_KEY not in console.out + console.err
    lines = [line for line in console.out.splitlines() if line.startswith("step ")]
    assert [line.split("  ")[0] for line in lines] == ["step 1/2", "step 2/2"]
    assert all("  reward " in line and "  format " in line and " s/step" in line for line in lines)
    assert json.loads(console.out.splitlines()[-1])["global_step"] == 2  # the summary line is still last
    records = [json.loads(line) for line in (out / "metrics.jsonl").read_text().splitlines()]
    history = json.loads((out / "trainer_state.json").read_text())["log_history"]
    assert [sorted(r) for r in records] == [sorted(h) for h in history]  # every logged key, each record once
    assert "completions/mean_length" in records[0]

    assert main(["--config", str(recipe), "--console", "full"]) == 0
    console = capsys.readouterr()
    assert DICT_KEY in console.out + console.err
    assert not [line for line in console.out.splitlines() if line.startswith("step ")]
    # a fresh run into the same output_dir starts a fresh log
    assert [json.loads(line)["step"] for line in (out / "metrics.jsonl").read_text().splitlines()] == [1, 2, 2]


def test_console_modes_and_the_compact_interval(tmp_path):
    compact = console_callbacks("compact", tmp_path, 200, 1)
    assert [type(cb) for cb in compact] == [CompactProgress, JsonlMetricsLog]
    assert compact[0].every == 20 and compact[1].path == tmp_path / "metrics.jsonl"
    assert [type(cb) for cb in console_callbacks("full", tmp_path, 200, 1)] == [JsonlMetricsLog]
    assert compact_every(2, 1) == 1 and compact_every(200, 5) == 20 and compact_every(200, 3) == 21
    assert compact_every(100, 0.25) == 25 and compact_every(-1, 2) == 20
    with pytest.raises(ValueError, match="console"):
        TaskArguments(console="loud")
    assert TaskArguments(console="FULL").console == "full"


def test_eval_line_names_every_eval_set():
    logs = {"eval_test_in_reward": 0.4123, "eval_test_in_rewards/chem_reward/mean": 0.3, "eval_test_out_reward": 0.1,
            "eval_test_in_loss": 0.0}
    assert eval_line(50, 200, logs) == "eval step 50/200  test_in reward 0.412  test_out reward 0.100"
    assert eval_line(5, 10, {"eval_reward": 0.5}) == "eval step 5/10  reward 0.500"
    assert eval_line(5, 10, {"reward": 0.5, "loss": 0.1}) is None
