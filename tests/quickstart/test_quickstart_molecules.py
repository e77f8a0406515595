"""The molecules main-job recipe: it parses, its eval sets are the family's held-out splits at their sizes,
its rewards are exact, and the default eval splits and metric notes come from the family's own hooks."""
from __future__ import annotations

import json

import pytest

import rlvr
from rlvr.datasets import Mixture
from rlvr.eval.layouts import (GENERIC_LAYOUT, accuracy_by_group, against_common_answers, common_answers,
                               constant_answer_by_group, metric_note, task_group)
from rlvr.eval.stats import sign_test_p_value
from rlvr.registry import get_family
from rlvr.task import answer_key
from rlvr.train.config import DEFAULT_EVAL_SPLITS, TaskArguments, recipe_mapping
from rlvr.train.data import default_eval_splits, eval_set_specs, held_out_splits
from rlvr.train.entry import find_recipe
from rlvr.train.recipe import parse_recipe


@pytest.fixture(scope="module")
def recipe():
    parsed = parse_recipe(["--config", find_recipe("quickstart_molecules")], prog="test")
    return parsed.task, parsed.sft, parsed.training, parsed.model


def test_default_eval_splits_are_the_families_held_out_splits():
    assert default_eval_splits(TaskArguments(families=["stoich.t1"])) == list(DEFAULT_EVAL_SPLITS)
    assert default_eval_splits(TaskArguments(families=["stoich.t2"])) == list(DEFAULT_EVAL_SPLITS)
    assert default_eval_splits(TaskArguments(families=["mol.count"])) == ["easy", "hard"]
    assert default_eval_splits(TaskArguments(families=["mol.index", "mol.count"])) == ["easy", "hard"]
    assert default_eval_splits(TaskArguments(families=["stoich.balance"])) == ["test"]
    for family in ("stoich.t1", "mol.count", "stoich.byproduct"):
        assert "train" not in held_out_splits(family)
        assert set(held_out_splits(family)) <= set(get_family(family).splits)
    with pytest.raises(ValueError, match="share no held-out split"):
        default_eval_splits(TaskArguments(families=["stoich.t1", "mol.count"]))


def test_the_recipe_scores_held_out_molecules_at_fixed_sizes(recipe):
    task_args, sft_args, training_args, _ = recipe
    assert [m.family for m in task_args.mix()] == ["mol.count"] and task_args.train_split == "train"
    specs = eval_set_specs(task_args)
    assert {name: (s["split"], s["size"]) for name, s in specs.items()} == {
        "hard": ("hard", 100), "easy": ("easy", 50), "train_tune": ("train", 40)}
    # every held-out split of the family is scored; the tuning set is the only one drawn from train
    assert set(default_eval_splits(task_args)) <= {s["split"] for s in specs.values()}
    assert specs["hard"]["size"] >= 100
    # the eval tasks ask only the screened features, one per question, in the training prompt
    keys = set(task_args.task_options["keys"])
    for spec in specs.values():
        task = Mixture(list(spec["mix"]), spec["split"], task_args.eval_seed).task_at(0)
        assert task.meta["split"] == spec["split"] and set(task.ground_truth) <= keys and len(task.ground_truth) == 1
        assert task.prompt[0]["role"] == "system" and "<answer>" in task.prompt[0]["content"]
    assert sft_args.sft_steps > 0 and training_args.max_steps > 0


def test_the_recipe_rewards_are_exact(recipe):
    task_args = recipe[0]
    assert task_args.reward_funcs == ["chem_reward"] and task_args.reward_mode == "em"
    task = Mixture(task_args.mix(), "hard", task_args.eval_seed).task_at(3)
    spec = get_family("mol.count")
    assert spec.check(task, spec.oracle(task), reward=task_args.reward_mode).reward == 1.0
    key, value = next(iter(task.ground_truth.items()))
    wrong = spec.check(task, f'<answer>{{"{key}": {int(value) + 1}}}</answer>', reward=task_args.reward_mode)
    assert wrong.reward == 0.0 and not wrong.correct


def test_the_warm_start_writes_brief_scans_for_every_asked_key(recipe):
    from rlvr.solutions import worked_solution
    from rlvr.solutions.molecule_brief import BRIEF_KEYS

    task_args, sft_args = recipe[0], recipe[1]
    assert sft_args.sft_style == "brief" and set(task_args.task_options["keys"]) <= set(BRIEF_KEYS)
    mix = Mixture(task_args.mix(), task_args.train_split, 0)
    texts = [worked_solution(mix.task_at(i), sft_args.sft_style) for i in range(40)]
    walked = [t for t in texts if "indexed 0" in t]  # a scan that disagrees with the solver falls back
    assert len(walked) <= 4, walked


def test_metric_notes_come_from_the_report_layouts():
    molecules = metric_note("mol.count")
    assert "exact match" in molecules and molecules != GENERIC_LAYOUT.metric_note
    assert metric_note("mol.index") == molecules
    assert "exact match" in metric_note("stoich.t1")


