"""One set of completions scores the same through every adapter: rlvr.verify's reward, bit for bit.

The completions of each task: its worked solution (right), another task's (wrong), malformed ones
(prose, unclosed and empty answer blocks) and a slice of the hostile corpus that every checker must
survive (runaway numbers, deep nesting, 100,000-character answers, odd code points, repeated and
unclosed ``<think>``/``<answer>`` tags). Each adapter gets them the way its framework hands them over:
TRL's reward functions (conversational completions), verl's ``compute_score`` and
``compute_score_batch``, OpenRLHF's ``reward_func`` (prompt + response queries) and ``rlvr
serve-rewards``' application (``/get_reward``), the verifiers taskset (scored traces), the Gymnasium
environment (``step``), reasoning-gym (``score_answer`` on its entries), SkyRL-gym (``step``), Atropos
(``score`` of a group) and NeMo-Gym (``/verify`` in its own environment).
"""
from __future__ import annotations

import asyncio
import json

import pytest

for _module in ("trl", "verifiers", "reasoning_gym", "skyrl_gym", "atroposlib"):
    pytest.importorskip(_module, reason=f"{_module} is not installed (bash scripts/install.sh --dev installs it)")

import reasoning_gym
import skyrl_gym
from atroposlib.envs.base import APIServerConfig
from starlette.testclient import TestClient

import rlvr
from rlvr.datasets import build_dataset
from rlvr.envs import ChemEnv
from rlvr.envs.episode import prompt_text
from rlvr.export import verl_row
from rlvr.families.hostile import hostile_completions
from rlvr.integrations.atropos import ChemAtroposConfig, ChemAtroposEnv, item_of
from rlvr.integrations.nemo_gym_data import sample_row
from rlvr.integrations.reasoning_gym import dataset_name
from rlvr.integrations.skyrl_gym import ENV_ID
from rlvr.integrations.verifiers_env import ChemTask, ChemTaskConfig, task_data
from rlvr.rewards import chem_reward
from rlvr.rewards.openrlhf import reward_func
from rlvr.rewards.server import ServerConfig
from rlvr.rewards.server.app import create_app
from rlvr.rewards.verl import compute_score, compute_score_batch
from rlvr.task import Task

MALFORMED = ("I am not sure, maybe 3.", "<answer>", "<answer>{1}H2O", "<answer></answer>", "</answer>1<answer>")


def _utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: no JSON body or HTTP framework can carry it
        return False
    return True


def hostile() -> list[str]:
    corpus = [c for c in hostile_completions() if _utf8(c)]
    return list(dict.fromkeys(corpus[::16] + [c for c in corpus if "think" in c]))


@pytest.fixture(scope="module")
def tasks(mix) -> list[Task]:
    return [Task.from_json(t) for t in build_dataset(mix, n=4, split="train", seed=0)["task_json"]]


@pytest.fixture(scope="module")
def pairs(tasks) -> list[tuple[Task, str]]:
    out = []
    for i, task in enumerate(tasks):
        other = next(t for t in tasks[i + 1:] + tasks[:i] if t.family == task.family)
        for text in (rlvr.oracle_completion(task), rlvr.oracle_completion(other), *MALFORMED, *hostile()):
            out.append((task, text))
    return out


@pytest.fixture(scope="module")
def expected(pairs) -> list[float]:
    rewards = [float(rlvr.verify(task, text).reward) for task, text in pairs]
    assert {0.0, 1.0} <= set(rewards)
    return rewards


def trl(pairs, request):
    prompts = [t.prompt for t, _ in pairs]
    completions = [[{"role": "assistant", "content": text}] for _, text in pairs]
    return chem_reward(prompts, completions, task_json=[t.to_json() for t, _ in pairs])


def verl(pairs, request):
    rows = [verl_row(t, 0) for t, _ in pairs]
    one = [compute_score(r["data_source"], text, r["reward_model"]["ground_truth"], r["extra_info"])["score"]
           for r, (_, text) in zip(rows, pairs)]
    batch = compute_score_batch([r["data_source"] for r in rows], [text for _, text in pairs],
                                [r["reward_model"]["ground_truth"] for r in rows], [r["extra_info"] for r in rows])
    assert [b["score"] for b in batch] == one
    return one


