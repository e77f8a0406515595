"""The quickstart: scoring helpers and an end-to-end run with the tiny model."""
from __future__ import annotations

import json

import pytest

from rlvr.train.progress import SFT_KEYS, compact_line
from rlvr.fresh_process import call_in_fresh_process
import rlvr.quickstart.run as run_module
from rlvr.quickstart import QuickstartOptions, run_quickstart
from rlvr.quickstart.report import render_table
from rlvr.quickstart.scores import StageResult, build_summary, score_records


def _stages(**records):
    """Stage name -> StageResult of those records (``base``, ``warm``, then arms)."""
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
    table = render_table({"base": scores, "rl": score_records(records[:1] + records[4:], "f1")})
    lines = table.splitlines()
    assert lines[0].startswith("| split") and lines[2].startswith("| in") and lines[3].startswith("| out")
    assert lines[2] == "| in | 4 | 25.0 / 100.0 | 37.5 / 100.0 | 50.0 / 100.0 |"


@pytest.mark.slow
def test_quickstart_end_to_end_with_the_tiny_model(tmp_path, tiny_model):
    """Every stage and arm of the plateau design, each measurement, the report and the figure, with a tiny model."""
    sets = {name: {"split": name, "size": 2} for name in ("test_in", "test_cross", "test_out", "valid")}
    result = run_quickstart(
        output_dir=str(tmp_path / "qs"), max_steps=2, eval_size=2, max_new_tokens=8, eval_every=1,
        overrides=["--model_name_or_path", tiny_model, "--max_completion_length", "8", "--report_to", "none",
                   "--save_steps", "2", "--sft_steps", "2", "--sft_train_size", "4", "--sft_batch_size", "2",
                   "--sft_lr_scheduler_type", "constant", "--per_device_train_batch_size", "4", "--num_generations", "2",
                   "--lora_layers", "top:1", "--arms", "rl,control,rft", "--eval_sets", json.dumps(sets),
                   "--plateau", json.dumps({"set": "valid", "size": 2, "every": 1, "stop": False}),
                   "--pass_at_k", json.dumps({"set": "test_in", "size": 2, "samples": 2}),
                   "--retention_set", json.dumps({"families": ["mol.count"], "split": "easy", "size": 2}),
                   "--kl_set", json.dumps({"split": "valid", "size": 2}), "--rft", json.dumps({"temperature": 1.5}),
                   "--sampling_draw", "block_race", "--compact_decoding", "true"],
    )
    qs = tmp_path / "qs"
    assert result.stages == ["base", "warm", "rl", "control", "rft"] and result.treated == "rl"
    assert set(result.before) == set(result.after) == {"in", "cross", "out", "valid"}
    summary = json.loads((qs / "summary.json").read_text())
    assert set(summary["splits"]) == {"in", "cross", "out", "valid"} and summary["steps"] == 2
    assert summary["stages"] == result.stages
    # the declared primary test (SFT control -> RL), with its direction and power; the declared family Holm-corrected
    primary = summary["primary"]
    assert (primary["reference"], primary["treated"], primary["split"]) == ("control", "rl", "test_in")
    assert primary["p_value"] == summary["splits"]["in"]["tests"]["control->rl"]["p_value"] and primary["n"] == 2
    assert "ahead" in primary and set(primary["power"]) >= {"discordance", "detectable_difference", "tasks_needed"}
    names = {s["name"] for s in summary["secondary"]}
    assert {"rft->rl/mcnemar/in", "control->rl/mcnemar/out", "control->rl/pass@1/test_in", "warm->rl/pass@2/test_in",
            "warm->rft/retention"} <= names and "control->rl/mcnemar/in" not in names
    assert all(s["p_holm"] >= s["p_value"] for s in summary["secondary"])
    assert {"warm->rl/mcnemar/in", "base->control/mcnemar/out"} <= {s["name"] for s in summary["exploratory"]}
    assert not any(s["split"] == "valid" for s in summary["secondary"]) and set(summary["tuning"]) == {"valid"}
    # every arm's budget in the same units: RL's steps, the controls matched to them
    arms = summary["arms"]
    assert arms["control"]["steps"] == arms["rl"]["steps"] == 2 and arms["control"]["match"] == "completions"
    assert arms["control"]["rows_per_step"] == arms["rl"]["prompts_per_step"] * arms["rl"]["completions_per_prompt"]
    assert arms["rl"]["generated_tokens"] > 0 and arms["control"]["generated_tokens"] == 0
    # no stage skipped an optimizer step (NonFiniteGradCallback), and each says so
    assert [arms[a]["skipped_steps"] for a in ("rl", "control", "rft")] == [[], [], []]
    assert summary["warm_start"]["skipped_steps"] == []
    assert arms["rft"]["sampled_completions"] == arms["rft"]["sampled_prompts"] * 2 and arms["rft"]["temperature"] == 1.5
    stream = (qs / "train" / "prompts.jsonl").read_text().splitlines()
    assert arms["rl"]["generated_completions"] == 2 * len(stream) and len(stream) >= 4
    assert (qs / "control" / "adapter" / "adapter_model.safetensors").is_file()
    for stage in ("warm", "rl", "control", "rft"):
        assert json.loads((qs / f"eval_{stage}" / "scores.json").read_text())["in"]["n"] == 2
    # the measurements: pass@1 / pass@k for the warm start and each arm, retention, KL of the trained arms
    assert set(summary["pass_at_k"]["stages"]) == {"warm", "rl", "control", "rft"} and summary["pass_at_k"]["samples"] == 2
    assert set(summary["retention"]["stages"]) == {"warm", "rl", "control", "rft"}
    assert {"rl", "control"} <= set(summary["kl"]["stages"]) and summary["kl"]["stages"]["control"]["kl_per_sequence"] >= 0
    # the plateau mode scored the warm start every step on valid
    plateau = summary["warm_start"]["plateau"]
    assert [s for s, _ in plateau["curve"]] == [1, 2] and (qs / "warm_start" / "plateau" / "step-1").is_dir()
    # --eval-every 1: the step-1 checkpoint scored like the final model, then the final model's row
    assert [row["steps"] for row in summary["budget"]] == [1, 2]
    assert summary["budget"][-1]["splits"]["in"]["p_value_rl"] == summary["splits"]["in"]["tests"]["warm->rl"]["p_value"]
    assert (qs / "train" / "checkpoint-1").is_dir()
    report = (qs / "quickstart.md").read_text()
    assert report.index("PRIMARY TEST (declared in the recipe)") < report.index("| in |")
    assert "SFT control -> RL on test_in" in report and "  power: " in report
    assert "RFT control: kept " in report and "step- and row-matched" in report
    assert "pass@1 / pass@2 %" in report and "retention (mol.count easy" in report and "KL from the warm start" in report
    assert "against its step budget" in report and "| 1 |" in report
    assert (qs / "quickstart.png").stat().st_size > 10_000
    # every sampled measurement (pass@k, KL, RFT's samples) drew as the recipe says; greedy ones draw nothing
    keys = [json.loads(path.read_text())["generation"] for path in qs.rglob("run.json")]
    sampled = [key for key in keys if key["temperature"] > 0]
    assert len(sampled) >= 6 and all(key["draw"] == "block_race" and key["decoding"] == "compact" for key in sampled)
    assert all(key["draw"] is None and "decoding" not in key for key in keys if key["temperature"] == 0)
    configs = [json.loads(path.read_text())["config"] for path in qs.rglob("results.json")]
    assert len(configs) >= 10 and all(config["decoding"] == "compact" for config in configs)  # greedy ones too


