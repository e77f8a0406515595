"""Atropos (atroposlib 0.4) runs rlvr's environment: setup, items, scoring, rollouts from a server, evaluation.

The environment is ``BaseEnv``'s subclass as Atropos builds it (its ``ServerManager`` and
``OpenAIServer``, the tokenizer named by ``tokenizer_name``: the embedded model's local folder). Rollouts
come from a real OpenAI-compatible HTTP server on 127.0.0.1 started by this module, which answers each
chat completion request with canned completions for the prompt's task (right, wrong, prose) and stops
after the module's tests.
"""
from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

pytest.importorskip("atroposlib", reason="atroposlib is not installed (bash scripts/install.sh --dev installs it)")

from atroposlib.envs.base import APIServerConfig, BaseEnv

import rlvr
from rlvr.datasets import Mixture
from rlvr.integrations.atropos import ChemAtroposConfig, ChemAtroposEnv, item_of

GROUP = 3


class CannedCompletions(ThreadingHTTPServer):
    """``POST /v1/chat/completions``: the completions queued for the request's last user message."""

    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.canned: dict[str, list[str]] = {}
        self.requests: list[dict] = []

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


class _Handler(BaseHTTPRequestHandler):
    server: CannedCompletions

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.requests.append(body)
        user = [m["content"] for m in body["messages"] if m["role"] == "user"][-1]
        texts = self.server.canned.get(user, ["no canned answer"])[: int(body.get("n") or 1)]
        reply = json.dumps({
            "id": "chatcmpl-0", "object": "chat.completion", "created": 0, "model": body["model"],
            "choices": [{"index": i, "message": {"role": "assistant", "content": t}, "finish_reason": "stop"}
                        for i, t in enumerate(texts)],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)

    def log_message(self, *args) -> None:
        pass


@pytest.fixture(scope="module")
def server():
    httpd = CannedCompletions()
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield httpd
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=10)


@pytest.fixture
def env(server, tokenizer_dir, mix, tmp_path):
    config = ChemAtroposConfig(tokenizer_name=tokenizer_dir, group_size=GROUP, use_wandb=False, mix=mix, task_seed=4,
                               eval_split="train", eval_size=2, max_token_length=256,
                               data_dir_to_save_evals=str(tmp_path / "evals"))
    servers = [APIServerConfig(model_name="canned", base_url=server.base_url, api_key="x", health_check=False,
                               timeout=30)]
    return ChemAtroposEnv(config, servers)


def _canned(server: CannedCompletions, task: rlvr.Task, other: rlvr.Task) -> list[str]:
    texts = [rlvr.oracle_completion(task), rlvr.oracle_completion(other), "I am not sure, maybe 3."]
    server.canned[task.user_text] = texts
    return texts


def test_setup_and_items_follow_the_mixture(env, mix):
    assert isinstance(env, BaseEnv) and env.name == "rlvr_chem"
    asyncio.run(env.setup())
    items = [asyncio.run(env.get_next_item()) for _ in range(4)]
    mixture = Mixture(mix, "train", 4)
    assert [i["id"] for i in items] == [mixture.task_at(k).id for k in range(4)] and env.iter == 4
    assert items[0]["messages"] == [dict(m) for m in mixture.task_at(0).prompt]
    assert len(env.eval_items) == 2
    with pytest.raises(KeyError, match="no_such_family"):
        ChemAtroposEnv(env.config.model_copy(update={"mix": "no_such_family"}), [env.server.servers[0].config])


def test_score_gives_rlvr_rewards_with_masked_prompts(env, answers):
    tasks = [Mixture("stoich.t2,mol.count", "train", 1).task_at(k) for k in range(6)]
    responses = answers(tasks)
    rollouts = [{"messages": [*item_of(a.task)["messages"], {"role": "assistant", "content": a.text}],
                 "task_json": a.task.to_json(), "finish_reason": "stop"} for a in responses]
    group = asyncio.run(env.score(rollouts))
    assert group["scores"] == [a.reward for a in responses]
    for tokens, masks, answer in zip(group["tokens"], group["masks"], responses):
        assert len(tokens) == len(masks)
        trained = [t for t in masks if t != -100]
        assert trained and len(trained) < len(tokens)  # the prompt is masked, the completion is not
        assert answer.text.strip()[-9:] in env.tokenizer.decode(trained)
    assert asyncio.run(env.score([])) is None


def test_collect_trajectories_from_an_openai_compatible_server(env, server):
    asyncio.run(env.setup())
    item = asyncio.run(env.get_next_item())
    task = rlvr.Task.from_json(item["task_json"])
    other = next(t for t in (env.mixture.task_at(k) for k in range(1, 20)) if t.family == task.family)
    texts = _canned(server, task, other)
    group, backlog = asyncio.run(env.collect_trajectories(item))
    assert backlog == [] and server.requests[-1]["n"] == GROUP
    assert group["scores"] == [float(rlvr.verify(task, t).reward) for t in texts]
    assert group["scores"][0] == 1.0 and group["scores"][2] == 0.0
    assert [m[-1]["content"] for m in group["messages"]] == texts


def test_evaluate_scores_greedy_answers(env, server, tmp_path):
    asyncio.run(env.setup())
    for item in env.eval_items:
        task = rlvr.Task.from_json(item["task_json"])
        server.canned[task.user_text] = [rlvr.oracle_completion(task)]
    asyncio.run(env.evaluate())
    assert server.requests[-1]["temperature"] == 0.0 and server.requests[-1]["n"] == 1
    metrics = json.loads(next((tmp_path / "evals").glob("metrics.json")).read_text())
    assert json.dumps(metrics).count("eval/mean_reward") >= 1 and "1.0" in json.dumps(metrics)


def test_process_command_writes_scored_groups(server, tokenizer_dir, tmp_path):
    """``python -m rlvr.integrations.atropos process``: Atropos's own CLI, config merging and group writer."""
    task, other = (Mixture("stoich.t2", "train", 9).task_at(k) for k in range(2))
    texts = _canned(server, task, other)
    out = tmp_path / "groups.jsonl"
    argv = [sys.executable, "-m", "rlvr.integrations.atropos", "process", "--env.mix", "stoich.t2",
            "--env.task_seed", "9", "--env.group_size", str(GROUP), "--env.total_steps", "1",
            "--env.use_wandb", "false", "--env.tokenizer_name", tokenizer_dir,
            "--env.data_path_to_save_groups", str(out), "--openai.base_url", server.base_url,
            "--openai.model_name", "canned", "--openai.api_key", "x", "--openai.health_check", "false"]
    proc = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, timeout=240)
    assert proc.returncode == 0, proc.stderr[-3000:]
    (group,) = [json.loads(line) for line in out.read_text().splitlines()]
    assert group["scores"] == [float(rlvr.verify(task, t).reward) for t in texts] == [1.0, 0.0, 0.0]
    assert [m[-1]["content"] for m in group["messages"]] == texts
