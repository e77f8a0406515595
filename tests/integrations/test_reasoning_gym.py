"""reasoning-gym 0.1 builds rlvr's datasets by name, mixes them in its composite, scores and steps its curricula.

Everything goes through reasoning-gym's own code: ``create_dataset`` (its registry), ``CompositeDataset``
(weighted mixing and ``score_answer`` routing), ``extract_answer`` (how its trainers read a completion),
``create_curriculum`` / ``BaseCurriculum.generate_configuration`` and ``CurriculumExperiment``
(attribute levels to dataset configs, ``update_difficulty``, ``score_answer_with_id``).
"""
from __future__ import annotations

import pytest

reasoning_gym = pytest.importorskip("reasoning_gym",
                                    reason="reasoning_gym is not installed (bash scripts/install.sh --dev installs it)")

from reasoning_gym.coaching import CurriculumAttributeConfig, CurriculumExperiment, CurriculumExperimentConfig
from reasoning_gym.composite import DatasetSpec
from reasoning_gym.factory import create_curriculum, has_curriculum
from reasoning_gym.utils import extract_answer

import rlvr
import rlvr.integrations.reasoning_gym as rg_rlvr
from rlvr.registry import get_family, list_families
from rlvr.task import Task


def _task(entry: dict) -> Task:
    return Task.from_json(entry["metadata"]["task_json"])


def test_every_family_is_a_dataset_and_entries_are_the_generators_tasks():
    assert set(rg_rlvr.DATASET_NAMES) == {f"rlvr/{f}" for f in list_families()}
    data = reasoning_gym.create_dataset("rlvr/stoich.t2", size=5, seed=7, split="test_out",
                                        options={"encoding": "smiles"})
    assert len(data) == 5 and data.category == "chemistry"
    for i, entry in enumerate(data):
        task = rlvr.generate("stoich.t2", split="test_out", seed=7, index=i, encoding="smiles")
        assert _task(entry).id == task.id and entry["metadata"]["source_index"] == i
        assert entry["metadata"]["source_dataset"] == "rlvr/stoich.t2"
        assert task.user_text in entry["question"] and f"<answer>{entry['answer']}</answer>" == rlvr.oracle_completion(task)
    again = reasoning_gym.create_dataset("rlvr/stoich.t2", size=5, seed=7, split="test_out", options={"encoding": "smiles"})
    assert [e["question"] for e in again] == [e["question"] for e in data]  # deterministic
    assert reasoning_gym.create_dataset("rlvr/stoich.t2", size=1, seed=8)[0]["question"] != data[0]["question"]


def test_score_answer_is_rlvr_verify(answers):
    data = reasoning_gym.create_dataset("rlvr/mol.count", size=4, seed=0, split="easy")
    entries = list(data)
    by_id = {_task(e).id: e for e in entries}
    responses = answers([_task(e) for e in entries])
    for answer in responses:
        entry = by_id[answer.task.id]
        assert data.score_answer(answer.text, entry) == answer.reward  # a whole completion
        assert data.score_answer(extract_answer(answer.text), entry) == answer.reward  # reasoning-gym's extraction
    assert data.score_answer(None, entries[0]) == 0.0
    assert data.score_answer(entries[0]["answer"], entries[0]) == 1.0


def test_options_and_bad_configs_fail_at_creation():
    with pytest.raises(ValueError, match="unknown split 'test_out'"):
        reasoning_gym.create_dataset("rlvr/mol.count", size=2, seed=0, split="test_out")
    with pytest.raises(TypeError, match="unknown option"):
        reasoning_gym.create_dataset("rlvr/stoich.t1", size=2, seed=0, options={"colour": "red"})
    with pytest.raises(ValueError, match="unknown reward mode"):
        reasoning_gym.create_dataset("rlvr/stoich.t1", size=2, seed=0, reward_mode="generous")
    with pytest.raises(ValueError, match="set both min_coef_in and max_coef_in"):
        reasoning_gym.create_dataset("rlvr/stoich.t1", size=2, seed=0, max_coef_in=3)
    with pytest.raises(ValueError, match="already registered"):
        reasoning_gym.register_dataset("rlvr/stoich.t1", rg_rlvr.ChemDataset, rg_rlvr.config_class("stoich.t1"))
    assert rg_rlvr.register("stoich.t1") == "rlvr/stoich.t1"  # idempotent


