"""Dynamic sampling and frontier feedback inside a real TRL GRPO run of the tiny model."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from rlvr.train.recipe import parse_recipe
from rlvr.train.runner import train




def run(recipe: Path):
    parsed = parse_recipe(["--config", str(recipe)])
    task, training, model = parsed.task, parsed.training, parsed.model
    return train(task, training, model)


def _logs(out: Path) -> list[dict]:
    state = json.loads((out / "trainer_state.json").read_text())
    return [h for h in state["log_history"] if "reward" in h]


def parity_run(tmp_path: Path, tiny_model: str, make_recipe, monkeypatch, dynamic: dict) -> tuple[Path, list[dict]]:
    """Two GRPO steps of 4 groups x 2 on the parity reward with ``dynamic_sampling: dynamic``; the output folder
    and the reward calls the probe recorded."""
    probe = tmp_path / "probe"
    probe.mkdir()
    monkeypatch.syspath_prepend(str(Path(__file__).parent))
    monkeypatch.setenv("RLVR_PROBE_DIR", str(probe))
    out = tmp_path / "out"
    recipe = make_recipe(tmp_path / "r.yaml", tiny_model, out, max_steps=2, save_steps=2,
                         per_device_train_batch_size=8, num_generations=2,
                         reward_funcs=["parity_rewards.parity_reward"], dynamic_sampling=dynamic)
    assert run(recipe).global_step == 2
    return out, [json.loads(line) for line in (probe / "parity.jsonl").read_text().splitlines()]


@pytest.mark.slow
def test_zero_variance_groups_are_replaced_and_counted(tmp_path, tiny_model, make_recipe, monkeypatch):
    out, calls = parity_run(tmp_path, tiny_model, make_recipe, monkeypatch, {"max_rounds": 3})
    logs = _logs(out)
    # 4 groups per step; the stream's rows 0..7 hold 4 even-index (zero-variance) tasks
    zero = sum(h["dynamic/zero_std_groups"] for h in logs)
    replaced = sum(h["dynamic/replaced"] for h in logs)
    unfilled = sum(h["dynamic/unfilled"] for h in logs)
    assert zero >= 2 and replaced >= 1 and replaced + unfilled == zero
    assert all(h["dynamic/rounds"] <= 3 for h in logs)
    indices = [int(i.split(":")[3]) for c in calls for i in c["ids"]]
    fresh = [i for i in indices if i >= 1 << 40]
    assert fresh, "no replacement prompt was generated"
    # every task scored is from the train split
    assert all(i.split(":")[1] == "train" for c in calls for i in c["ids"])
    # the frontier state is saved with the checkpoint, and a per-cell summary at the end
    assert (out / "checkpoint-2" / "rlvr_frontier.json").is_file()
    summary = json.loads((out / "frontier.json").read_text())
    assert sum(summary["drawn_by_cell"].values()) >= 8


@pytest.mark.slow
def test_fixed_size_rounds_generate_max_groups_every_round(tmp_path, tiny_model, make_recipe, monkeypatch):
    out, calls = parity_run(tmp_path, tiny_model, make_recipe, monkeypatch,
                            {"max_rounds": 2, "max_groups": 3, "fixed_size": True})
    logs = _logs(out)
    assert any(h["dynamic/rounds"] for h in logs)
    for h in logs:  # 3 groups per round, however many were missing
        assert h["dynamic/extra_groups"] == 3 * h["dynamic/rounds"]
        assert h["dynamic/replaced"] + h["dynamic/unfilled"] == h["dynamic/zero_std_groups"]
    fresh_calls = [c for c in calls if all(int(i.split(":")[3]) >= 1 << 40 for i in c["ids"])]
    assert fresh_calls and all(len(c["ids"]) == 3 * 2 for c in fresh_calls)  # one shape: 3 groups x 2 samples


@pytest.mark.slow
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


def test_zero_std_groups_and_merge_keep_padding_sides():
    import torch

    from rlvr.train.dynamic import merge_groups, zero_std_groups

    assert zero_std_groups(torch.tensor([1.0, 1.0, 0.0, 1.0, float("nan"), float("nan")]), 2) == [0, 2]
    pad = 9
    batch = {
        "prompt_ids": torch.tensor([[pad, 1, 2], [pad, 1, 2], [3, 4, 5], [3, 4, 5]]),
        "prompt_mask": torch.tensor([[0, 1, 1], [0, 1, 1], [1, 1, 1], [1, 1, 1]]),
        "completion_ids": torch.tensor([[7, pad], [7, 8], [6, pad], [6, 6]]),
        "completion_mask": torch.tensor([[1, 0], [1, 1], [1, 0], [1, 1]]),
        "advantages": torch.tensor([0.0, 0.0, -1.0, 1.0]),
    }
    fresh = {
        "prompt_ids": torch.tensor([[1, 1], [1, 1]]),
        "prompt_mask": torch.tensor([[1, 1], [1, 1]]),
        "completion_ids": torch.tensor([[5, 5, 5], [5, pad, pad]]),
        "completion_mask": torch.tensor([[1, 1, 1], [1, 0, 0]]),
        "advantages": torch.tensor([1.0, -1.0]),
    }
    merged = merge_groups(batch, fresh, {0: 0}, 2, pad)
    # the fresh prompt is left-padded to the batch's width, the kept completions right-padded to the fresh one's
    assert merged["prompt_ids"].tolist() == [[pad, 1, 1], [pad, 1, 1], [3, 4, 5], [3, 4, 5]]
    assert merged["prompt_mask"].tolist() == [[0, 1, 1], [0, 1, 1], [1, 1, 1], [1, 1, 1]]
    assert merged["completion_ids"].tolist() == [[5, 5, 5], [5, pad, pad], [6, pad, pad], [6, 6, pad]]
    assert merged["completion_mask"].sum().item() == 3 + 1 + 1 + 2
    assert merged["advantages"].tolist() == [1.0, -1.0, -1.0, 1.0]
    with pytest.raises(ValueError, match="pixel_values"):
        merge_groups({**batch, "pixel_values": torch.zeros(1)}, fresh, {0: 0}, 2, pad)


def test_dynamic_sampling_config():
    from rlvr.train.dynamic import DynamicSamplingConfig

    assert DynamicSamplingConfig.from_mapping(None) is None and DynamicSamplingConfig.from_mapping(False) is None
    assert DynamicSamplingConfig.from_mapping(True).max_rounds == 1
    assert DynamicSamplingConfig.from_mapping({"max_rounds": 3, "max_groups": 2}).max_groups == 2
    assert DynamicSamplingConfig.from_mapping({"enabled": False}) is None
    with pytest.raises(ValueError, match="unknown key"):
        DynamicSamplingConfig.from_mapping({"rounds": 2})
    with pytest.raises(ValueError, match="max_rounds"):
        DynamicSamplingConfig(max_rounds=-1)
    assert DynamicSamplingConfig.from_mapping({"max_groups": 2, "fixed_size": True}).fixed_size
    with pytest.raises(ValueError, match="fixed_size needs max_groups"):
        DynamicSamplingConfig.from_mapping({"fixed_size": True})