def openrlhf(pairs, request):
    prompts = [prompt_text(t) for t, _ in pairs]
    out = reward_func([p + text for p, (_, text) in zip(prompts, pairs)], prompts, [t.to_json() for t, _ in pairs])
    return out["rewards"].tolist()


def reward_server(pairs, request):
    prompts = [prompt_text(t) for t, _ in pairs]
    body = {"query": [p + text for p, (_, text) in zip(prompts, pairs)], "prompts": prompts,
            "labels": [t.to_json() for t, _ in pairs]}
    with TestClient(create_app(ServerConfig())) as client:
        reply = client.post("/get_reward", json=body)
    assert reply.status_code == 200, reply.text[:500]
    return reply.json()["rewards"]


def verifiers(pairs, request):
    trace = request.getfixturevalue("verifiers_trace")
    rewards = []
    for task, text in pairs:
        chem = ChemTask(task_data(task), ChemTaskConfig())
        scored = trace(chem, text)
        asyncio.run(chem.score(scored))
        rewards.append(scored.reward)
    return rewards


def gymnasium(pairs, request):
    env = ChemEnv("stoich.t2,mol.count")
    rewards = []
    for task, text in pairs:
        env.reset(options={"task": task.to_dict()})
        rewards.append(env.step(text)[1])
    return rewards


def reasoning_gym_(pairs, request):
    datasets = {}
    rewards = []
    for task, text in pairs:
        if task.family not in datasets:
            datasets[task.family] = reasoning_gym.create_dataset(dataset_name(task.family), size=8, seed=0, split="train")
        entry = datasets[task.family][int(task.meta["index"])]
        assert entry["metadata"]["task_id"] == task.id
        rewards.append(datasets[task.family].score_answer(text, entry))
    return rewards


def skyrl(pairs, request):
    return [skyrl_gym.make(ENV_ID, extras={"extra_info": {"task_json": task.to_json()}}).step(text)["reward"]
            for task, text in pairs]


def atropos(pairs, request):
    config = ChemAtroposConfig(tokenizer_name=request.getfixturevalue("tokenizer_dir"), use_wandb=False)
    env = ChemAtroposEnv(config, [APIServerConfig(model_name="none", base_url="http://127.0.0.1:9/v1",
                                                  api_key="x", health_check=False)])
    rollouts = [{"messages": [*item_of(task)["messages"], {"role": "assistant", "content": text}],
                 "task_json": task.to_json(), "finish_reason": "stop"} for task, text in pairs]
    groups = {}
    for rollout in rollouts:  # one group per task, as Atropos scores a prompt's completions together
        groups.setdefault(rollout["task_json"], []).append(rollout)
    scores = {}
    for task_json, group in groups.items():
        scores[task_json] = iter(asyncio.run(env.score(group))["scores"])
    return [next(scores[r["task_json"]]) for r in rollouts]


def nemo_gym(pairs, request):
    run = request.getfixturevalue("nemo_gym")
    samples, index = [], {}
    for task, _ in pairs:
        if task.id not in index:
            index[task.id] = len(samples)
            samples.append(sample_row(task, len(samples)))
    result = run({"configs": [], "samples": samples, "responses": [[index[t.id], text] for t, text in pairs]})
    assert {r["status"] for r in result["verify"]} == {200}
    return [r["body"]["reward"] for r in result["verify"]]


ADAPTERS = [trl, verl, openrlhf, reward_server, verifiers, gymnasium, reasoning_gym_, skyrl, atropos, nemo_gym]


def test_the_set_holds_every_kind_of_completion(pairs):
    texts = {text for _, text in pairs}
    assert set(MALFORMED) <= texts and any(len(t) >= 100_000 for t in texts) and any("<think>" in t for t in texts)
    assert any("\ufeff" in t for t in texts) and len(pairs) >= 4 * 20


@pytest.mark.parametrize("adapter", ADAPTERS, ids=[a.__name__.rstrip("_") for a in ADAPTERS])
def test_every_adapter_gives_rlvr_verifys_rewards(adapter, pairs, expected, request):
    rewards = [float(r) for r in adapter(pairs, request)]
    mismatches = [(task.id, text[:80], got, want) for (task, text), got, want in zip(pairs, rewards, expected)
                  if got != want]
    assert len(rewards) == len(expected) and not mismatches, json.dumps(mismatches[:5])