def test_composite_mixes_rlvr_with_reasoning_gyms_own_datasets():
    data = reasoning_gym.create_dataset("composite", size=24, seed=3, datasets=[
        DatasetSpec("rlvr/stoich.t2", 2, {"options": {"encoding": "smiles"}}),
        DatasetSpec("rlvr/mol.count", 1, {"split": "easy", "load": 2}),
        DatasetSpec("leg_counting", 1, {}),
    ])
    sources = [data[i]["metadata"]["source_dataset"] for i in range(len(data))]
    assert set(sources) == {"rlvr/stoich.t2", "rlvr/mol.count", "leg_counting"}
    for i in range(len(data)):
        entry = data[i]
        assert data.score_answer(entry["answer"], entry) == 1.0
        if entry["metadata"]["source_dataset"] == "rlvr/mol.count":
            assert _task(entry).meta["load"] == 2 and entry["metadata"]["difficulty"]["load"] == 2
            assert data.score_answer("<answer>{}</answer>", entry) == 0.0
    assert [data[i]["question"] for i in range(6)] == [data[i]["question"] for i in range(6)]


def test_difficulty_knobs_are_curriculum_attributes():
    for family in list_families():
        knobs = get_family(family).difficulty.knobs
        assert has_curriculum(f"rlvr/{family}") == bool(knobs)
    curriculum = create_curriculum("rlvr/stoich.t1")
    assert set(curriculum.attributes) == {"coef_in"}
    assert curriculum.generate_configuration().family_options() == {"coef_in": (1, 1)}
    curriculum.increment_attr_level("coef_in")
    curriculum.increment_attr_level("coef_in")
    config = curriculum.generate_configuration({"seed": 0, "size": 8})
    assert config.family_options() == {"coef_in": (1, 3)}
    data = reasoning_gym.create_dataset("rlvr/stoich.t1", **vars(config))
    assert {_task(e).meta["factor"] for e in data} <= {1, 2, 3} and _task(data[0]).meta["coefficient_set"] == "in"
    mol = create_curriculum("rlvr/mol.index")
    assert set(mol.attributes) == {"load", "complexity_bin"}
    mol.set_attr_level("load", 3)
    mol.set_attr_level("complexity_bin", 2)
    entry = reasoning_gym.create_dataset("rlvr/mol.index", **vars(mol.generate_configuration({"seed": 1, "size": 2})))[0]
    assert _task(entry).meta["load"] == 5 and _task(entry).meta["complexity_bin"] == "1000-inf"


def test_curriculum_experiment_steps_an_rlvr_dataset():
    config = CurriculumExperimentConfig(curricula={
        "rlvr/mol.count": CurriculumAttributeConfig(attribute_levels={"*": 0}),
        "rlvr/stoich.t1": CurriculumAttributeConfig(attribute_levels={"coef_in": 1}, weight=2.0),
    })
    experiment = CurriculumExperiment("rlvr", config, size=12, seed=5)
    entries = [experiment.get_dataset_entry(i) for i in range(12)]
    assert {e["metadata"]["source_dataset"] for e in entries} == {"rlvr/mol.count", "rlvr/stoich.t1"}
    stoich = next(e for e in entries if e["metadata"]["source_dataset"] == "rlvr/stoich.t1")
    assert stoich["metadata"]["difficulty"] == {"coef_in": (1, 2)}
    assert experiment.score_answer_with_id(stoich["answer"], stoich["metadata"]["entry_id"]) == 1.0
    assert experiment.score_answer_with_id("<answer>{1}H2O</answer>", stoich["metadata"]["entry_id"]) == 0.0
    experiment.update_difficulty("rlvr/stoich.t1", "increment")
    assert experiment.composite.datasets["rlvr/stoich.t1"].config.family_options() == {"coef_in": (1, 3)}
