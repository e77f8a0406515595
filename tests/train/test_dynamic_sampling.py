"""Dynamic sampling and frontier feedback inside a real TRL GRPO run of the tiny model."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from rlvr.train.config import parse_recipe
from rlvr.train.runner import train

pytestmark = pytest.mark.slow


def run(recipe: Path):
    task, training, model = parse_recipe(["--config", str(recipe)])
    return train(task, training, model)


def _logs(out: Path) -> list[dict]:
    state = json.loads((out / "trainer_state.json").read_text())
    return [h for h in state["log_history"] if "reward" in h]


def test_zero_variance_groups_are_replaced_and_counted(tmp_path, tiny_model, make_recipe, monkeypatch):
    probe = tmp_path / "probe"
    probe.mkdir()
    monkeypatch.syspath_prepend(str(Path(__file__).parent))
    monkeypatch.setenv("RLVR_PROBE_DIR", str(probe))
    out = tmp_path / "out"
    recipe = make_recipe(tmp_path / "r.yaml", tiny_model, out, max_steps=2, save_steps=2,
                         per_device_train_batch_size=8, num_generations=2,
                         reward_funcs=["parity_rewards.parity_reward"],
                         dynamic_sampling={"max_rounds": 3})
    result = run(recipe)
    assert result.global_step == 2
    logs = _logs(out)
    # 4 groups per step; the stream's rows 0..7 hold 4 even-index (zero-variance) tasks
    zero = sum(h["dynamic/zero_std_groups"] for h in logs)
    replaced = sum(h["dynamic/replaced"] for h in logs)
    unfilled = sum(h["dynamic/unfilled"] for h in logs)
    assert zero >= 2 and replaced >= 1 and replaced + unfilled == zero
    assert all(h["dynamic/rounds"] <= 3 for h in logs)
    calls = [json.loads(line) for line in (probe / "parity.jsonl").read_text().splitlines()]
    indices = [int(i.split(":")[3]) for c in calls for i in c["ids"]]
    fresh = [i for i in indices if i >= 1 << 40]
    assert fresh, "no replacement prompt was generated"
    # every task scored is from the train split
    assert all(i.split(":")[1] == "train" for c in calls for i in c["ids"])
    # the frontier state is saved with the checkpoint, and a per-cell summary at the end
    assert (out / "checkpoint-2" / "rlvr_frontier.json").is_file()
    summary = json.loads((out / "frontier.json").read_text())
    assert sum(summary["drawn_by_cell"].values()) >= 8


def test_frontier_run_is_deterministic_and_logs_cells(tmp_path, tiny_model, make_recipe, monkeypatch):
    monkeypatch.syspath_prepend(str(Path(__file__).parent))
    histories = []
    for name in ("a", "b"):
        probe = tmp_path / f"probe-{name}"
        probe.mkdir()
        monkeypatch.setenv("RLVR_PROBE_DIR", str(probe))
        out = tmp_path / name
        recipe = make_recipe(tmp_path / f"{name}.yaml", tiny_model, out, max_steps=2, save_steps=2,
                             reward_funcs=["parity_rewards.parity_reward"],
                             frontier={"candidates": 4, "success": 0.5})
        run(recipe)
        calls = [json.loads(line) for line in (probe / "parity.jsonl").read_text().splitlines()]
        histories.append([c["ids"] for c in calls])
        logs = _logs(out)
        assert all("frontier/cells" in h and "rlvr/reward_drawn" in h for h in logs)
        cells = json.loads((out / "frontier.json").read_text())["cells"]
        assert cells and all(c.startswith("stoich.t1|k=") for c in cells)
    assert histories[0] == histories[1]
