"""Dataset streams: mixtures, determinism, rank sharding, columns, curriculum hook."""
from __future__ import annotations

import itertools
import json
from collections import Counter

import pytest

import rlvr
from rlvr.datasets import FamilyMix, Mixture, build_dataset, build_stream, parse_mix, task_from_row
from rlvr.task import Task


def _take(stream, n):
    return list(itertools.islice(iter(stream), n))


def test_parse_mix_forms():
    mix = parse_mix("stoich.t1:2, mol.count@easy, mol.index@hard:0.5")
    assert [(m.family, m.weight, m.split) for m in mix] == [("stoich.t1", 2.0, None), ("mol.count", 1.0, "easy"), ("mol.index", 0.5, "hard")]
    assert parse_mix([{"family": "mol.gen", "options": {"load": 2}}])[0] == FamilyMix("mol.gen", 1.0, {"load": 2})
    assert parse_mix(FamilyMix("stoich.t2")) == [FamilyMix("stoich.t2")]
    for bad in ("stoich.t1:x", "stoich.t1:0", "stoich.t1:-1", "", [{"weight": 2}], [{"family": "a", "colour": 1}]):
        with pytest.raises(ValueError):
            parse_mix(bad)


def test_mixture_validates_eagerly():
    with pytest.raises(KeyError, match="unknown task family"):
        Mixture("stoich.nope")
    with pytest.raises(ValueError, match="unknown split 'test_out'.*family@split"):
        Mixture("stoich.t1,mol.count", split="test_out")
    with pytest.raises(TypeError, match="unknown option"):
        Mixture([FamilyMix("mol.count", options={"colour": "red"})])
    Mixture("stoich.t1,mol.count@hard", split="test_out")  # a per-family split makes it valid


def test_mixture_weights_are_respected_and_deterministic():
    mix = Mixture("stoich.t1:3,mol.count:1", seed=0)
    picks = [mix.component_at(i).family for i in range(4000)]
    share = Counter(picks)["stoich.t1"] / len(picks)
    assert 0.72 < share < 0.78
    assert picks == [Mixture("stoich.t1:3,mol.count:1", seed=0).component_at(i).family for i in range(4000)]
    assert picks != [Mixture("stoich.t1:3,mol.count:1", seed=1).component_at(i).family for i in range(4000)]


def test_build_dataset_columns_and_round_trip():
    ds = build_dataset("stoich.t2:2,mol.count@easy:1", n=12, split="test_in", seed=3)
    assert ds.column_names == ["prompt", "task_json", "family", "id", "split"] and len(ds) == 12
    for row in ds:
        task = task_from_row(row)
        assert task.id == row["id"] and task.family == row["family"] and task.prompt == row["prompt"]
        assert row["split"] == ("easy" if task.family == "mol.count" else "test_in")
        assert row["prompt"][-1]["role"] == "user"
        # the row is exactly the generator's task at its global index
        index = int(task.id.split(":")[3])
        assert json.loads(row["task_json"]) == json.loads(rlvr.generate(task.family, row["split"], 3, index).to_json())
    again = build_dataset("stoich.t2:2,mol.count@easy:1", n=12, split="test_in", seed=3)
    assert again["task_json"] == ds["task_json"]
    assert build_dataset("stoich.t2:2,mol.count@easy:1", n=12, split="test_in", seed=4)["id"] != ds["id"]


def test_stream_is_the_dataset_continued():
    ds = build_dataset("stoich.t1,mol.index", n=10, split="train", seed=7)
    stream = build_stream("stoich.t1,mol.index", split="train", seed=7)
    assert [r["id"] for r in _take(stream, 10)] == ds["id"]
    assert [r["id"] for r in _take(build_stream("stoich.t1,mol.index", "train", 7, start=5), 5)] == ds["id"][5:]
    assert stream.features == ds.features


@pytest.mark.parametrize("world_size", [2, 3])
def test_rank_shards_are_disjoint_and_cover_the_stream(world_size):
    n = 8
    shards = [[r["id"] for r in _take(build_stream("stoich.t2,mol.count", "train", 1, rank, world_size), n)]
              for rank in range(world_size)]
    flat = [i for shard in shards for i in shard]
    assert len(set(flat)) == len(flat) == n * world_size  # no task seen by two ranks
    single = [r["id"] for r in _take(build_stream("stoich.t2,mol.count", "train", 1), n * world_size)]
    assert set(flat) == set(single)
    for rank, shard in enumerate(shards):
        assert [int(i.split(":")[3]) % world_size for i in shard] == [rank] * n
    with pytest.raises(ValueError, match="invalid rank"):
        build_stream("mol.count", "train", 0, rank=2, world_size=2)


def test_curriculum_hook_changes_the_following_rows():
    class Load:
        def __init__(self):
            self.load = 1

        def options_for(self, family):
            return {"load": self.load} if family.startswith("mol.") else {}

    curriculum = Load()
    it = iter(build_stream("mol.count", "train", 0, curriculum=curriculum))
    assert len(Task.from_json(next(it)["task_json"]).ground_truth) == 1
    curriculum.load = 3
    assert [len(Task.from_json(next(it)["task_json"]).ground_truth) for _ in range(3)] == [3, 3, 3]
    # a plain callable works too
    it = iter(build_stream("mol.count", "train", 0, curriculum=lambda family: {"load": 2}))
    assert len(Task.from_json(next(it)["task_json"]).ground_truth) == 2
    # in a mixture, an option steers the families that have it and leaves the others alone
    rows = _take(build_stream("stoich.t1,mol.count", "train", 0, curriculum=lambda family: {"load": 3}), 12)
    loads = {r["family"]: len(Task.from_json(r["task_json"]).ground_truth) for r in rows}
    assert loads["mol.count"] == 3 and "stoich.t1" in loads
    with pytest.raises(TypeError, match="options of no family"):
        _take(build_stream("stoich.t1,mol.count", "train", 0, curriculum=lambda family: {"colour": 3}), 1)


def test_with_solution_adds_an_assistant_completion():
    solutions = pytest.importorskip("rlvr.solutions")
    if not hasattr(solutions, "worked_solution"):
        pytest.skip("worked solutions are not part of this build")
    ds = build_dataset("stoich.balance,mol.count", n=4, split="train", with_solution=True)
    assert "completion" in ds.column_names
    for row in ds:
        assert row["completion"][0]["role"] == "assistant"
        assert rlvr.verify(task_from_row(row), row["completion"]).correct