@pytest.mark.slow
def test_quickstart_molecules_end_to_end_with_the_tiny_model(tmp_path, tiny_model):
    from rlvr.quickstart import run_quickstart

    result = run_quickstart(
        recipe="quickstart_molecules", output_dir=str(tmp_path / "qs"), max_steps=1, eval_size=1, max_new_tokens=8,
        overrides=["--model_name_or_path", tiny_model, "--max_completion_length", "8", "--report_to", "none",
                   "--save_steps", "1", "--sft_steps", "1", "--sft_train_size", "2", "--sft_batch_size", "2",
                   "--sft_max_length", "128"],
    )
    groups = set(result.after)
    assert set(result.before) == groups and len(groups) == 3 and {"easy", "hard"} <= groups
    assert result.train["steps"] == 1
    assert all(score.n == 1 for score in result.after.values())
    # the recipe's declared primary test is SFT control -> RL on hard; the train_tune set is tuning only
    summary = json.loads((tmp_path / "qs" / "summary.json").read_text())
    primary = summary["primary"]
    assert (primary["reference"], primary["treated"], primary["split"]) == ("control", "rl", "hard")
    assert summary["tuning"] and not any(s["split"] in summary["tuning"] for s in summary["secondary"])
    # per kind of question (the asked feature) at every stage, held-out sets only: easy + hard = 2 tasks
    stages = {"base", "warm start", "RL", "SFT control", "most common answer"}
    assert summary["by_kind"] and all(set(cells) == stages for cells in summary["by_kind"].values())
    assert sum(cells["RL"][1] for cells in summary["by_kind"].values()) == 2
    # the same held-out tasks, each stage against the most-common-answer baseline; the arms' tests are secondaries
    versus = summary["versus_most_common_answer"]
    assert set(versus) == {"base", "warm start", "RL", "SFT control"}
    assert all(row["up"] + row["down"] <= 2 and 0 < row["p"] <= 1 for row in versus.values())
    constant = {s["name"] for s in summary["secondary"] if s["test"] == "sign"}
    assert constant == {"most common answer->RL/sign/held-out", "most common answer->SFT control/sign/held-out"}
    report = (tmp_path / "qs" / "quickstart.md").read_text()
    assert "exact match per kind of question" in report and "product bag" not in report
    assert "against that baseline, task by task" in report and "  RL: +" in report


def test_accuracy_by_question_kind_uses_the_layouts_hook(recipe):
    task_args = recipe[0]
    tasks = [Mixture(task_args.mix(), "hard", task_args.eval_seed).task_at(i) for i in range(12)]
    spec = get_family("mol.count")
    # the oracle's answer on even tasks, a wrong count on odd ones, scored by the checker itself
    correct = {}
    for i, task in enumerate(tasks):
        key, value = next(iter(task.ground_truth.items()))
        completion = spec.oracle(task) if i % 2 == 0 else f'<answer>{{"{key}": {int(value) + 1}}}</answer>'
        correct[task.id] = spec.check(task, completion).correct
    table = accuracy_by_group(tasks, correct)
    assert set(table) == {t.meta["features"][0] for t in tasks} <= set(task_args.task_options["keys"])
    assert sum(n for _, n in table.values()) == 12 and sum(r for r, _ in table.values()) == 6
    assert task_group(tasks[0]) == tasks[0].meta["features"][0]
    stoich = rlvr.generate("stoich.t1", split="test_in", seed=0, index=0)
    assert task_group(stoich) is None and accuracy_by_group([stoich], {stoich.id: True}) == {}


def test_a_model_against_the_most_common_answer_baseline(recipe):
    from rlvr.quickstart.kinds import versus_common_answers

    task_args = recipe[0]
    tasks = [Mixture(task_args.mix(), "hard", task_args.eval_seed).task_at(i) for i in range(30)]
    common = common_answers(tasks)
    modal = {t.id: answer_key(t) == common[task_group(t)] for t in tasks}
    n_modal = sum(modal.values())
    assert 0 < n_modal < len(tasks)
    # a model that reads every count beats the baseline exactly where the truth is not the common answer
    assert against_common_answers(tasks, {t.id: True for t in tasks}) == (len(tasks) - n_modal, 0)
    assert against_common_answers(tasks, {t.id: False for t in tasks}) == (0, n_modal)
    assert against_common_answers(tasks, modal) == (0, 0)  # the baseline itself
    assert against_common_answers(tasks, {}) == (0, 0)  # no verdicts, nothing compared
    tune = Mixture(task_args.mix(), "train", task_args.eval_seed).task_at(0)  # tuning tasks are left out
    records = [{"id": t.id, "rollouts": [{"correct": True}]} for t in [*tasks, tune]]
    versus = versus_common_answers([*tasks, tune], {"final": records, "warm start": None})
    assert versus == {"final": {"up": len(tasks) - n_modal, "down": 0, "p": sign_test_p_value(len(tasks) - n_modal, 0),
                                "n": len(tasks)}}
    stoich = rlvr.generate("stoich.t1", split="test_in", seed=0, index=0)
    assert against_common_answers([stoich], {stoich.id: True}) == (0, 0)
    assert versus_common_answers([stoich], {"final": [{"id": stoich.id, "rollouts": [{"correct": True}]}]}) == {}


