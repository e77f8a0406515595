"""The quickstart: scoring helpers and an end-to-end run with the tiny model."""
from __future__ import annotations

import json

import pytest

from rlvr.train.progress import SFT_KEYS, compact_line
from rlvr.quickstart import run_quickstart
from rlvr.quickstart.report import render_table
from rlvr.quickstart.scores import StageResult, build_summary, score_records


def _stages(**records):
    """Stage name -> StageResult of those records (``base``, ``warm``, ``control``, ``final``)."""
    return {name: StageResult(score_records(recs), recs) for name, recs in records.items()}


def _record(group, reason, correct, f1, valid=1.0, id=None):
    return {"id": id or f"{group}-{reason}-{f1}", "split": f"test_{group}", "split_group": group,
            "rollouts": [{"reason": reason, "correct": correct, "metrics": {"f1": f1, "valid": valid, "em": float(correct)}}]}


def test_scores_separate_format_from_correctness():
    records = [
        _record("in", "ok", True, 1.0),
        _record("in", "wrong_count", False, 0.5),
        _record("in", "no_answer", False, 0.0, 0.0),
        _record("in", "unparsable", False, 0.0, 0.0),
        _record("out", "wrong_species", False, 0.25),
    ]
    scores = score_records(records, "f1")
    s = scores["in"]
    assert s.n == 4 and s.format_ok == 0.5 and s.exact_match == 0.25 and s.f1 == pytest.approx(0.375)
    assert scores["out"].format_ok == 1.0 and scores["out"].exact_match == 0.0
    table = render_table(scores, score_records(records[:1] + records[4:], "f1"))
    lines = table.splitlines()
    assert lines[0].startswith("| split") and lines[2].startswith("| in") and lines[3].startswith("| out")
    assert "50.0 -> 100.0 (+50.0)" in lines[2]