@pytest.mark.slow
def test_the_default_quickstart_shape_with_the_tiny_model(tmp_path, tiny_model):
    """The 15-minute main job's shape: RL and the SFT control from a warm start, nothing measured beyond them."""
    result = run_quickstart(
        output_dir=str(tmp_path / "qs"), max_steps=1, eval_size=1, max_new_tokens=4,
        overrides=["--model_name_or_path", tiny_model, "--max_completion_length", "4", "--report_to", "none",
                   "--sft_steps", "1", "--sft_train_size", "2", "--sft_batch_size", "2",
                   "--per_device_train_batch_size", "4", "--num_generations", "2", "--lora_layers", "top:1"])
    summary = json.loads((tmp_path / "qs" / "summary.json").read_text())
    assert summary["stages"] == ["base", "warm", "rl", "control"] and set(summary["arms"]) == {"rl", "control"}
    assert not any(k in summary for k in ("pass_at_k", "retention", "kl")) and result.measures == {}
    assert summary["warm_start_steps"] == 1 and "plateau" not in summary["warm_start"]


@pytest.mark.slow
def test_each_arm_in_a_fresh_process_gives_the_same_run(tmp_path, tiny_model, monkeypatch):
    """``fresh_arms`` (the command's default) trains and measures each arm in its own process: every score, budget
    and answer is the one the single-process run gives; only the times differ."""
    children = []

    def counted(fn, *args, **kwargs):
        children.append(args[1])
        return call_in_fresh_process(fn, *args, **kwargs)

    monkeypatch.setattr(run_module, "call_in_fresh_process", counted)
    overrides = ["--model_name_or_path", tiny_model, "--max_completion_length", "6", "--report_to", "none",
                 "--sft_steps", "1", "--sft_train_size", "2", "--sft_batch_size", "2", "--per_device_train_batch_size", "4",
                 "--num_generations", "2", "--lora_layers", "top:1", "--arms", "rl,control,rft",
                 "--pass_at_k", json.dumps({"set": "test_in", "size": 2, "samples": 2}),
                 "--kl_set", json.dumps({"split": "valid", "size": 2}), "--rft", json.dumps({"temperature": 1.5})]
    runs = {}
    for fresh in (False, True):
        out = tmp_path / ("fresh" if fresh else "one")
        run_quickstart(QuickstartOptions(output_dir=str(out), max_steps=2, eval_size=2, max_new_tokens=6,
                                         fresh_arms=fresh, base_cache=False,
                                         overrides=[*overrides, "--output_dir", str(out / "train")]))
        summary = json.loads((out / "summary.json").read_text())
        runs[fresh] = (summary, {stage: (out / f"eval_{stage}" / "records.json").read_text()
                                 for stage in ("rl", "control", "rft")})
    assert children == ["rl", "control", "rft"]  # the fresh run's arms, each in a child; the other run's in none
    (one, one_records), (fresh, fresh_records) = runs[False], runs[True]
    assert fresh_records == one_records and set(fresh["seconds"]) == set(one["seconds"])
    for summary in (one, fresh):
        summary.pop("seconds")
        summary["warm_start"].pop("seconds")
        for arm in summary["arms"].values():
            for key in ("seconds", "sampling_seconds", "prompt_stream"):
                arm.pop(key, None)
    assert json.dumps(fresh, sort_keys=True).replace("/fresh/", "/one/") == json.dumps(one, sort_keys=True)
    assert set(fresh["arms"]) == {"rl", "control", "rft"} and fresh["kl"]["stages"]["rl"]["kl_per_sequence"] >= 0


