"""``rlvr quickstart`` checks the whole run before the first model call and writes nothing when a check fails."""
from __future__ import annotations

import pytest
import yaml

from rlvr.cli import main
from rlvr.device import Device
from rlvr.quickstart.plan import QuickstartOptions, make_plan
from rlvr.quickstart.plateau import mean_plateau, plateau_step, settled_step
from rlvr.quickstart.training import RLShape, control_rows_per_step, control_seed
from rlvr.train.entry import find_recipe


def _recipe(tmp_path, **changes):
    raw = yaml.safe_load(open(find_recipe("quickstart")))
    raw.update(changes)
    path = tmp_path / "recipe.yaml"
    path.write_text(yaml.safe_dump(raw))
    return str(path)


def test_the_shipped_recipe_plans_a_control_arm_matched_to_the_rl_stage(tmp_path):
    plan = make_plan(QuickstartOptions(output_dir=str(tmp_path / "qs"), device=Device("cpu")))
    training = plan.recipe.training
    shape = RLShape.of(training)
    assert shape.completions == training.per_device_train_batch_size * training.gradient_accumulation_steps
    assert shape.prompts * training.num_generations == shape.completions
    assert plan.arms == ["rl", "control"] and control_rows_per_step(plan) == shape.completions
    assert (plan.primary.reference, plan.primary.treated, plan.primary.split) == ("control", "rl", "test_in")
    assert plan.tests_a_claim
    # the control rows are fresh: another task seed than the warm start's rows and the RL stream
    from rlvr.train.sft_data import sft_seed

    assert control_seed(plan) not in (sft_seed(plan.recipe.task, plan.recipe.sft), plan.recipe.task.task_seed)
    assert not (tmp_path / "qs").exists()  # planning writes nothing


def test_prompt_matching_gives_the_rl_stage_prompts_per_step(tmp_path):
    plan = make_plan(QuickstartOptions(recipe=_recipe(tmp_path, control_match="prompts"), output_dir=str(tmp_path / "qs"),
                                       device=Device("cpu")))
    assert control_rows_per_step(plan) == RLShape.of(plan.recipe.training).prompts


@pytest.mark.parametrize("changes, message", [
    ({"sft_steps": 0}, "control arm continues the warm start"),
    ({"families": ["mol.nope"]}, "mol.nope"),
    ({"control_match": "tokens"}, "control_match must be one of"),
    ({"primary_test": {"stage": "rl_vs_control", "split": "valid"}}, "tuning split"),
    ({"arms": ["rl", "dpo"], "primary_test": {"reference": "warm"}}, "unknown arm 'dpo'"),
    ({"arms": ["rft", "rl"], "primary_test": {"reference": "warm"}}, "rft reads the rl arm's budget, so rl must come before it"),
    ({"arms": ["rl", "rft"]}, "primary_test.reference must be another stage of the run (base, warm, rft), got 'control'"),
    ({"arms": ["rl", "rl"]}, "each arm once"),
    ({"primary_test": {"reference": "rft", "treated": "rl"}}, "reference must be another stage"),
    ({"plateau": {"every": 0}}, "plateau: every and size must be >= 1"),
    ({"plateau": {"set": "test_in"}, "sft_lr_scheduler_type": "constant"}, "not a tuning set"),
    ({"plateau": True}, "depends on sft_steps"),
    ({"pass_at_k": {"samples": 1}}, "pass_at_k.samples must be >= 2"),
    ({"retention_set": {"split": "easy"}}, "retention_set needs families and split"),
    ({"rft": {"learning_rate": "fast"}}, "rft.learning_rate must be a number"),
    ({"kl_set": {"prompts": 3}}, "kl_set: unknown key(s) ['prompts']"),
])
def test_a_mistake_is_one_line_before_any_model_call_and_leaves_no_folder(tmp_path, capsys, changes, message):
    out = tmp_path / "qs"
    assert main(["quickstart", "--recipe", _recipe(tmp_path, **changes), "--device", "cpu", "--output-dir", str(out)]) == 2
    err = capsys.readouterr().err
    assert message in err and err.strip().count("\n") == 0 and "Traceback" not in err
    assert not out.exists()


def test_a_family_without_a_solution_writer_fails_before_the_base_evaluation(tmp_path, capsys):
    from rlvr.registry import get_family, register_family, unregister_family
    from dataclasses import replace

    register_family(replace(get_family("stoich.t1"), name="stoich.unsolved", solve=None))
    try:
        out = tmp_path / "qs"
        code = main(["quickstart", "--recipe", _recipe(tmp_path, families=["stoich.unsolved"]), "--device", "cpu",
                     "--output-dir", str(out)])
        err = capsys.readouterr().err
        assert code == 2 and "no worked-solution writer" in err and not out.exists()
    finally:
        unregister_family("stoich.unsolved")


