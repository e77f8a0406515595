"""Molecular tasks under ``convention="moleculariq"``: the benchmark's key meaning end to end."""
from __future__ import annotations

import pytest

import rlvr
from rlvr.chem.molecules.features import molecule_features
from rlvr.generators.molecules.tasks import MolTaskConfig, generate_task


@pytest.mark.parametrize("kind", ["count", "index", "gen"])
def test_tasks_follow_the_convention_and_verify(kind):
    config = MolTaskConfig(convention="moleculariq", categories=("functional_groups",), load=2)
    for index in range(6):
        task = generate_task(kind, f"mol.{kind}", config, "train", 0, index)
        assert task.meta["config"]["convention"] == "moleculariq"
        assert rlvr.verify(task, rlvr.oracle_completion(task)).correct
        if kind != "gen":
            assert task.ground_truth == molecule_features(task.meta["smiles"], list(task.ground_truth),
                                                          convention="moleculariq")
        if kind == "count":
            assert "atoms in" in task.user_text


def test_default_convention_keeps_task_ids():
    a = generate_task("count", "mol.count", MolTaskConfig(), "train", 0, 3)
    b = generate_task("count", "mol.count", MolTaskConfig(convention="moleculariq"), "train", 0, 3)
    assert a.id.rsplit(":", 1)[0] == b.id.rsplit(":", 1)[0] and a.id != b.id
    with pytest.raises(ValueError, match="convention"):
        MolTaskConfig(convention="benchmark")
