"""The reward server with several worker processes, a shared-secret token, and verdict deadlines (127.0.0.1 only)."""
from __future__ import annotations

import http.client
import json
import os
import re
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import rlvr
from rlvr.cli import main as cli_main
from rlvr.commands.serve_rewards import exposure_warning
from rlvr.rewards.server import RewardServer, ServerConfig

PLUGIN = str(Path(__file__).with_name("hang_family.py"))
TOKEN = "s3cret-token"
TIMEOUT = 0.5
SLACK = 1.5  # seconds allowed past a deadline on a slow, loaded machine
START_WAIT = 180  # seconds for a server (imports, RDKit) on a loaded machine


def request(port: int, method: str, path: str, body: bytes | None = None, headers: dict | None = None):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    try:
        conn.request(method, path, body=body, headers={"Content-Type": "application/json", **(headers or {})})
        resp = conn.getresponse()
        data = resp.read()
        return resp.status, json.loads(data) if data else None, dict(resp.getheaders())
    finally:
        conn.close()


def post(port: int, payload: dict, token: str | None = None):
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    status, body, _ = request(port, "POST", "/get_reward", json.dumps(payload).encode(), headers)
    return status, body


@pytest.fixture(scope="module")
def one():
    """One worker in this process (no token)."""
    srv = RewardServer(ServerConfig(host="127.0.0.1", port=0, timeout=TIMEOUT, imports=(PLUGIN,)))
    try:
        srv.start_background(wait=START_WAIT)
        yield srv.server_address[1]
    finally:
        srv.shutdown()
        srv.server_close()


