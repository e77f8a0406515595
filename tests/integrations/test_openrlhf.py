"""OpenRLHF 0.11 gets rlvr rewards through its own reward client: over HTTP and from a reward_func file.

The prompts come from OpenRLHF's own data path (``blending_datasets`` + ``PromptDataset`` with
``--data.input_key prompt --data.label_key task_json --data.apply_chat_template``) on a parquet
written by ``rlvr export``. Each sample goes through ``SingleTurnAgentExecutor.execute``, the code a
vLLM rollout worker runs: it tokenizes the prompt, takes the engine's response tokens, decodes
``prompt + response`` as the query and fetches the reward from ``--reward.remote_url``. The engine
here replays fixed responses (right, wrong, unreadable) instead of sampling them.
"""
from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from types import SimpleNamespace

import pytest

pytest.importorskip("openrlhf", reason="OpenRLHF is not installed (bash scripts/install.sh --dev installs it)")

from openrlhf.datasets import PromptDataset
from openrlhf.datasets.utils import blending_datasets
from openrlhf.utils.agent import SingleTurnAgentExecutor

import rlvr.rewards.openrlhf as rlvr_openrlhf
from rlvr.cli import main as rlvr_main
from rlvr.task import Task


@dataclass
class SamplingParams:
    """The two fields of vLLM's SamplingParams the executor reads."""

    max_tokens: int | None = 128
    logprobs: int | None = None


class ReplayEngine:
    """Stands in for the vLLM engine: answers each prompt with the next queued response's tokens."""

    def __init__(self, tokenizer, responses: list[str]) -> None:
        eos = tokenizer.eos_token
        self._queue = [tokenizer(text + eos, add_special_tokens=False)["input_ids"] for text in responses]

    async def generate(self, prompt_token_ids, sampling_params, multi_modal_data=None):
        ids = self._queue.pop(0)
        return SimpleNamespace(outputs=[SimpleNamespace(token_ids=ids, finish_reason="stop", logprobs=None)])


class _Strategy:
    """The slice of OpenRLHF's DeepSpeed strategy its dataset code reads (arguments, rank-0 printing)."""

    def __init__(self) -> None:
        data = SimpleNamespace(input_key="prompt", label_key="task_json", apply_chat_template=True,
                               image_key="images")
        self.args = SimpleNamespace(data=data, use_ms=False)

    def print(self, *args) -> None:
        pass

    def is_rank_0(self) -> bool:
        return True


@pytest.fixture(scope="module")
def samples(tmp_path_factory, tokenizer, mix, answers):
    """(prompts, labels, responses, expected rewards) from OpenRLHF's PromptDataset, three responses per prompt."""
    out = tmp_path_factory.mktemp("openrlhf") / "train.parquet"
    assert rlvr_main(["export", "--family", mix, "--split", "train", "-n", "6", "--format", "parquet",
                      "--out", str(out)]) == 0
    strategy = _Strategy()
    dataset = PromptDataset(blending_datasets(str(out), None, strategy), tokenizer, strategy)
    tasks = [Task.from_json(label) for label in dataset.labels]
    prompts, labels, responses, expected = [], [], [], []
    for answer in answers(tasks):
        i = tasks.index(answer.task)
        assert dataset.prompts[i].endswith("<|im_start|>assistant\n")  # the chat template was applied
        prompts.append(dataset.prompts[i])
        labels.append(dataset.labels[i])
        responses.append(answer.text)
        expected.append(answer.reward)
    return prompts, labels, responses, expected


def _execute_all(executor, tokenizer, prompts, labels, responses) -> list[dict]:
    engine = ReplayEngine(tokenizer, responses)

    async def run() -> list[dict]:
        return [await executor.execute(p, label, SamplingParams(), 2048, tokenizer, engine)
                for p, label in zip(prompts, labels)]

    return asyncio.run(run())


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def reward_server():
    """``rlvr serve-rewards --port P`` as a subprocess; yields its /get_reward URL."""
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "rlvr.cli", "serve-rewards", "--port", str(port)],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            if proc.poll() is not None:
                pytest.fail(f"rlvr serve-rewards exited with {proc.returncode}: {proc.stdout.read()}")
            try:
                with urllib.request.urlopen(base + "/health", timeout=2) as response:
                    if response.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                pytest.fail("rlvr serve-rewards did not answer /health within 120 s")
            time.sleep(0.5)
        yield base + "/get_reward"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _check(outputs: list[dict], expected: list[float]) -> None:
    """Each output's reward, score and acc (a one-item list over HTTP, a tensor from a file) match verify."""
    rewards = [float(o["reward"][0]) for o in outputs]
    assert rewards == expected and len(set(rewards)) > 1
    assert [float(o["scores"][0]) for o in outputs] == expected
    assert [float(o["extra_logs"]["acc"][0]) for o in outputs] == [float(r == 1.0) for r in expected]


def test_remote_reward_server_through_openrlhf_client(samples, tokenizer, reward_server):
    prompts, labels, responses, expected = samples
    executor = SingleTurnAgentExecutor(remote_rm_url=[reward_server])
    assert executor.reward_func is None  # the HTTP client, not the file loader
    _check(_execute_all(executor, tokenizer, prompts, labels, responses), expected)


def test_batched_requests_sharded_over_two_endpoints(samples, tokenizer, reward_server):
    """OpenRLHF splits a batch across its --reward.remote_url list; both shards reach the server."""
    prompts, labels, responses, expected = samples
    executor = SingleTurnAgentExecutor(remote_rm_url=[reward_server, reward_server])
    queries = [p + r + tokenizer.eos_token for p, r in zip(prompts, responses)]
    shards = asyncio.run(executor._fetch_rewards_via_http(queries, prompts, labels))
    assert len(shards) == 2
    rewards = [r for shard in shards for r in shard["rewards"]]
    assert rewards == expected and len(set(rewards)) > 1


def test_reward_func_file_loaded_by_openrlhf(samples, tokenizer):
    prompts, labels, responses, expected = samples
    executor = SingleTurnAgentExecutor(remote_rm_url=rlvr_openrlhf.__file__)
    assert executor.reward_func is not None and executor.reward_func.__module__ == "reward_func"
    outputs = _execute_all(executor, tokenizer, prompts, labels, responses)
    assert all(o["reward"].shape == (1,) for o in outputs)  # tensors, as OpenRLHF's experience maker stacks them
    _check(outputs, expected)


def test_grpo_recipe_uses_only_flags_openrlhf_defines():
    """Every --flag of recipes/openrlhf/grpo.sh is one train_ppo_ray's argument parser declares."""
    import importlib.util
    import re
    from pathlib import Path

    source = Path(importlib.util.find_spec("openrlhf").submodule_search_locations[0], "cli", "train_ppo_ray.py")
    text = source.read_text()
    declared = set(re.findall(r'add_argument\(\s*"(--[\w.]+)"', text))
    for prefix in ("actor", "critic"):  # flags declared as f"--{prefix}...."
        declared |= {f"--{prefix}{rest}" for rest in re.findall(r'add_argument\(\s*f"--\{prefix\}([\w.]+)"', text)}
    recipe = Path(__file__).resolve().parents[2] / "recipes" / "openrlhf" / "grpo.sh"
    command = recipe.read_text().split("openrlhf.cli.train_ppo_ray", 1)[1]
    used = set(re.findall(r"(?<![\w-])(--[\w.]+)", command))
    assert {"--reward.remote_url", "--data.label_key", "--data.input_key", "--data.apply_chat_template"} <= used
    assert used <= declared, sorted(used - declared)