@pytest.mark.slow
def test_quickstart_end_to_end_with_the_tiny_model(tmp_path, tiny_model):
    result = run_quickstart(
        output_dir=str(tmp_path / "qs"), max_steps=2, eval_size=1, max_new_tokens=8, eval_every=1,
        overrides=["--model_name_or_path", tiny_model, "--max_completion_length", "8", "--report_to", "none",
                   "--save_steps", "2", "--sft_steps", "1", "--sft_train_size", "2", "--sft_batch_size", "2",
                   "--per_device_train_batch_size", "4", "--num_generations", "2", "--lora_layers", "top:1",
                   "--eval_sets", json.dumps({name: {"split": name, "size": 1}
                                              for name in ("test_in", "test_cross", "test_out", "valid")})],
    )
    assert set(result.before) == set(result.after) == {"in", "cross", "out", "valid"}
    assert result.train["steps"] == 2
    saved = json.loads((tmp_path / "qs" / "quickstart.json").read_text())
    assert saved["after"]["in"]["n"] == 1
    summary = json.loads((tmp_path / "qs" / "summary.json").read_text())
    assert set(summary["splits"]) == {"in", "cross", "out", "valid"} and summary["steps"] == 2
    # the recipe's declared primary test first (RL against the control arm); the other tests on claim splits
    # Holm-corrected; valid apart
    primary = summary["primary"]
    assert (primary["stage"], primary["split"], primary["test"]) == ("rl_vs_control", "test_in", "mcnemar")
    assert primary["arms"] == ["control", "final"]
    assert primary["p_value"] == summary["splits"]["in"]["p_value_vs_control"] and primary["n"] == 1
    names = {s["name"] for s in summary["secondary"]}
    assert "rl_vs_control/mcnemar/in" not in names and {"rl/mcnemar/in", "rl/wilcoxon/in", "base/mcnemar/out"} <= names
    # the control arm: as many steps as GRPO, as many worked solutions per step as GRPO's completions per step
    arms = summary["arms"]
    assert arms["control"]["steps"] == arms["rl"]["steps"] == 2 and arms["control"]["match"] == "completions"
    assert arms["control"]["rows_per_step"] == arms["rl"]["prompts_per_step"] * arms["rl"]["completions_per_prompt"]
    assert arms["control"]["rows"] == 2 * arms["control"]["rows_per_step"] and arms["control"]["seconds"] > 0
    assert (tmp_path / "qs" / "control" / "adapter" / "adapter_model.safetensors").is_file()
    assert json.loads((tmp_path / "qs" / "eval_control" / "scores.json").read_text())["in"]["n"] == 1
    assert not any(s["split"] == "valid" for s in summary["secondary"])
    assert all(s["p_holm"] >= s["p_value"] for s in summary["secondary"])
    assert set(summary["tuning"]) == {"valid"}
    assert summary["budget_smallest_significant"]["steps"] is None
    # --eval-every 1: the step-1 checkpoint scored like the final model, then the final model's row
    assert [row["steps"] for row in summary["budget"]] == [1, 2]
    assert summary["budget"][-1]["splits"]["in"]["p_value_rl"] == summary["splits"]["in"]["p_value_rl"]
    assert json.loads((tmp_path / "qs" / "eval_step1" / "scores.json").read_text())["in"]["n"] == 1
    assert (tmp_path / "qs" / "train" / "checkpoint-1").is_dir()
    for row in summary["splits"].values():
        assert row["n"] == 1 and 0.0 <= row["p_value"] <= 1.0
        assert {"em_before", "em_after", "f1_before", "f1_after", "format_before", "format_after"} <= set(row)
        assert {"em_warm", "p_value_rl", "gained_rl", "lost_rl", "f1_warm", "format_warm"} <= set(row)
        assert {"reward_p_value_rl", "better_rl", "worse_rl", "reward_before", "reward_warm", "reward_after"} <= set(row)
        assert {"em_control", "em_se_control", "gained_vs_control", "lost_vs_control", "p_value_vs_control",
                "reward_p_value_vs_control", "reward_control"} <= set(row)
    assert {"train_reward_first_quarter", "train_reward_last_quarter"} <= set(summary["train_reward"]) or summary["steps"] < 4
    assert summary["warm_start_steps"] == 1 and (tmp_path / "qs" / "warm_start" / "merged").is_dir()
    assert json.loads((tmp_path / "qs" / "warm_start" / "metrics.jsonl").read_text().splitlines()[0])["step"] == 1
    assert json.loads((tmp_path / "qs" / "eval_warm" / "scores.json").read_text())["in"]["n"] == 1
    metrics = (tmp_path / "qs" / "train" / "metrics.jsonl").read_text().splitlines()
    assert metrics and all(json.loads(line)["step"] >= 0 for line in metrics)
    assert (tmp_path / "qs" / "train" / "adapter_model.safetensors").is_file()
    report = (tmp_path / "qs" / "quickstart.md").read_text()
    assert "| in |" in report and "format ok" in report
    assert report.index("PRIMARY TEST (declared in the recipe)") < report.index("| in |")
    assert "against its step budget" in report and "| 1 |" in report
    assert "control arm: 2 SFT steps" in report and "against the control (control -> final)" in report
    assert (tmp_path / "qs" / "quickstart.png").stat().st_size > 10_000


def test_summary_pairs_the_same_tasks_before_and_after():
    before = [_record("in", "wrong_count", False, 0.5, id=f"t{i}") for i in range(12)]
    before += [_record("in", "ok", True, 1.0, id="t12"), _record("out", "ok", True, 1.0, id="o1")]
    after = [_record("in", "ok", True, 1.0, id=f"t{i}") for i in range(12)]
    after += [_record("in", "wrong_count", False, 0.5, id="t12"), _record("out", "ok", True, 1.0, id="o1")]
    summary = build_summary(_stages(base=before, final=after))
    row = summary["in"]
    assert row["n"] == 13 and row["gained"] == 12 and row["lost"] == 1
    assert row["em_before"] == pytest.approx(1 / 13) and row["em_after"] == pytest.approx(12 / 13)
    assert row["p_value"] == pytest.approx(2 * 14 / 2 ** 13)  # P(X <= 1 | 13, 1/2), two-sided
    assert row["f1_before"] == pytest.approx((12 * 0.5 + 1) / 13)
    assert summary["out"]["p_value"] == 1.0 and list(summary) == ["in", "out"]


