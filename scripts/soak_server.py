#!/usr/bin/env python3
"""Soak and fault test of ``rlvr serve-rewards`` on the loopback interface (bounded in time, stops by itself).

Starts ``rlvr serve-rewards --workers N --token ...`` with a plugin family whose checker can block in C
(libc ``sleep`` through ctypes), then drives it for ``--duration`` seconds with ``--clients`` threads
posting batches of right, wrong and hostile completions of every family (rewards compared with
:func:`rlvr.verify` run here), while it: SIGKILLs one worker half-way, sends samples that hang their
scoring process in native code (``--hang``), disconnects a client mid-request, and sends an oversized
body and a request with too many samples (each must be refused with 413/422, not crash anything).

Reports samples/s, wrong rewards, HTTP errors by cause (and how many fell in the killed worker's
window), p50/p99 latency of ordinary requests, RSS of the server's process tree at start and end, and
the tracebacks in the server log. ``--json PATH`` writes the same figures. Example:

    python3 scripts/soak_server.py --duration 120 --workers 2 --clients 6 --json soak.json

Exit status 1 when a wrong reward, an HTTP error outside the kill window or a traceback was seen.
"""
from __future__ import annotations

import argparse
import http.client
import json
import logging
import os
import random
import re
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

_PLUGIN = '''
import ctypes, ctypes.util
from dataclasses import dataclass
from rlvr.registry import FamilySpec, register_family
from rlvr.task import Task, Verdict
NAME = "soak.hang"
@dataclass(frozen=True)
class Config:
    """No options."""
def generate(config, split, seed, index):
    return Task(id=f"{NAME}:{split}:{seed}:{index}:x", family=NAME, prompt=[{"role": "user", "content": "Say ok."}],
                ground_truth={"answer": "ok"}, meta={})
def check(task, completion, **options):
    if "native-hang" in str(completion):
        ctypes.CDLL(ctypes.util.find_library("c")).sleep(3600)  # blocked in C: only killing the process ends it
    ok = "<answer>ok</answer>" in str(completion)
    return Verdict(reward=float(ok), correct=ok, metrics={}, reason="ok" if ok else "wrong_value")
register_family(FamilySpec(name=NAME, config_cls=Config, generator=generate, check=check,
                           oracle=lambda task: "<answer>ok</answer>", splits=("train",)), replace=True)
'''


def _rss_tree_mb(root: int) -> float:
    """Resident memory (MB) of ``root`` and all its descendants (Linux /proc)."""
    children: dict[int, list[int]] = {}
    rss: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="utf-8") as fh:
                ppid = int(fh.read().rsplit(")", 1)[1].split()[1])
            with open(f"/proc/{entry}/statm", encoding="utf-8") as fh:
                rss[int(entry)] = int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(int(entry))
    total, stack = 0, [root]
    while stack:
        pid = stack.pop()
        total += rss.get(pid, 0)
        stack.extend(children.get(pid, []))
    return total / 1e6


def build_samples(seed: int, hostile_fraction: float, tasks_per_family: int) -> list[tuple[str, str, float]]:
    """``(label json, completion, expected reward)``: right, wrong and hostile completions of every family."""
    import rlvr
    from rlvr.families.fuzz import mutate
    from rlvr.families.hostile import hostile_completions

    rng = random.Random(seed)
    corpus = hostile_completions()
    out = []
    for family in rlvr.list_families():
        if family.startswith("soak."):
            continue
        for i in range(tasks_per_family):
            task = rlvr.generate(family, seed=seed, index=i)
            oracle = rlvr.oracle_completion(task)
            kinds = [oracle, mutate(oracle, rng), "<answer>wrong</answer>"]
            n_hostile = max(1, round(len(kinds) * hostile_fraction / (1 - hostile_fraction)))
            kinds += [corpus[rng.randrange(len(corpus))] for _ in range(n_hostile)]
            for completion in kinds:
                out.append((task.to_json(), completion, rlvr.verify(task, completion, timeout="off").reward))
    return out


