"""rlvr's dynamic sampling maps onto verl 0.9's own group filtering (recipes/verl/dapo.sh).

verl's V1 replay buffer evicts a finished group when its ``algorithm.filter_groups.metric`` has zero
spread across the group's responses (``np.std(values) == 0``), the metric read from the reward
function's extra info. The recipe names rlvr's ``score``: the same rule as rlvr's TRL trainer
(:func:`rlvr.train.dynamic.zero_std_groups` on the reward), checked here on real verdicts.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

verl = pytest.importorskip("verl", reason="verl is not installed (bash scripts/install.sh --dev installs it)")

import numpy as np
import torch
from omegaconf import OmegaConf

import rlvr
import rlvr.rewards.verl as rlvr_verl
from rlvr.export import verl_row
from rlvr.train.dynamic import zero_std_groups

ROOT = Path(__file__).resolve().parents[2]


def _dapo_overrides() -> dict[str, str]:
    script = (ROOT / "recipes" / "verl" / "dapo.sh").read_text()
    return dict(re.findall(r"^\s+([\w.]+)=(\S+?)\s*(?:\\|\"\$@\")?$", script, flags=re.MULTILINE))


def _config() -> object:
    config = OmegaConf.load(Path(verl.__file__).parent / "trainer/config/_generated_ppo_trainer.yaml")
    for key, value in _dapo_overrides().items():
        OmegaConf.update(config, key, OmegaConf.create({"v": value}).v if value not in ("True", "False") else value == "True",
                         force_add=False)
    return config


def test_dapo_recipe_keys_are_verl_keys_and_resolve_to_rlvr_score():
    overrides = _dapo_overrides()
    assert overrides["algorithm.filter_groups.metric"] == "score"
    config = OmegaConf.load(Path(verl.__file__).parent / "trainer/config/_generated_ppo_trainer.yaml")
    for key in overrides:
        *parents, leaf = key.split(".")
        node = config
        for part in parents:
            node = node[part]
        assert leaf in node.keys(), f"recipes/verl/dapo.sh: {key} is not a verl 0.9 config key"  # noqa: SIM118
    from verl.trainer.config import FilterGroupsConfig
    from verl.utils.config import omega_conf_to_dataclass

    config = _config()
    # verl's own typed config (by class: hydra's target instantiation is not installed here)
    filter_groups = omega_conf_to_dataclass(config.algorithm.filter_groups, dataclass_type=FilterGroupsConfig)
    assert isinstance(filter_groups, FilterGroupsConfig)
    assert filter_groups.enable and filter_groups.metric == "score" and filter_groups.max_inflight_gen_batches == 2
    assert config.trainer.use_v1 is True


def test_verl_filter_rule_on_rlvr_scores_equals_rlvr_dynamic_sampling():
    tasks = [rlvr.generate("stoich.t1", "train", 0, i) for i in range(3)]
    right = [rlvr.oracle_completion(t) for t in tasks]
    groups = [
        [right[0]] * 4,                                              # all right: no spread
        ["<answer>{1}H2O</answer>"] * 4,                             # all wrong: no spread
        [right[2], right[2], "no answer", "<answer>{3}CO2</answer>"],  # mixed: kept
    ]
    scores, extra = [], []
    for task, responses in zip(tasks, groups):
        row = verl_row(task, 0)
        results = [rlvr_verl.compute_score(row["data_source"], r, row["reward_model"]["ground_truth"], row["extra_info"])
                   for r in responses]
        assert all("score" in res and "acc" in res for res in results)  # the keys verl's filter reads
        scores.extend(res["score"] for res in results)
        extra.append([res["score"] for res in results])
    evicted_by_verl = [g for g, values in enumerate(extra) if len(values) > 1 and float(np.std(values)) == 0.0]
    assert evicted_by_verl == zero_std_groups(torch.tensor(scores), 4) == [0, 1]
