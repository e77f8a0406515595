"""The async TRL reward function, called the way TRL's GRPOTrainer calls async reward functions."""
from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

import rlvr
from rlvr.rewards.trl import make_async_reward, make_reward

PLUGIN = str(Path(__file__).with_name("hang_family.py"))
TIMEOUT = 0.5


def columns(tasks, logged):
    """The keyword columns TRL passes a reward function (dataset columns plus its logging hooks)."""
    return {
        "task_json": [t if isinstance(t, str) else t.to_json() for t in tasks],
        "trainer_state": None,
        "log_extra": lambda name, values: logged.setdefault("extra", {}).__setitem__(name, values),
        "log_metric": lambda name, value: logged.setdefault("metric", {}).__setitem__(name, value),
    }


@pytest.fixture(scope="module")
def trl_loop():
    """TRL's daemon event loop for async reward functions (trl.trainer.utils)."""
    utils = pytest.importorskip("trl.trainer.utils")
    thread, loop, ready = utils.start_event_loop_in_daemon(name="rlvr-test-async-rewards")
    ready.wait()
    try:
        yield utils, loop
    finally:
        utils.shutdown_event_loop_in_daemon(thread, loop)


def call_like_grpo(loop, funcs, prompts, completions, kwargs):
    """What GRPOTrainer._calculate_rewards does with async reward functions: gather them on its loop."""
    async def run_all():
        return await asyncio.gather(*(f(prompts=prompts, completions=completions, completion_ids=None, **kwargs)
                                      for f in funcs))

    return asyncio.run_coroutine_threadsafe(run_all(), loop).result(timeout=300)


@pytest.mark.slow
def test_async_reward_matches_the_sync_one_and_times_out_hangs(trl_loop):
    utils, loop = trl_loop
    tasks = [rlvr.generate(f, "train", 0, i) for i, f in enumerate(["stoich.t2", "stoich.byproduct", "mol.count", "mol.index"] * 2)]
    completions = [rlvr.oracle_completion(t) if i % 3 else "<answer>wrong</answer>" for i, t in enumerate(tasks)]
    hang_task = ('{"id": "test.hang:train:0:0:x", "family": "test.hang", "prompt": [], "ground_truth": {}, "meta": {}}')
    prompts = ["p"] * (len(tasks) + 3)
    all_completions = completions + ["loop", "sleep", "ok"]
    labels = list(tasks) + [hang_task] * 3

    fn = make_async_reward(workers=2, timeout=TIMEOUT, imports=[PLUGIN])
    stoich_only = make_async_reward(families="stoich.", workers=0, name="stoich_async")
    try:
        assert utils.is_async_callable(fn) and utils.get_callable_name(fn) == "chem_reward_async"
        assert utils.is_async_callable(stoich_only) and utils.get_callable_name(stoich_only) == "stoich_async"
        logged: dict = {}
        start = time.monotonic()
        out, stoich = call_like_grpo(loop, [fn, stoich_only], prompts[:len(tasks)], completions, columns(tasks, logged))
        assert out == make_reward()(prompts[:len(tasks)], completions, task_json=[t.to_json() for t in tasks])
        assert 0.0 < sum(out) < len(out)
        assert stoich == [r if t.family.startswith("stoich.") else None for r, t in zip(out, tasks)]
        assert logged["metric"]["chem_reward_async/acc"] == pytest.approx(sum(out) / len(out))

        logged = {}
        (out_hang,) = call_like_grpo(loop, [fn], prompts, all_completions, columns(labels, logged))
        assert out_hang == out + [0.0, 0.0, 1.0]
        assert logged["extra"]["chem_reward_async_reason"][-3:] == ["timeout", "timeout", "ok"]
        assert time.monotonic() - start < 120
    finally:
        fn.close()
        stoich_only.close()


def test_in_process_async_reward_times_out_a_python_hang(hang_in_process):
    label = rlvr.generate(hang_in_process.NAME).to_json()
    fn = make_async_reward(workers=0, timeout=0.3)
    logged: dict = {}
    start = time.monotonic()
    out = asyncio.run(fn(prompts=["p"] * 3, completions=["ok", "loop", "no"], **columns([label] * 3, logged)))
    assert out == [1.0, 0.0, 0.0]
    assert logged["extra"]["chem_reward_async_reason"] == ["ok", "timeout", "wrong_value"]
    assert time.monotonic() - start < 0.3 + 1.5