@pytest.fixture(scope="module")
def two():
    """``rlvr serve-rewards --workers 2``, token from $RLVR_REWARD_TOKEN; killed in any case."""
    env = {**os.environ, "RLVR_REWARD_TOKEN": TOKEN}
    proc = subprocess.Popen([sys.executable, "-m", "rlvr.cli", "serve-rewards", "--port", "0", "--workers", "2",
                             "--timeout", str(TIMEOUT), "--plugin", PLUGIN],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
    try:
        line = proc.stderr.readline()
        match = re.search(r"http://127\.0\.0\.1:(\d+)", line)
        assert match, line
        assert "2 workers" in line and "token required" in line
        port = int(match.group(1))
        pids, deadline = set(), time.monotonic() + START_WAIT
        while len(pids) < 2:  # both workers up: fresh connections reach either
            assert time.monotonic() < deadline and proc.poll() is None, f"workers up: {pids}"
            status, body, _ = request(port, "GET", "/health")
            assert status == 200
            pids.add(body["pid"])
        yield port
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        proc.stderr.close()


@pytest.fixture(scope="module")
def batch():
    tasks = [rlvr.generate(f, "train", 0, i) for i, f in enumerate(["stoich.t2", "stoich.byproduct", "mol.count", "mol.index"] * 3)]
    prompts = [f"<|user|>{t.user_text}<|assistant|>" for t in tasks]
    completions = [rlvr.oracle_completion(t) if i % 3 else "<answer>wrong</answer>" for i, t in enumerate(tasks)]
    payload = {"query": [p + c for p, c in zip(prompts, completions)], "prompts": prompts, "labels": [t.to_json() for t in tasks]}
    return payload, [rlvr.verify(t, c).reward for t, c in zip(tasks, completions)]


def test_two_workers_answer_like_one(one, two, batch):
    payload, expected = batch
    status, reference = post(one, payload)
    assert status == 200 and reference["rewards"] == expected and 0.0 < sum(expected) < len(expected)
    with ThreadPoolExecutor(4) as pool:  # fresh connections, four at a time: both workers take some
        answers = list(pool.map(lambda _: post(two, payload, TOKEN), range(12)))
    assert all(status == 200 and body == reference for status, body in answers)
    # which worker accepts a connection is the kernel's choice (one idle worker may take a run of
    # them): ask concurrently until both have answered, within a bound
    seen, deadline = set(), time.monotonic() + 60
    while len(seen) < 2 and time.monotonic() < deadline:
        with ThreadPoolExecutor(4) as pool:
            seen.update(body["pid"] for _status, body, _ in pool.map(lambda _: request(two, "GET", "/health"), range(8)))
    assert len(seen) == 2


def test_a_token_is_required_when_configured(two, batch):
    payload, _ = batch
    status, body = post(two, payload)
    assert status == 401 and "Authorization: Bearer" in body["error"] and body["status"] == 401
    assert post(two, payload, "wrong")[0] == 401
    _, _, headers = request(two, "POST", "/get_reward", b"{}", {"Authorization": "Basic czNjcmV0"})
    assert headers.get("www-authenticate") == "Bearer"
    status, health, _ = request(two, "GET", "/health")  # liveness probes need no token
    assert status == 200 and health["token_required"] is True and health["timeout"] == TIMEOUT


def test_a_requests_client_as_older_openrlhf_sends_the_token_from_netrc(two, batch, tmp_path, monkeypatch):
    requests = pytest.importorskip("requests")
    netrc = tmp_path / "netrc"
    netrc.write_text(f"machine 127.0.0.1 login rlvr password {TOKEN}\n")
    netrc.chmod(0o600)
    monkeypatch.setenv("NETRC", str(netrc))
    payload, expected = batch
    # the call older OpenRLHF releases' remote reward client made with requests: JSON body, no headers of its
    # own (OpenRLHF 0.11's aiohttp client sends no credentials; tests/integrations/test_openrlhf.py drives it)
    response = requests.post(url=f"http://127.0.0.1:{two}/get_reward", json=payload,
                             headers={"Content-Type": "application/json"}, timeout=120)
    assert response.status_code == 200 and response.json()["rewards"] == expected
    monkeypatch.setenv("NETRC", str(tmp_path / "missing"))
    assert requests.post(url=f"http://127.0.0.1:{two}/get_reward", json=payload, timeout=120).status_code == 401


def test_the_default_needs_no_token(one, batch):
    payload, expected = batch
    status, body = post(one, payload)
    assert status == 200 and body["rewards"] == expected
    assert request(one, "GET", "/health")[1]["token_required"] is False


def hang_payload(completions: list[str]) -> dict:
    label = json.dumps({"id": "test.hang:train:0:0:x", "family": "test.hang", "prompt": [], "ground_truth": {}, "meta": {}})
    return {"query": completions, "labels": [label] * len(completions)}


@pytest.mark.parametrize("server", ["one", "two"])
def test_a_python_hang_times_out_within_the_deadline(server, request_fixture):
    port = request_fixture(server)
    start = time.monotonic()
    status, body = post(port, hang_payload(["ok", "loop", "ok"]), TOKEN)
    assert status == 200 and body["rewards"] == [1.0, 0.0, 1.0]
    assert body["extra_logs"]["answered"] == [1.0, 0.0, 1.0]  # a timeout is not an answer
    assert time.monotonic() - start < TIMEOUT + SLACK


def test_a_native_hang_or_crash_costs_the_scoring_process_not_the_batch(one):
    start = time.monotonic()
    status, body = post(one, hang_payload(["ok", "sleep", "ok", "crash", "ok"]))
    elapsed = time.monotonic() - start
    assert status == 200 and body["rewards"] == [1.0, 0.0, 1.0, 0.0, 1.0]
    assert elapsed < 60  # deadline + grace + two restarts, on a loaded machine
    status, body = post(one, hang_payload(["ok", "no"]))  # the replacement serves on
    assert status == 200 and body["rewards"] == [1.0, 0.0]


@pytest.fixture
def request_fixture(request):
    return request.getfixturevalue


@pytest.mark.parametrize("argv,message", [
    (["--workers", "0"], "--workers must be at least 1"),
    (["--timeout", "soon"], "--timeout"),
    (["--plugin", "/nonexistent/families.py"], "does not exist"),
    (["--plugin", "no_such_module_xyz"], "cannot be imported"),
    (["--port", "70000"], "--port"),
])
def test_cli_mistakes_are_one_line_and_exit_2(argv, message, capsys):
    assert cli_main(["serve-rewards", *argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0]


def test_exposure_warning_only_beyond_loopback_without_token():
    assert exposure_warning(ServerConfig()) is None
    assert exposure_warning(ServerConfig(host="::1")) is None
    assert "without a token" in exposure_warning(ServerConfig(host="0.0.0.0"))
    assert exposure_warning(ServerConfig(host="0.0.0.0", token="t")) is None
