"""The confirmatory recipe (``quickstart_confirm``): the plateau recipe with only its eval sets and declared tests
changed, its planned power reproducible, and its every stage, the pooled primary over two seeds included, rehearsed
end to end with the tiny model."""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import yaml

from rlvr.device import Device
from rlvr.eval.stats import pooled_detectable, pooled_power, sign_test_power, smallest_detectable
from rlvr.quickstart.plan import QuickstartOptions, make_plan
from rlvr.quickstart.pooled import PooledDesign, pooled_claims
from rlvr.train.entry import find_recipe

ROOT = Path(__file__).resolve().parents[2]
#: what the confirmatory recipe may change of the plateau recipe
DECLARED = {"eval_sets", "primary_test", "pooled_test", "pass_at_k", "retention_set", "output_dir"}


def _load(name: str) -> dict:
    return yaml.safe_load(open(find_recipe(name)))


def test_the_confirmatory_recipe_is_the_plateau_recipe_with_only_its_eval_sets_and_tests_changed():
    plateau, confirm = _load("quickstart_plateau"), _load("quickstart_confirm")
    changed = {k for k in set(plateau) | set(confirm) if plateau.get(k) != confirm.get(k)}
    assert changed <= DECLARED, changed - DECLARED
    sets = confirm["eval_sets"]
    assert all(s["options"]["corpus"] == "classic-fresh" for s in sets.values())
    assert sets["fresh_out"]["size"] >= 400 and sets["fresh_in"]["size"] >= 300
    assert sets["fresh_far"]["options"]["coef_out"] == [11, 20]
    assert confirm["pooled_test"]["seeds"] == [3, 4, 5] and confirm["pooled_test"]["split"] == "fresh_out"


def test_the_second_recipe_is_the_first_with_only_a_small_kl(tmp_path):
    confirm, kl = _load("quickstart_confirm"), _load("quickstart_confirm_kl")
    changed = {k for k in set(confirm) | set(kl) if confirm.get(k) != kl.get(k)}
    assert changed == {"beta", "output_dir"} and confirm["beta"] == 0.0 and kl["beta"] == 0.01
    header = " ".join(open(find_recipe("quickstart_confirm_kl")).read().split("algorithm:")[0].replace("#", " ").split())
    assert "Declared before its first run" in header and "not a replication" in header
    plan = make_plan(QuickstartOptions(recipe="quickstart_confirm_kl", output_dir=str(tmp_path / "kl"), device=Device("cpu")))
    assert plan.pooled is not None and float(plan.recipe.training.beta) == 0.01


def test_the_planned_power_in_the_header_is_what_the_functions_give():
    header = open(find_recipe("quickstart_confirm")).read().split("algorithm:")[0]
    n = _load("quickstart_confirm")["eval_sets"]["fresh_out"]["size"]
    up, down = 38 / 600, 12 / 600  # the exploratory seeds' test_out task pairs, as the header says
    d = up + down
    half = 0.0215
    figures = {"full": pooled_power(n, 3, up, down), "half": pooled_power(n, 3, (d + half) / 2, (d - half) / 2),
               "mde": pooled_detectable(n, 3, d), "one_seed": sign_test_power(n, up, down), "one_mde": smallest_detectable(n, d)}
    text = " ".join(header.replace("#", " ").split())
    assert f"{n:,} reactions x 3 seeds detect the exploratory lead (4.3 points) with power {figures['full']:.2f}" in text
    assert f"half of it (2.2 points) with {figures['half']:.2f}" in text
    assert f"80 % power at that discordance (8.3 %) is {100 * figures['mde']:.1f} points" in text
    assert f"one seed alone: {figures['one_seed']:.3f} at the exploratory lead, {100 * figures['one_mde']:.1f} points at 80 %" in text
    assert re.search(r"RL up on 38 of 600 task pairs, down on 12", text)


def test_the_confirmatory_recipe_end_to_end_with_the_tiny_model_and_two_seeds_pooled(tmp_path, tiny_model):
    from rlvr.quickstart import run_quickstart

    folders = []
    for seed in (3, 4):
        out = tmp_path / f"seed{seed}"
        run_quickstart(
            recipe="quickstart_confirm", output_dir=str(out), max_steps=1, eval_size=3, max_new_tokens=8,
            overrides=["--model_name_or_path", tiny_model, "--seed", str(seed), "--max_completion_length", "8",
                       "--report_to", "none", "--save_steps", "1", "--sft_steps", "2", "--sft_train_size", "4",
                       "--sft_batch_size", "2", "--sft_max_length", "128", "--per_device_train_batch_size", "4",
                       "--num_generations", "2", "--lora_layers", "top:1",
                       "--plateau", json.dumps({"set": "valid", "size": 2, "every": 1, "stop": False}),
                       "--pass_at_k", json.dumps({"set": "fresh_in", "size": 2, "samples": 2}),
                       "--kl_set", json.dumps({"split": "valid", "size": 1})])
        folders.append(out)
        summary = json.loads((out / "summary.json").read_text())
        assert summary["seed"] == seed and summary["primary"]["split"] == "fresh_out"
        assert {k: (v["items"], v["noun"]) for k, v in summary["eval_sets"].items()} == {
            "fresh_out": (3, "reaction"), "fresh_in": (3, "reaction"), "fresh_far": (3, "reaction")}
        assert {"fresh_out", "fresh_in", "fresh_far"} <= set(summary["splits"])
        assert summary["pooled_test"]["seeds"] == [3, 4, 5]
    design = PooledDesign.from_summary(summary["pooled_test"])
    claims = pooled_claims(design, folders)
    assert not claims["complete"] and claims["primary"]["n_units"] == 3 and claims["primary"]["runs"] == 2
    names = [s["name"] for s in claims["secondary"]]
    assert names == ["control->rl/em/fresh_out/seed 3", "control->rl/em/fresh_out/seed 4", "rft->rl/em/fresh_out",
                     "control->rl/em/fresh_in", "control->rl/em/fresh_far", "control->rl/pass@1/fresh_in"]
    printed = subprocess.run([sys.executable, str(ROOT / "scripts" / "quickstart_seeds.py"), *map(str, folders)],
                             capture_output=True, text=True, check=True).stdout
    assert printed.startswith("POOLED PRIMARY") and "INCOMPLETE" in printed