class Server:
    """``rlvr serve-rewards`` in a child process, its stderr in a log file."""

    def __init__(self, args: argparse.Namespace, plugin: Path, log_path: Path) -> None:
        self.token = secrets.token_hex(16)
        self.log_path = log_path
        cmd = [sys.executable, "-m", "rlvr.cli", "serve-rewards", "--host", "127.0.0.1", "--port", "0", "--workers",
               str(args.workers), "--timeout", str(args.timeout), "--plugin", str(plugin), "--max-items",
               str(args.max_items), "--max-body-mb", str(args.max_body_mb)]
        self.log = open(log_path, "w+", encoding="utf-8")
        self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=self.log,
                                     env={**os.environ, "RLVR_REWARD_TOKEN": self.token})
        deadline = time.monotonic() + args.start_wait
        self.port = 0
        while not self.port:
            if time.monotonic() > deadline or self.proc.poll() is not None:
                self.stop()
                raise RuntimeError(f"the server did not start; its log: {log_path}")
            m = re.search(r"http://127\.0\.0\.1:(\d+)", log_path.read_text(encoding="utf-8", errors="replace"))
            self.port = int(m.group(1)) if m else 0
            time.sleep(0.1)
        self.worker_pids = self.wait_workers(args.workers, deadline)

    def request(self, body: bytes, timeout: float = 120.0) -> tuple[int, dict | None]:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            conn.request("POST", "/get_reward", body=body, headers={"Content-Type": "application/json",
                                                                     "Authorization": f"Bearer {self.token}"})
            resp = conn.getresponse()
            data = resp.read()
            return resp.status, json.loads(data) if data else None
        finally:
            conn.close()

    def health(self) -> dict:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        try:
            conn.request("GET", "/health")
            return json.loads(conn.getresponse().read())
        finally:
            conn.close()

    def wait_workers(self, n: int, deadline: float) -> set[int]:
        pids: set[int] = set()
        while len(pids) < n and time.monotonic() < deadline:
            try:
                pids.add(self.health()["pid"])
            except (OSError, http.client.HTTPException, ValueError):
                time.sleep(0.2)
        return pids

    def tracebacks(self) -> int:
        return self.log_path.read_text(encoding="utf-8", errors="replace").count("Traceback")

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGINT)
        try:
            self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log.close()


def _payload(samples: list[tuple[str, str, float]]) -> bytes:
    return json.dumps({"query": [c for _, c, _ in samples], "labels": [t for t, _, _ in samples]}).encode()