def test_the_gpu_recipe_is_the_cpu_recipe_with_a_longer_warm_start(recipe):
    cpu_task, cpu_sft, cpu_training, _ = recipe
    gpu = parse_recipe(["--config", find_recipe("quickstart_molecules_gpu")], prog="test")
    task_args, sft_args, training_args = gpu.task, gpu.sft, gpu.training
    # the same questions, eval sets and claim; four times the warm-start rows and steps, more GRPO steps
    assert task_args.task_options == cpu_task.task_options and task_args.system_prompt == cpu_task.system_prompt
    assert eval_set_specs(task_args).keys() == eval_set_specs(cpu_task).keys()
    assert task_args.primary_test == cpu_task.primary_test and task_args.reward_mode == cpu_task.reward_mode
    assert (sft_args.sft_steps, sft_args.sft_train_size) == (4 * cpu_sft.sft_steps, 4 * cpu_sft.sft_train_size)
    assert sft_args.sft_style == cpu_sft.sft_style and training_args.max_steps >= cpu_training.max_steps


def test_the_constant_answer_baseline_counts_each_kinds_most_common_truth(recipe):
    from rlvr.quickstart.kinds import CONSTANT, accuracy_by_kind

    task_args = recipe[0]
    tasks = [Mixture(task_args.mix(), "hard", task_args.eval_seed).task_at(i) for i in range(30)]
    by_truth: dict = {}
    for t in tasks:
        key, value = next(iter(t.ground_truth.items()))
        by_truth.setdefault(key, []).append(value)
    expected = {k: (max(v.count(x) for x in v), len(v)) for k, v in by_truth.items()}
    assert constant_answer_by_group(tasks) == expected
    # in the quickstart's per-kind table, beside the stages, on the held-out tasks only
    tune = Mixture(task_args.mix(), "train", task_args.eval_seed).task_at(0)
    records = [{"id": t.id, "rollouts": [{"correct": False}]} for t in tasks]
    table = accuracy_by_kind([*tasks, tune], {"base": records, "final": None})
    assert {k: tuple(cells[CONSTANT]) for k, cells in table.items()} == expected
    assert all(cells["base"][0] == 0 and "final" not in cells for cells in table.values())
    stoich = rlvr.generate("stoich.t1", split="test_in", seed=0, index=0)
    assert constant_answer_by_group([stoich]) == {}
    assert accuracy_by_kind([stoich], {"base": [{"id": stoich.id, "rollouts": [{"correct": True}]}]}) == {}


@pytest.mark.slow
def test_the_molecules_plateau_recipe_end_to_end_with_the_tiny_model(tmp_path, tiny_model):
    """quickstart_molecules_plateau's every stage with a tiny model: the plateau on train_tune, the three arms
    from it, the primary on hard, pass@k on hard and retention on stoichiometry (another task group)."""
    from rlvr.quickstart import run_quickstart

    retention_set = recipe_mapping(["--config", find_recipe("quickstart_molecules_plateau")])["retention_set"]
    result = run_quickstart(
        recipe="quickstart_molecules_plateau", output_dir=str(tmp_path / "qs"), max_steps=1, eval_size=1,
        max_new_tokens=8,
        overrides=["--model_name_or_path", tiny_model, "--max_completion_length", "8", "--report_to", "none",
                   "--save_steps", "1", "--sft_steps", "2", "--sft_train_size", "4", "--sft_batch_size", "2",
                   "--sft_max_length", "128", "--per_device_train_batch_size", "4", "--num_generations", "2",
                   "--lora_layers", "top:1",
                   "--plateau", json.dumps({"set": "train_tune", "size": 2, "every": 1, "stop": False}),
                   "--pass_at_k", json.dumps({"set": "hard", "size": 1, "samples": 2}),
                   "--kl_set", json.dumps({"split": "train", "size": 1}),
                   "--retention_set", json.dumps({**retention_set, "size": 2})],
    )
    assert result.stages == ["base", "warm", "rl", "control", "rft"] and result.treated == "rl"
    summary = json.loads((tmp_path / "qs" / "summary.json").read_text())
    primary = summary["primary"]
    assert (primary["reference"], primary["treated"], primary["split"]) == ("control", "rl", "hard")
    assert [s for s, _ in summary["warm_start"]["plateau"]["curve"]] == [1, 2]
    assert summary["warm_start"]["plateau"]["set"] == "train_tune"
    assert set(summary["pass_at_k"]["stages"]) == {"warm", "rl", "control", "rft"}
    retention = summary["retention"]
    assert set(retention["stages"]) == {"warm", "rl", "control", "rft"} and "stoich.t1" in json.dumps(retention)
    names = {s["name"] for s in summary["secondary"]}
    assert {"rft->rl/mcnemar/hard", "control->rl/mcnemar/easy"} <= names
    assert not any(s["split"] in summary["tuning"] for s in summary["secondary"])
