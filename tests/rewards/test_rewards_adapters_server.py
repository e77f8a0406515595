"""The HTTP reward server (OpenRLHF /get_reward protocol) on 127.0.0.1 with good and malformed requests.

More (several workers, token, deadlines) in test_server_workers.py.
"""
from __future__ import annotations

import http.client
import json
import socket
import threading

import pytest

import rlvr
from rlvr.rewards.server import RewardServer, ServerConfig

LIMIT = 256 * 1024


@pytest.fixture(scope="module")
def server():
    srv = RewardServer(ServerConfig(host="127.0.0.1", port=0, max_body_bytes=LIMIT, max_items=64))
    thread = srv.start_background()
    yield srv
    srv.shutdown()
    srv.server_close()
    thread.join(timeout=10)


@pytest.fixture(scope="module")
def tasks():
    return [rlvr.generate(f, "train", 0, i) for i, f in enumerate(["stoich.t2", "stoich.byproduct", "mol.count", "mol.index"])]


def request(server, method: str, path: str, body: bytes | None = None, headers: dict | None = None):
    host, port = server.server_address[:2]
    conn = http.client.HTTPConnection(host, port, timeout=30)
    try:
        conn.request(method, path, body=body, headers=headers or {"Content-Type": "application/json"})
        resp = conn.getresponse()
        data = resp.read()
        return resp.status, json.loads(data) if data else None
    finally:
        conn.close()


def post(server, payload) -> tuple[int, dict]:
    body = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    return request(server, "POST", "/get_reward", body)


def test_binds_to_loopback_by_default():
    assert ServerConfig().host == "127.0.0.1"


def test_health(server):
    status, body = request(server, "GET", "/health")
    assert status == 200 and body["status"] == "ok" and body["max_body_bytes"] == LIMIT


def test_scores_match_verify(server, tasks):
    prompts = [f"<|user|>{t.user_text}<|assistant|>" for t in tasks]
    completions = [rlvr.oracle_completion(t) if i % 2 == 0 else "<answer>nothing</answer>" for i, t in enumerate(tasks)]
    payload = {"query": [p + c for p, c in zip(prompts, completions)], "prompts": prompts, "labels": [t.to_json() for t in tasks]}
    status, body = post(server, payload)
    assert status == 200
    expected = [rlvr.verify(t, c) for t, c in zip(tasks, completions)]
    assert body["rewards"] == [v.reward for v in expected] == [1.0, 0.0, 1.0, 0.0]
    assert body["scores"] == body["rewards"]
    assert body["extra_logs"]["acc"] == [float(v.correct) for v in expected]
    # labels may also be task records as JSON objects; prompts are optional
    status, body = post(server, {"query": completions, "labels": [t.to_dict() for t in tasks]})
    assert status == 200 and body["rewards"] == [1.0, 0.0, 1.0, 0.0]


def test_concurrent_requests(server, tasks):
    results = []

    def worker(i):
        t = tasks[i % len(tasks)]
        results.append(post(server, {"query": [rlvr.oracle_completion(t)], "labels": [t.to_json()]}))

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(timeout=60)
    assert len(results) == 8 and all(status == 200 and body["rewards"] == [1.0] for status, body in results)


@pytest.mark.parametrize(
    "payload,status,message",
    [
        (b"{not json", 400, "not valid JSON"),
        (b"\xff\xfe", 400, "not valid JSON"),
        ([1, 2], 422, "JSON object"),
        ({"query": "one string"}, 422, "`query` must be a list"),
        ({"query": ["a", 3], "labels": ["x", "y"]}, 422, "`query` must be a list of strings"),
        ({"query": ["a"]}, 422, "`labels`"),
        ({"query": ["a", "b"], "labels": ["x"]}, 422, "1 entries for 2 queries"),
        ({"query": ["a"], "prompts": ["p", "q"], "labels": ["x"]}, 422, "`prompts` has 2"),
        ({"query": ["a"], "labels": ["not a task"]}, 422, r"labels[0]"),
        ({"query": ["a"] * 65, "labels": ["x"] * 65}, 413, "limit is 64"),
    ],
)
def test_malformed_requests_get_clear_4xx(server, payload, status, message):
    got, body = post(server, payload)
    assert got == status and message in body["error"] and body["status"] == status


def test_oversized_body_is_refused(server, tasks):
    payload = json.dumps({"query": ["x" * (LIMIT + 10)], "labels": [tasks[0].to_json()]}).encode()
    status, body = post(server, payload)
    assert status == 413 and "exceeds the limit" in body["error"]


def test_wrong_path_method_and_content_type(server):
    assert request(server, "GET", "/nope")[0] == 404
    assert request(server, "POST", "/nope", b"{}")[0] == 404
    assert request(server, "GET", "/get_reward")[0] == 405
    assert request(server, "PUT", "/get_reward", b"{}")[0] == 405
    status, body = request(server, "POST", "/get_reward", b"query=a", {"Content-Type": "application/x-www-form-urlencoded"})
    assert status == 415


def test_missing_content_length_is_411(server):
    host, port = server.server_address[:2]
    with socket.create_connection((host, port), timeout=30) as sock:
        sock.sendall(b"POST /get_reward HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\r\n")
        data = b""
        while b"\r\n\r\n" not in data or not data.rstrip().endswith(b"}"):
            chunk = sock.recv(4096)
            if not chunk:
                break
            data += chunk
    assert data.startswith(b"HTTP/1.1 411") and b"Content-Length is required" in data


def test_cli_serve_rewards_starts_on_loopback_without_token_and_stops_on_interrupt(tasks):
    import os
    import re
    import signal
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k != "RLVR_REWARD_TOKEN"}
    proc = subprocess.Popen([sys.executable, "-m", "rlvr.cli", "serve-rewards", "--port", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        line = proc.stderr.readline()
        match = re.search(r"http://(127\.0\.0\.1):(\d+)", line)
        assert match, line
        assert "no token" in line and "warning" not in line
        conn = http.client.HTTPConnection(match.group(1), int(match.group(2)), timeout=120)
        conn.request("GET", "/health")
        resp = conn.getresponse()
        health = json.loads(resp.read())
        assert resp.status == 200 and health["status"] == "ok" and health["token_required"] is False
        t = tasks[0]
        conn.request("POST", "/get_reward", body=json.dumps({"query": [rlvr.oracle_completion(t)], "labels": [t.to_json()]}),
                     headers={"Content-Type": "application/json"})  # no Authorization header
        resp = conn.getresponse()
        assert resp.status == 200 and json.loads(resp.read())["rewards"] == [1.0]
        conn.close()
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            assert proc.wait(timeout=30) == 0
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            proc.stdout.close()
            proc.stderr.close()