def test_every_stage_is_scored_in_the_dtype_the_recipe_trains_in(tmp_path, monkeypatch):
    monkeypatch.delenv("RLVR_CPU_BF16", raising=False)
    native, plain = Device("cpu", "float32", cpu_bf16=True), Device("cpu", "float32")
    assert make_plan(QuickstartOptions(output_dir=str(tmp_path / "a"), device=native)).eval_dtype == "bfloat16"
    assert make_plan(QuickstartOptions(output_dir=str(tmp_path / "b"), device=plain)).eval_dtype == "float32"
    fp32 = _recipe(tmp_path, bf16=False)
    assert make_plan(QuickstartOptions(recipe=fp32, output_dir=str(tmp_path / "c"), device=native)).eval_dtype == "float32"
    # the console says which dtype runs, and on a CPU why
    assert make_plan(QuickstartOptions(output_dir=str(tmp_path / "d"), device=native)).runs_in == (
        "cpu in bfloat16 autocast (the faster dtype on this CPU)")
    assert make_plan(QuickstartOptions(output_dir=str(tmp_path / "e"), device=plain)).runs_in == (
        "cpu in float32 (bfloat16 is not the faster dtype on this CPU; RLVR_CPU_BF16=1 forces it)")
    assert make_plan(QuickstartOptions(recipe=fp32, output_dir=str(tmp_path / "f"), device=native)).runs_in == (
        "cpu in float32 (the recipe asks for it)")
    # forced by the environment, the console says so instead of crediting the rule
    monkeypatch.setenv("RLVR_CPU_BF16", "1")
    assert make_plan(QuickstartOptions(output_dir=str(tmp_path / "g"), device=native)).runs_in == (
        "cpu in bfloat16 autocast (set by RLVR_CPU_BF16)")
    monkeypatch.setenv("RLVR_CPU_BF16", "0")
    assert make_plan(QuickstartOptions(output_dir=str(tmp_path / "h"), device=plain)).runs_in == (
        "cpu in float32 (set by RLVR_CPU_BF16)")


def test_the_three_arm_recipes_plan_their_arms_measurements_and_primary_test(tmp_path):
    for name in ("quickstart_plateau", "quickstart_molecules_plateau", "quickstart_confirm", "quickstart_gpu",
                 "quickstart_molecules_gpu"):
        plan = make_plan(QuickstartOptions(recipe=name, output_dir=str(tmp_path / name), device=Device("cpu")))
        assert plan.arms == ["rl", "control", "rft"], name
        assert (plan.primary.reference, plan.primary.treated) == ("control", "rl"), name
        study = plan.recipe.study
        assert study.pass_at_k["samples"] == 8 and study.kl_set, name
        # the confirmatory design dropped the retention set (it could not show forgetting)
        assert bool(study.retention_set) == (name not in ("quickstart_confirm", "quickstart_gpu")), name
        assert (plan.pooled is not None) == (name in ("quickstart_confirm", "quickstart_gpu")), name
        assert plan.recipe.sft.sft_lr_scheduler_type in ("constant", "constant_with_warmup"), name
        shape = RLShape.of(plan.recipe.training)
        assert shape.completions >= 32 and int(plan.recipe.training.max_steps) >= 48, name
    stoich = make_plan(QuickstartOptions(recipe="quickstart_plateau", output_dir=str(tmp_path / "s"), device=Device("cpu")))
    sizes = {spec["split"]: spec["size"] for spec in stoich.specs.values()}
    # one task per reaction: the classic test split's 171 reactions at both coefficient ranges
    assert sizes["test_in"] == sizes["test_out"] == 171 and sizes["test_cross"] >= 100


def test_the_plateau_step_is_where_the_next_scored_step_gains_at_most_the_rule():
    assert plateau_step([(32, 0.40), (64, 0.55), (96, 0.60), (128, 0.61)], 0.02) == 96
    assert plateau_step([(32, 0.40), (64, 0.55), (96, 0.60)], 0.02) is None  # still rising
    assert plateau_step([(32, 0.40), (64, 0.38)], 0.02) == 32  # a fall is no gain
    curves = [[(32, 0.4), (64, 0.5), (96, 0.56), (128, 0.56)], [(32, 0.5), (64, 0.56), (96, 0.58), (128, 0.61)],
              [(32, 0.3), (64, 0.5), (96, 0.6)]]
    found = mean_plateau(curves, 0.02)
    assert [s for s, _ in found["mean_curve"]] == [32, 64, 96] and found["per_seed"] == [96, 64, None]
    assert found["plateau_step"] is None  # the mean of 40/50/56.7 % still rises by more than 2 points
    # a dip fires the next-point rule; the settled step waits until no later point is more than 2 points better
    noisy = [(32, 0.73), (64, 0.84), (96, 0.86), (128, 0.81), (160, 0.87), (192, 0.93), (224, 0.92), (256, 0.88)]
    assert plateau_step(noisy, 0.02) == 64 and settled_step(noisy, 0.02) == 192
    assert settled_step([(32, 0.5)], 0.02) is None and settled_step([(32, 0.5), (64, 0.6)], 0.02) is None