def test_summary_separates_the_warm_start_from_the_rl_stage():
    before = [_record("in", "no_answer", False, 0.0, id=f"t{i}") for i in range(10)]
    warm = [_record("in", "ok", i < 6, 1.0 if i < 6 else 0.5, id=f"t{i}") for i in range(10)]
    after = [_record("in", "ok", i < 7 or i == 9, 1.0, id=f"t{i}") for i in range(10)]
    after[0] = _record("in", "wrong_count", False, 0.5, id="t0")
    summary = build_summary(_stages(base=before, warm=warm, final=after))
    row = summary["in"]
    assert row["em_before"] == 0.0 and row["em_warm"] == pytest.approx(0.6) and row["em_after"] == pytest.approx(0.7)
    assert (row["gained"], row["lost"]) == (7, 0) and row["p_value"] == pytest.approx(2 / 2 ** 7)
    assert (row["gained_rl"], row["lost_rl"]) == (2, 1) and row["p_value_rl"] == 1.0
    # per-task reward (F1 here): t0 fell 1.0 -> 0.5, t6..t9 rose 0.5 -> 1.0 (Wilcoxon signed-rank, ties dropped)
    assert (row["better_rl"], row["worse_rl"]) == (4, 1) and row["reward_diff_rl"] == pytest.approx(0.15)
    assert row["reward_p_value_rl"] == pytest.approx(0.375)
    assert row["reward_warm"] == pytest.approx(0.8) and row["reward_after"] == pytest.approx(0.95)
    assert row["f1_warm"] == pytest.approx(0.8) and row["format_warm"] == 1.0
    table = render_table(score_records(before), score_records(after), score_records(warm))
    assert "0.0 -> 60.0 -> 70.0 (+70.0)" in table


def test_compact_line_shows_step_reward_exact_format_and_speed():
    logs = {"reward": 0.4123, "rewards/exact_reward/mean": 0.125, "rewards/format_reward/mean": 0.95, "loss": 0.1}
    line = compact_line(10, 40, logs, 14.24)
    assert line == "step 10/40  reward 0.412  exact 0.125  format 0.950  14.2 s/step"
    assert compact_line(1, 40, {}, None) == "step 1/40"
    sft = compact_line(4, 16, {"loss": 0.25, "mean_token_accuracy": 0.9, "entropy": 0.3}, 9.6, SFT_KEYS)
    assert sft == "step 4/16  loss 0.250  token accuracy 0.900  9.6 s/step"


def test_the_quickstart_recipe_has_a_fixed_step_budget():
    """A step budget, not minutes: the same seed gives the same steps on a busy or an idle machine."""
    from rlvr.train.entry import find_recipe
    from rlvr.train.recipe import parse_recipe

    recipe = parse_recipe(["--config", find_recipe("quickstart"), "--output_dir", "unused"])
    task_args, sft_args, training_args = recipe.task, recipe.sft, recipe.training
    assert task_args.max_train_minutes == 0 and sft_args.sft_steps > 0 and sft_args.sft_style == "brief"
    assert 0 < training_args.max_steps <= 200
    from rlvr.train.data import eval_set_specs

    sizes = {spec["split"]: spec["size"] for spec in eval_set_specs(task_args).values()}
    assert sizes["test_in"] >= 100 and sizes["test_cross"] > 0 and sizes["test_out"] > 0
    assert not any(name.startswith(("valid", "train")) for name in sizes)  # tuning runs score valid (tune_arms.py)
    assert task_args.primary_test == {"stage": "rl_vs_control", "split": "test_in", "test": "mcnemar", "alpha": 0.05}
    assert recipe.control.control_arm and recipe.control.control_match == "completions"