def _disconnect_mid_request(port: int, token: str) -> None:
    """Send headers and half of the body, then close the connection."""
    body = json.dumps({"query": ["x"] * 1000, "labels": ["{}"] * 1000}).encode()
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall((f"POST /get_reward HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nAuthorization: "
                      f"Bearer {token}\r\nContent-Length: {len(body)}\r\n\r\n").encode() + body[: len(body) // 2])


def _oversized(port: int, token: str, size: int) -> int:
    """Announce a body of ``size`` bytes (sending none of it): the server must answer 413 at once."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.putrequest("POST", "/get_reward")
        for k, v in (("Content-Type", "application/json"), ("Authorization", f"Bearer {token}"),
                     ("Content-Length", str(size))):
            conn.putheader(k, v)
        conn.endheaders()
        return conn.getresponse().status
    except (OSError, http.client.HTTPException):
        return -1
    finally:
        conn.close()


def run(args: argparse.Namespace) -> dict:
    """The soak; returns its figures."""
    logging.disable(logging.WARNING)
    rng = random.Random(args.seed)
    samples = build_samples(args.seed, args.hostile_fraction, args.tasks_per_family)
    hang_label = json.dumps({"id": "soak.hang:train:0:0:x", "family": "soak.hang", "prompt": [],
                             "ground_truth": {"answer": "ok"}, "meta": {}})
    with tempfile.TemporaryDirectory(prefix="rlvr-soak-") as tmp:
        plugin = Path(tmp, "soak_hang_family.py")
        plugin.write_text(_PLUGIN, encoding="utf-8")
        server = Server(args, plugin, Path(args.log) if args.log else Path(tmp, "server.log"))
        try:
            return _drive(args, server, samples, hang_label, rng)
        finally:
            server.stop()


def _drive(args, server: Server, samples, hang_label: str, rng: random.Random) -> dict:
    lock = threading.Lock()
    latencies: list[float] = []
    hung_latencies: list[float] = []
    errors: Counter = Counter()
    errors_in_kill_window = 0
    wrong = 0
    n_samples = 0
    start = time.monotonic()
    stop_at = start + args.duration
    kill_window: list[float] = []  # [killed at, worker back at]
    time.sleep(0.5)
    rss_start = _rss_tree_mb(server.proc.pid)

    def client(index: int) -> None:
        nonlocal wrong, n_samples, errors_in_kill_window
        local = random.Random(args.seed * 100 + index)
        while time.monotonic() < stop_at:
            batch = [samples[local.randrange(len(samples))] for _ in range(args.batch)]
            hung = args.hang and local.random() < args.hang_rate
            if hung:
                batch[local.randrange(len(batch))] = (hang_label, "<answer>native-hang</answer>", 0.0)
            t0 = time.monotonic()
            try:
                status, body = server.request(_payload(batch))
                cause = None if status == 200 else f"http {status}"
            except (OSError, http.client.HTTPException) as exc:
                status, body, cause = -1, None, type(exc).__name__
            seconds = time.monotonic() - t0
            with lock:
                if cause is not None:
                    errors[cause] += 1
                    if kill_window and t0 <= (kill_window[1] if len(kill_window) > 1 else float("inf")) + 1.0:
                        errors_in_kill_window += 1
                    continue
                (hung_latencies if hung else latencies).append(seconds)
                n_samples += len(batch)
                wrong += sum(abs(got - want) > 1e-9 for got, (_, _, want) in zip(body["rewards"], batch))

    threads = [threading.Thread(target=client, args=(i,), daemon=True) for i in range(args.clients)]
    for t in threads:
        t.start()
    faults: dict[str, object] = {}
    time.sleep(min(2.0, args.duration / 10))
    _disconnect_mid_request(server.port, server.token)
    faults["oversized_body_status"] = _oversized(server.port, server.token, int(args.max_body_mb * 2**20) + 1)
    too_many = [samples[0]] * (args.max_items + 1)
    try:
        faults["too_many_samples_status"] = server.request(_payload(too_many))[0]
    except (OSError, http.client.HTTPException) as exc:
        faults["too_many_samples_status"] = type(exc).__name__
    if args.kill and args.workers > 1:
        time.sleep(max(0.0, start + args.duration / 2 - time.monotonic()))
        victim = sorted(server.worker_pids)[0]
        with lock:
            kill_window.append(time.monotonic())
        os.kill(victim, signal.SIGKILL)
        back = server.wait_workers(args.workers, time.monotonic() + 60)
        with lock:
            kill_window.append(time.monotonic())
        faults["killed_worker"] = victim
        faults["worker_back_after_s"] = round(kill_window[1] - kill_window[0], 2)
        faults["workers_after_kill"] = len(back)
    for t in threads:
        t.join(timeout=args.duration + 120)
    elapsed = time.monotonic() - start
    rss_end = _rss_tree_mb(server.proc.pid)
    latencies.sort()

    def pct(q: float) -> float | None:
        return round(1000 * latencies[min(len(latencies) - 1, int(q * len(latencies)))], 1) if latencies else None

    return {
        "duration_s": round(elapsed, 1), "workers": args.workers, "clients": args.clients, "batch": args.batch,
        "samples": n_samples, "samples_per_s": round(n_samples / elapsed, 1), "wrong_rewards": wrong,
        "http_errors": dict(errors), "http_errors_in_kill_window": errors_in_kill_window,
        "http_errors_outside_kill_window": sum(errors.values()) - errors_in_kill_window,
        "requests": len(latencies), "p50_ms": pct(0.50), "p99_ms": pct(0.99),
        "hung_requests": len(hung_latencies), "hung_request_max_s": round(max(hung_latencies), 2) if hung_latencies else None,
        "rss_start_mb": round(rss_start, 1), "rss_end_mb": round(rss_end, 1), "tracebacks": server.tracebacks(),
        "faults": faults, "hostile_fraction": args.hostile_fraction, "verdict_timeout_s": args.timeout,
        "load_average": os.getloadavg(), "cpus": os.cpu_count(),
    }


def verdict_ok(result: dict) -> bool:
    """Whether the soak passed: no wrong reward, no HTTP error outside the kill window, no traceback,
    the fault requests refused with 413/422, the killed worker back."""
    faults = result["faults"]
    return (result["wrong_rewards"] == 0 and result["http_errors_outside_kill_window"] == 0
            and result["tracebacks"] == 0 and faults.get("oversized_body_status") == 413
            and faults.get("too_many_samples_status") in (413, 422)
            and faults.get("workers_after_kill", result["workers"]) == result["workers"])


def summary(r: dict) -> str:
    """A compact, human-readable summary of a result."""
    f = r["faults"]
    return (f"{r['samples']} samples in {r['duration_s']} s ({r['samples_per_s']}/s; {r['workers']} workers, "
            f"{r['clients']} clients, load {r['load_average'][0]:.1f} on {r['cpus']} CPUs)\n"
            f"wrong rewards {r['wrong_rewards']}; HTTP errors {sum(r['http_errors'].values())} "
            f"({r['http_errors_in_kill_window']} in the kill window) {r['http_errors'] or ''}\n"
            f"latency p50 {r['p50_ms']} ms, p99 {r['p99_ms']} ms; hung requests {r['hung_requests']} "
            f"(max {r['hung_request_max_s']} s)\n"
            f"RSS {r['rss_start_mb']} -> {r['rss_end_mb']} MB; tracebacks in the log {r['tracebacks']}\n"
            f"faults: oversized body -> {f.get('oversized_body_status')}, too many samples -> "
            f"{f.get('too_many_samples_status')}, worker killed -> back after {f.get('worker_back_after_s')} s")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--duration", type=float, default=30.0, help="seconds of load (default 30)")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--clients", type=int, default=6)
    p.add_argument("--batch", type=int, default=32, help="samples per request")
    p.add_argument("--hostile-fraction", type=float, default=0.3)
    p.add_argument("--tasks-per-family", type=int, default=8)
    p.add_argument("--timeout", type=float, default=2.0, help="the server's verdict deadline (s)")
    p.add_argument("--hang", action=argparse.BooleanOptionalAction, default=True,
                   help="send samples whose checker blocks in C (default on)")
    p.add_argument("--hang-rate", type=float, default=0.002, help="share of requests carrying one hung sample")
    p.add_argument("--kill", action=argparse.BooleanOptionalAction, default=True, help="SIGKILL a worker half-way")
    p.add_argument("--max-items", type=int, default=512)
    p.add_argument("--max-body-mb", type=float, default=16.0)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--start-wait", type=float, default=180.0)
    p.add_argument("--log", help="keep the server log here (default: a temporary file)")
    p.add_argument("--json", help="write the figures here")
    args = p.parse_args(argv)
    if args.duration <= 0 or args.duration > 3600 or args.clients < 1 or args.workers < 1:
        print("soak_server: --duration must be in (0, 3600], --clients and --workers at least 1", file=sys.stderr)
        return 2
    result = run(args)
    result["passed"] = verdict_ok(result)
    print(summary(result))
    print("PASSED" if result["passed"] else "FAILED")
    if args.json:
        from rlvr.files import atomic_open

        with atomic_open(args.json) as fh:
            json.dump(result, fh, indent=1)
    return 0 if result["passed"] else 1


if __name__ == "__main__":
    sys.exit(main())