def test_adapter_layers_the_model_lacks_stop_the_run_before_any_stage(tmp_path, tiny_model):
    """A recipe's top:8 on a 2-layer model fails at once, not after the base eval and the warm start."""
    with pytest.raises(ValueError, match="lora_layers 'top:8': the model has 2 layers"):
        run_quickstart(output_dir=str(tmp_path / "qs"), overrides=["--model_name_or_path", tiny_model,
                                                                   "--lora_layers", "top:8", "--sft_steps", "2"])
    assert not any(path.is_file() for path in (tmp_path / "qs").rglob("*"))


def test_summary_pairs_the_same_tasks_before_and_after():
    before = [_record("in", "wrong_count", False, 0.5, id=f"t{i}") for i in range(12)]
    before += [_record("in", "ok", True, 1.0, id="t12"), _record("out", "ok", True, 1.0, id="o1")]
    after = [_record("in", "ok", True, 1.0, id=f"t{i}") for i in range(12)]
    after += [_record("in", "wrong_count", False, 0.5, id="t12"), _record("out", "ok", True, 1.0, id="o1")]
    summary = build_summary(_stages(base=before, rl=after))
    row = summary["in"]
    test = row["tests"]["base->rl"]
    assert row["n"] == 13 and test["gained"] == 12 and test["lost"] == 1
    assert row["stages"]["base"]["em"] == pytest.approx(1 / 13) and row["stages"]["rl"]["em"] == pytest.approx(12 / 13)
    assert test["p_value"] == pytest.approx(2 * 14 / 2 ** 13)  # P(X <= 1 | 13, 1/2), two-sided
    assert row["stages"]["base"]["f1"] == pytest.approx((12 * 0.5 + 1) / 13)
    assert summary["out"]["tests"]["base->rl"]["p_value"] == 1.0 and list(summary) == ["in", "out"]


