"""``rlvr.prepare``: a batch's molecule work done ahead changes no verdict, does the work the verdicts
need, never raises and keeps the verdict deadline."""
from __future__ import annotations

import json
import subprocess
import sys
import time
from dataclasses import dataclass

import pytest

import rlvr
from rlvr.checkers import molecules_gen
from rlvr.registry import FamilySpec, register_family, unregister_family
from rlvr.task import Task, Verdict

_VERIFY = """
import json, sys
import rlvr
pairs = json.load(sys.stdin)
print(json.dumps([rlvr.verify(rlvr.Task.from_dict(t), c).to_dict() for t, c in pairs]))
"""


def _pairs() -> list[tuple[Task, str]]:
    """Generation tasks with right, wrong, invalid, unanswered and hostile completions, and a few others."""
    tasks = list(rlvr.sample("mol.gen", n=12, split="train", seed=41, start=7_000))
    pairs = []
    for i, task in enumerate(tasks):
        oracle = rlvr.oracle_completion(task)
        pairs += [(task, oracle), (task, f"<think>x</think>{oracle}"),
                  (task, ['<answer>{"smiles": "CCO"}</answer>', "<answer>C1CC</answer>", "no answer",
                          '<answer>{"smiles": "' + "C" * 300 + '"}</answer>'][i % 4])]
    for family in ("mol.count", "stoich.t2"):
        task = rlvr.generate(family, "train", 41, 3)
        pairs += [(task, rlvr.oracle_completion(task)), (task, "<answer>nothing</answer>")]
    return pairs


def test_prepared_verdicts_equal_verdicts_without_preparation():
    pairs = _pairs()
    payload = json.dumps([(t.to_dict(), c) for t, c in pairs])
    fresh = subprocess.run([sys.executable, "-c", _VERIFY], input=payload, capture_output=True, text=True, check=True)
    spent = rlvr.prepare([t for t, _ in pairs], [c for _, c in pairs])
    assert len(spent) == len(pairs) and all(s >= 0 for s in spent)
    prepared = [rlvr.verify(t, c).to_dict() for t, c in pairs]
    assert json.dumps(prepared) == fresh.stdout.strip()


def test_preparation_does_the_work_the_verdicts_need():
    tasks = list(rlvr.sample("mol.gen", n=6, split="train", seed=43, start=9_000))
    completions = [rlvr.oracle_completion(t) for t in tasks]
    spent = rlvr.prepare(tasks, completions)
    assert all(s > 0 for s in spent)
    misses = molecules_gen._generated.cache_info().misses
    assert all(rlvr.verify(t, c).correct for t, c in zip(tasks, completions))
    assert molecules_gen._generated.cache_info().misses == misses  # every verdict found its molecule's values


def test_preparation_never_raises():
    task = rlvr.generate("mol.gen", "train", 0, 1)
    spent = rlvr.prepare([{"id": "x"}, {"not": "a task"}, task, task], [None, 3, object(), ["<answer>"]])
    assert len(spent) == 4
    assert len(rlvr.prepare([task], [])) == 0  # lengths differ: nothing past the shorter


@dataclass(frozen=True)
class _NoConfig:
    """No options."""


def _spin() -> None:
    while True:
        pass


def test_a_job_past_the_deadline_is_cut_short_and_the_verdict_unaffected():
    name = "test.spin"
    register_family(FamilySpec(
        name=name, config_cls=_NoConfig, splits=("train",), prepare=lambda task, completion: _spin,
        generator=lambda config, split, seed, index: Task(id=f"{name}:{split}:{seed}:{index}:x", family=name,
                                                           prompt=[{"role": "user", "content": "q"}],
                                                           ground_truth={"answer": "ok"}, meta={}),
        check=lambda task, completion, **options: Verdict(reward=1.0, correct=True, metrics={}, reason="ok"),
        oracle=lambda task: "<answer>ok</answer>"))
    try:
        task = rlvr.generate(name, "train", 0, 0)
        start = time.monotonic()
        rlvr.prepare([task, task], ["a", "b"], timeout=0.2)
        assert time.monotonic() - start < 0.4 + 2 * 1.5  # two deadlines and a loaded machine's slack
        assert rlvr.verify(task, "a").correct
    finally:
        unregister_family(name)


@pytest.mark.parametrize("n", [1, 3])
def test_the_trl_reward_scores_a_prepared_batch_alike(n):
    from rlvr.rewards.trl import make_reward

    tasks = list(rlvr.sample("mol.gen", n=n, split="train", seed=47, start=11_000 + 100 * n))
    completions = [rlvr.oracle_completion(t) for t in tasks]
    reward = make_reward(log_metrics=False)
    before = molecules_gen._generated.cache_info()
    assert reward(prompts=["q"] * n, completions=completions, task_json=[t.to_json() for t in tasks]) == [1.0] * n
    after = molecules_gen._generated.cache_info()
    assert after.misses - before.misses == n  # each molecule parsed and counted once
    assert after.hits - before.hits == (n if n > 1 else 0)  # a batch is prepared, then verified from the cache


def test_a_batch_of_queries_is_prepared_then_scored_alike():
    from rlvr.rewards.scoring import score_queries

    tasks = list(rlvr.sample("mol.gen", n=3, split="train", seed=53, start=13_000))
    prompts = [f"<|user|>{t.user_text}<|assistant|>" for t in tasks]
    queries = [p + rlvr.oracle_completion(t) for p, t in zip(prompts, tasks)]
    before = molecules_gen._generated.cache_info()
    result = score_queries(queries, prompts, [t.to_json() for t in tasks])
    after = molecules_gen._generated.cache_info()
    assert result["rewards"] == [1.0] * 3
    assert (after.misses - before.misses, after.hits - before.hits) == (3, 3)


def test_a_verl_batch_is_prepared_then_scored_alike():
    from rlvr.rewards.verl import compute_score_batch

    tasks = list(rlvr.sample("mol.gen", n=3, split="train", seed=59, start=15_000))
    before = molecules_gen._generated.cache_info()
    scores = compute_score_batch(["rlvr"] * 3, [rlvr.oracle_completion(t) for t in tasks],
                                 [t.to_json() for t in tasks])
    after = molecules_gen._generated.cache_info()
    assert [s["score"] for s in scores] == [1.0] * 3
    assert (after.misses - before.misses, after.hits - before.hits) == (3, 3)
