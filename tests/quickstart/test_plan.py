"""``rlvr quickstart`` checks the whole run before the first model call and writes nothing when a check fails."""
from __future__ import annotations

import pytest
import yaml

from rlvr.cli import main
from rlvr.device import Device
from rlvr.quickstart.plan import QuickstartOptions, make_plan
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
    assert plan.recipe.control.control_arm and control_rows_per_step(plan) == shape.completions
    assert (plan.primary.stage, plan.primary.split) == ("rl_vs_control", "test_in") and plan.tests_a_claim
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


def test_every_stage_is_scored_in_the_dtype_the_recipe_trains_in(tmp_path):
    native, plain = Device("cpu", "float32", cpu_bf16=True), Device("cpu", "float32")
    assert make_plan(QuickstartOptions(output_dir=str(tmp_path / "a"), device=native)).eval_dtype == "bfloat16"
    assert make_plan(QuickstartOptions(output_dir=str(tmp_path / "b"), device=plain)).eval_dtype == "float32"
    fp32 = _recipe(tmp_path, bf16=False)
    assert make_plan(QuickstartOptions(recipe=fp32, output_dir=str(tmp_path / "c"), device=native)).eval_dtype == "float32"
