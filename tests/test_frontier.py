"""Frontier task selection (rlvr.frontier): deterministic draws, frontier weighting, held-out splits."""
from __future__ import annotations

import pytest

from rlvr.datasets import Mixture, frontier_stream
from rlvr.frontier import FrontierConfig, FrontierPolicy, TaskSampler, difficulty_cell
from rlvr.train.curriculum import Curriculum

MIX = [{"family": "stoich.t1", "options": {"encoding": "formula", "corpus": "classic", "prompt_mode": "open"}}]


def _sampler(seed: int = 0, **config) -> TaskSampler:
    return TaskSampler(Mixture(MIX, "train", seed), FrontierConfig(**config))


def _feed(sampler: TaskSampler, rows: range, rule) -> list[str]:
    ids = []
    for i in rows:
        task = sampler.task_at(i)
        ids.append(task.id)
        sampler.observe(task, rule(difficulty_cell(task)))
    return ids


def test_same_seed_and_history_give_the_same_draws():
    rule = lambda cell: 1.0 if "k=1" in cell else 0.0  # noqa: E731
    assert _feed(_sampler(), range(60), rule) == _feed(_sampler(), range(60), rule)
    assert _feed(_sampler(), range(60), rule) != _feed(_sampler(seed=1), range(60), rule)


def test_another_history_gives_other_draws():
    a = _feed(_sampler(), range(80), lambda cell: 1.0 if "k=1" in cell else 0.0)
    b = _feed(_sampler(), range(80), lambda cell: 0.5)
    assert a[:1] == b[:1] and a != b


def test_cells_at_zero_or_one_success_are_drawn_less():
    plain = _sampler(policy="uniform")
    for i in range(400):
        plain.task_at(i)
    share = lambda s, key: sum(n for c, n in s.drawn_by_cell.items() if key in c) / s.drawn  # noqa: E731
    uniform_k1, uniform_k3 = share(plain, "k=1,"), share(plain, "k=3,")
    # cells with k=1 are always solved, cells with k=3 never: both drift off the frontier
    frontier = _sampler(candidates=8)
    _feed(frontier, range(200), lambda cell: 1.0 if "k=1," in cell else (0.0 if "k=3," in cell else 0.5))
    frontier.drawn_by_cell.clear()
    frontier.drawn = 0
    for i in range(200, 600):
        frontier.task_at(i)
    assert share(frontier, "k=1,") < uniform_k1 / 2
    assert share(frontier, "k=3,") < uniform_k3 / 2
    assert share(frontier, "k=1,") > 0  # drawn less, never excluded
    summary = frontier.policy.summary()
    assert all(v["weight"] < 0.3 for c, v in summary.items() if "k=1," in c or "k=3," in c)


def test_selection_never_reaches_held_out_tasks():
    sampler = _sampler(candidates=8)
    tasks = [sampler.task_at(i) for i in range(150)] + sampler.fresh(50)
    assert all(t.meta["split"] == "train" and t.meta["reaction_split"] == "train" for t in tasks)
    assert all(t.meta["coefficient_set"] == "in" for t in tasks)
    held_out = {Mixture(MIX, split, 0).task_at(i).meta["reaction_key"]
                for split in ("test_in", "test_out") for i in range(200)}
    assert not held_out & {t.meta["reaction_key"] for t in tasks}


def test_uniform_policy_is_the_plain_stream_and_fresh_rows_are_disjoint():
    mixture = Mixture(MIX, "train", 0)
    sampler = TaskSampler(mixture, FrontierConfig(policy="uniform"))
    assert [sampler.task_at(i).id for i in range(10)] == [mixture.task_at(i).id for i in range(10)]
    fresh = {t.id for t in sampler.fresh(20)}
    assert not fresh & {mixture.task_at(i).id for i in range(2000)}
    assert len(fresh) == 20


def test_state_round_trip_resumes_the_same_draws():
    rule = lambda cell: 1.0 if "c=1" in cell else 0.0  # noqa: E731
    a = _sampler()
    _feed(a, range(40), rule)
    b = _sampler()
    b.load_state_dict(a.state_dict())
    assert [a.task_at(i).id for i in range(40, 60)] == [b.task_at(i).id for i in range(40, 60)]


def test_threshold_curriculum_is_a_policy():
    curriculum = Curriculum(option="coef_in", levels=[[1, 2], [1, 5]])
    sampler = TaskSampler(Mixture(MIX, "train", 0), FrontierConfig(candidates=4), policy=curriculum)
    assert all(t.meta["factor"] <= 2 for t in (sampler.task_at(i) for i in range(30)))
    curriculum.level = 1
    assert any(t.meta["factor"] > 2 for t in (sampler.task_at(i) for i in range(30, 90)))


def test_frontier_stream_rows_follow_the_sampler():
    stream, sampler = frontier_stream(MIX, "train", 0, {"candidates": 4})
    rows = [row for _, row in zip(range(5), stream)]
    assert sampler.drawn >= 5 and all(r["split"] == "train" for r in rows)


@pytest.mark.parametrize("bad", [{"candidates": 0}, {"floor": 0}, {"policy": "greedy"}, {"window": 0},
                                 {"success": "maybe"}])
def test_bad_config_is_named(bad):
    with pytest.raises(ValueError, match="frontier"):
        FrontierConfig(**bad)
    with pytest.raises(ValueError, match="unknown key"):
        FrontierConfig.from_mapping({"candidate": 3})


def test_weights_peak_at_the_frontier():
    policy = FrontierPolicy(FrontierConfig(prior=1.0, floor=0.05, sharpness=1.0))
    for _ in range(30):
        policy.observe_outcome("a", 1.0)
        policy.observe_outcome("b", 0.0)
    for i in range(30):
        policy.observe_outcome("c", float(i % 2))
    w = dict(zip("abcd", policy.weights(list("abcd"))))
    assert w["c"] > 0.9 and w["d"] == 1.0 and w["a"] < 0.2 and w["b"] < 0.2