def test_summary_separates_the_warm_start_from_the_rl_stage():
    before = [_record("in", "no_answer", False, 0.0, id=f"t{i}") for i in range(10)]
    warm = [_record("in", "ok", i < 6, 1.0 if i < 6 else 0.5, id=f"t{i}") for i in range(10)]
    after = [_record("in", "ok", i < 7 or i == 9, 1.0, id=f"t{i}") for i in range(10)]
    after[0] = _record("in", "wrong_count", False, 0.5, id="t0")
    summary = build_summary(_stages(base=before, warm=warm, rl=after))
    row, stages = summary["in"], summary["in"]["stages"]
    assert stages["base"]["em"] == 0.0 and stages["warm"]["em"] == pytest.approx(0.6) and stages["rl"]["em"] == pytest.approx(0.7)
    base, rl = row["tests"]["base->rl"], row["tests"]["warm->rl"]
    assert (base["gained"], base["lost"]) == (7, 0) and base["p_value"] == pytest.approx(2 / 2 ** 7)
    assert (rl["gained"], rl["lost"]) == (2, 1) and rl["p_value"] == 1.0
    # per-task reward (F1 here): t0 fell 1.0 -> 0.5, t6..t9 rose 0.5 -> 1.0 (Wilcoxon signed-rank, ties dropped)
    assert (rl["better"], rl["worse"]) == (4, 1) and rl["reward_diff"] == pytest.approx(0.15)
    assert rl["reward_p_value"] == pytest.approx(0.375)
    assert stages["warm"]["reward"] == pytest.approx(0.8) and stages["rl"]["reward"] == pytest.approx(0.95)
    assert stages["warm"]["f1"] == pytest.approx(0.8) and stages["warm"]["format"] == 1.0
    assert list(row["tests"]) == ["base->rl", "warm->rl"]
    table = render_table({name: score_records(r) for name, r in (("base", before), ("warm", warm), ("rl", after))})
    assert "| in | 10 | 0.0 / 60.0 / 70.0 |" in table


def test_the_tests_a_run_makes_and_summaries_written_before_arms_were_data():
    from rlvr.quickstart.scores import comparisons, from_legacy

    assert comparisons(["base", "warm", "rl", "control", "rft"]) == [
        ("base", "rl"), ("warm", "rl"), ("base", "control"), ("warm", "control"), ("base", "rft"), ("warm", "rft"),
        ("control", "rl"), ("rft", "rl")]
    assert comparisons(["base", "rl"]) == [("base", "rl")]
    old = {"n": 100, "em_before": 0.0, "em_se_before": 0.0, "em_warm": 0.6, "em_se_warm": 0.05, "em_after": 0.64,
           "em_se_after": 0.05, "em_control": 0.73, "em_se_control": 0.04, "p_value_vs_control": 0.078,
           "gained_vs_control": 6, "lost_vs_control": 15, "p_value_rl": 0.42, "gained_rl": 9, "lost_rl": 5}
    row = from_legacy(old)
    assert row["stages"]["rl"]["em"] == 0.64 and row["stages"]["control"]["em"] == 0.73
    assert row["tests"]["control->rl"]["gained"] == 6 and row["tests"]["warm->rl"]["p_value"] == 0.42
    assert from_legacy(row) == row


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
    assert task_args.primary_test == {"reference": "control", "treated": "rl", "split": "test_in", "test": "mcnemar",
                                      "alpha": 0.05}
    assert recipe.arms == ["rl", "control"] and recipe.control.control_match == "completions"
