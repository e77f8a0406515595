"""``rlvr serve-rewards`` under bounded loopback load: completions/s and latency at a given worker count.

The server is started as the user starts it (``rlvr serve-rewards --host 127.0.0.1 --port 0 --workers
N``), waited for until every worker answers ``/health``, warmed up, then loaded by ``clients`` threads,
each opening a new connection per request (as OpenRLHF's client does) and stopping after ``duration``
seconds or ``max_requests`` requests. A request holds ``batch`` completions, ``group`` per prompt (a GRPO
group: the oracle answer and the same answer written otherwise, all rewarded 1.0, which every response
is checked for). The server is always stopped (Ctrl-C, then kill).
"""
from __future__ import annotations

import http.client
import json
import re
import signal
import statistics
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from typing import Any, Sequence

from rlvr.bench.verdicts import Case, variant

HOST = "127.0.0.1"
#: first index of the tasks the request bodies carry (apart from the verdict benchmark's)
BODY_INDEX = 500_000


@dataclass(frozen=True)
class LoadSettings:
    """How hard and how long the server is loaded."""

    duration: float = 10.0
    clients: int = 4
    batch: int = 64
    group: int = 8
    bodies: int = 8
    max_requests: int = 2000
    start_timeout: float = 120.0


def build_bodies(cases: list[Case], settings: LoadSettings) -> list[bytes]:
    """``settings.bodies`` request bodies of ``batch`` completions, ``group`` per prompt, prompts over ``cases``."""
    import rlvr

    prompts_per_body = max(1, settings.batch // settings.group)
    bodies, index = [], BODY_INDEX
    for b in range(settings.bodies):
        queries, labels = [], []
        for p in range(prompts_per_body):
            case = cases[(b * prompts_per_body + p) % len(cases)]
            task = rlvr.generate(case.family, "train", 0, index, **case.options)
            index += 1
            oracle = rlvr.oracle_completion(task)
            for g in range(settings.group):
                queries.append(oracle if g % 2 == 0 else variant(oracle))
                labels.append(task.to_json())
        bodies.append(json.dumps({"query": queries[:settings.batch], "labels": labels[:settings.batch]}).encode())
    return bodies


def _post(port: int, body: bytes) -> list[float]:
    conn = http.client.HTTPConnection(HOST, port, timeout=120)
    try:
        conn.request("POST", "/get_reward", body=body, headers={"Content-Type": "application/json"})
        response = conn.getresponse()
        data = response.read()
    finally:
        conn.close()
    if response.status != 200:
        raise RuntimeError(f"the reward server answered HTTP {response.status}: {data[:200]!r}")
    return json.loads(data)["rewards"]


def start(workers: int, timeout: float, plugins: Sequence[str] = ()) -> tuple[subprocess.Popen, int]:
    """``rlvr serve-rewards`` on a free loopback port (with each ``--plugin`` of ``plugins``); returns once all
    ``workers`` answer ``/health``."""
    command = [sys.executable, "-m", "rlvr.cli", "serve-rewards", "--host", HOST, "--port", "0",
               "--workers", str(workers), *[a for spec in plugins for a in ("--plugin", spec)]]
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    line = proc.stderr.readline() if proc.stderr else ""
    match = re.search(r"http://127\.0\.0\.1:(\d+)", line)
    if not match:
        stop(proc)
        raise RuntimeError(f"rlvr serve-rewards did not start: {line.strip() or 'no output'}")
    port, pids = int(match.group(1)), set()
    deadline = time.monotonic() + timeout
    while len(pids) < workers:  # a fresh connection may land on any worker
        if time.monotonic() > deadline or proc.poll() is not None:
            stop(proc)
            raise RuntimeError(f"{len(pids)} of {workers} reward workers answered within {timeout:g} s")
        conn = http.client.HTTPConnection(HOST, port, timeout=timeout)
        try:
            conn.request("GET", "/health")
            pids.add(json.loads(conn.getresponse().read())["pid"])
        except OSError:
            time.sleep(0.1)
        finally:
            conn.close()
    return proc, port


def stop(proc: subprocess.Popen) -> None:
    """Ctrl-C, then kill after 30 s."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    if proc.stderr:
        proc.stderr.close()


def _client(port: int, bodies: list[bytes], offset: int, stop_at: float, max_requests: int,
            latencies: list[float], errors: list[str]) -> None:
    try:
        for i in range(max_requests):
            if time.monotonic() >= stop_at:
                return
            body = bodies[(offset + i) % len(bodies)]
            t0 = time.perf_counter()
            rewards = _post(port, body)
            latencies.append(time.perf_counter() - t0)
            if not rewards or min(rewards) != 1.0:
                raise RuntimeError("a correct completion was rewarded below 1.0")
    except Exception as exc:  # noqa: BLE001 - reported by the caller, which stops the server
        errors.append(f"{type(exc).__name__}: {exc}")


def measure(workers: int, bodies: list[bytes], settings: LoadSettings, plugins: Sequence[str] = ()) -> dict[str, Any]:
    """Completions/s and p50/p99 request latency of ``workers`` reward workers."""
    proc, port = start(workers, settings.start_timeout, plugins)
    try:
        for body in bodies[: max(2 * workers, 1)]:  # warm-up: imports, first verdicts on each worker
            _post(port, body)
        per_client: list[list[float]] = [[] for _ in range(settings.clients)]
        errors: list[str] = []
        begin = time.monotonic()
        threads = [threading.Thread(target=_client, args=(port, bodies, c, begin + settings.duration,
                                                          settings.max_requests, per_client[c], errors))
                   for c in range(settings.clients)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        wall = time.monotonic() - begin
    finally:
        stop(proc)
    if errors:
        raise RuntimeError(errors[0])
    latencies = sorted(x for client in per_client for x in client)
    if not latencies:
        raise RuntimeError("no request finished; raise --duration")
    samples = len(latencies) * _batch_size(bodies[0])
    return {
        "workers": workers,
        "requests": len(latencies),
        "seconds": round(wall, 2),
        "completions_per_s": round(samples / wall, 1),
        "p50_ms": round(1000 * statistics.median(latencies), 1),
        "p99_ms": round(1000 * latencies[min(len(latencies) - 1, int(0.99 * len(latencies)))], 1),
    }


def _batch_size(body: bytes) -> int:
    return len(json.loads(body)["query"])
