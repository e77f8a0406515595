"""verifiers 0.4 loads the rlvr-chem-env taskset by id and scores replies with its own scoring code.

Replies are recorded on verifiers ``Trace`` objects (a user node and a sampled assistant node, as a
rollout leaves them) and scored by ``Task.score``, which runs the task's ``@vf.reward`` and
``@vf.metric`` hooks; ``vf-validate`` runs its model-free gold and noop checks from the command line.
"""
from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

vf = pytest.importorskip("verifiers.v1", reason="verifiers is not installed (bash scripts/install.sh --dev installs it)")
pytest.importorskip("rlvr_chem_env", reason="the environment package is not installed: "
                                            "pip install -e environments/rlvr_chem_env (scripts/install.sh --dev does)")

import rlvr
from rlvr.datasets import build_dataset
from rlvr.integrations.verifiers_env import TASKSET_ID, ChemTask, ChemTaskset


def _taskset(**options):
    """The taskset as verifiers resolves it from its id (what vf-eval and vf-validate do)."""
    config = vf.resolve_env_config({"taskset": {"id": TASKSET_ID, **options}})
    return vf.load_taskset(config.taskset)


@pytest.fixture
def score(verifiers_trace):
    """``score(task, reply)``: the scored trace (``Task.score`` runs the rubric)."""
    def run(task: ChemTask, reply: str) -> vf.Trace:
        trace = verifiers_trace(task, reply)
        asyncio.run(task.score(trace))
        return trace

    return run


def test_taskset_resolves_by_id_and_is_unlimited(mix):
    taskset = _taskset(mix=mix, split="train", seed=3)
    assert isinstance(taskset, ChemTaskset) and not taskset.bounded
    env = vf.load_environment(vf.resolve_env_config({"taskset": {"id": TASKSET_ID, "mix": mix}}))
    assert type(env).__name__ == "SingleAgentEnv" and isinstance(env.taskset, ChemTaskset)
    first = list(taskset.take(6))
    rows = build_dataset(mix, n=6, split="train", seed=3)  # the same lazily generated rows
    assert [t.key for t in first] == rows["id"] and [t.data.idx for t in first] == list(range(6))
    task = first[0]
    assert task.data.prompt == rlvr.Task.from_json(rows["task_json"][0]).user_text
    assert json.dumps(task.rlvr_task.ground_truth) not in task.data.prompt_text
    assert _taskset(mix=mix, num_tasks=3).bounded and len(list(_taskset(mix=mix, num_tasks=3))) == 3
    with pytest.raises(ValueError, match="unknown task family 'no_such_family'"):
        _taskset(mix="no_such_family")


def test_rubric_scores_right_one_wrong_zero(mix, answers, score):
    tasks = list(_taskset(mix=mix, seed=1).take(6))
    responses = answers([t.rlvr_task for t in tasks])
    by_id = {t.key: t for t in tasks}
    rewards = []
    for answer in responses:
        trace = score(by_id[answer.task.id], answer.text)
        assert set(trace.rewards) == {"correct"} and trace.metrics["answered"] in (0.0, 1.0)
        assert trace.rewards["correct"].weight == 1.0
        rewards.append(trace.reward)
    assert rewards == [a.reward for a in responses]
    assert set(rewards) == {0.0, 1.0}  # a right reply scores 1.0, a wrong one 0.0
    assert score(tasks[0], "").reward == 0.0 and score(tasks[0], "").metrics["answered"] == 0.0


def test_episode_stops_after_one_reply(verifiers_trace):
    """The task's stop hook, as a rollout binds it (a Trace predicate), ends the episode after one turn."""
    from verifiers.v1.rollout import hook_boundary

    task = next(iter(_taskset(mix="mol.count")))
    (stop,) = task.hooks("stop")
    assert hook_boundary(stop, allow_trace=True) is vf.Trace
    answered = verifiers_trace(task, rlvr.oracle_completion(task.rlvr_task))
    unanswered = verifiers_trace(task, "x")
    unanswered.nodes.pop()
    assert asyncio.run(stop(answered)) is True and asyncio.run(stop(unanswered)) is False


def test_reward_mode_gives_partial_credit(score):
    """``task.reward_mode=f1``: an answer missing one product species earns partial credit, not 0."""
    strict = list(_taskset(mix="stoich.t2", seed=2).take(4))
    shaped = list(_taskset(mix="stoich.t2", seed=2, task={"reward_mode": "f1"}).take(4))
    for plain, f1 in zip(strict, shaped):
        solution = rlvr.oracle_completion(plain.rlvr_task)
        body = solution[solution.index("<answer>") + len("<answer>"):solution.index("</answer>")]
        species = body.split(".")
        assert len(species) > 1, body
        partial = "<answer>" + ".".join(species[:-1]) + "</answer>"
        assert score(plain, partial).reward == 0.0
        assert 0.0 < score(f1, partial).reward < 1.0
        assert score(f1, solution).reward == 1.0


def test_gold_check_passes_for_every_family():
    for family in ("stoich.t1", "stoich.t2", "stoich.balance", "stoich.byproduct", "mol.count", "mol.index", "mol.gen"):
        task = next(iter(_taskset(mix=family)))
        assert asyncio.run(task.validate(None)) is True, family


@pytest.mark.slow
def test_vf_validate_command(tmp_path, mix):
    """verifiers' own CLI: every task's gold answer earns 1 and an untouched trace does not."""
    exe = shutil.which("vf-validate", path=str(Path(sys.executable).parent)) or shutil.which("vf-validate")
    assert exe, "verifiers installs the vf-validate command"
    out = tmp_path / "runs"
    proc = subprocess.run([exe, TASKSET_ID, "-n", "4", "--runtime.type", "subprocess", "--rich", "false",
                           "-o", str(out), "--taskset.mix", mix],
                          capture_output=True, text=True, timeout=300, check=False,
                          env={**os.environ, "NO_COLOR": "1"})
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    (summary_path,) = out.glob("*/summary.json")
    summary = json.loads(summary_path.read_text())
    assert summary["outcomes"]["valid"] == 4 and summary["checks"]["gold"]["valid"] == 4
    rows = [json.loads(line) for line in (summary_path.parent / "results.jsonl").read_text().splitlines()]
    assert sorted(r["noop"]["rewards"]["correct"] for r in rows) == [0.0] * 4
    assert {r["name"].split(":")[0] for r in rows} == set(mix.split(","))
