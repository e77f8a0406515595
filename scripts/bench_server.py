#!/usr/bin/env python3
"""Load test of ``rlvr serve-rewards`` on the loopback interface: samples/s and request latency per worker count.

For each ``--workers`` value this starts ``rlvr serve-rewards --host 127.0.0.1 --port 0 --workers N``,
waits until every worker answers, warms it up, then runs ``--clients`` load-generator processes,
each sending at most ``--requests`` requests of ``--batch`` oracle completions (a new connection
per request, as OpenRLHF's client does, or one kept-alive connection with ``--keep-alive``) and
stopping after ``--duration`` seconds in any case. Every response is checked
(all rewards 1.0). Reports samples/s, p50/p99 request latency and the machine's load average;
the server is always stopped (SIGINT, then SIGKILL).

    python scripts/bench_server.py --workers 1,2 --clients 4 --batch 64 --duration 15 --rounds 2
    python scripts/bench_server.py --json bench_server.json
"""
from __future__ import annotations

import argparse
import http.client
import json
import os
import statistics
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context

HOST = "127.0.0.1"
FAMILIES = ("stoich.t2", "stoich.byproduct", "mol.count", "mol.index")


def build_payload(families: list[str], batch: int) -> bytes:
    """One request body: ``batch`` oracle completions of tasks drawn round-robin from ``families``."""
    import rlvr

    tasks = [rlvr.generate(families[i % len(families)], "train", 0, 10_000 + i) for i in range(batch)]
    prompts = [f"<|user|>{t.user_text}<|assistant|>" for t in tasks]
    queries = [p + rlvr.oracle_completion(t) for p, t in zip(prompts, tasks)]
    return json.dumps({"query": queries, "prompts": prompts, "labels": [t.to_json() for t in tasks]}).encode()


def post(conn: http.client.HTTPConnection, body: bytes) -> dict:
    conn.request("POST", "/get_reward", body=body, headers={"Content-Type": "application/json"})
    resp = conn.getresponse()
    data = resp.read()
    if resp.status != 200:
        raise RuntimeError(f"HTTP {resp.status}: {data[:200]!r}")
    return json.loads(data)


def client(port: int, body: bytes, batch: int, requests: int, start_at: float, stop_at: float,
           keep_alive: bool) -> list[float]:
    """One load generator: request latencies (seconds); every response must reward every sample 1.0.

    Without ``keep_alive`` every request opens its own connection, as OpenRLHF's client does.
    """
    conn = http.client.HTTPConnection(HOST, port, timeout=120)
    latencies: list[float] = []
    time.sleep(max(0.0, start_at - time.time()))
    try:
        for _ in range(requests):
            if time.time() >= stop_at:
                break
            t0 = time.perf_counter()
            result = post(conn, body)
            latencies.append(time.perf_counter() - t0)
            if not keep_alive:
                conn.close()
            if len(result["rewards"]) != batch or min(result["rewards"]) != 1.0:
                raise RuntimeError("an oracle completion scored below 1.0")
    finally:
        conn.close()
    return latencies


def start_server(workers: int, timeout: float) -> tuple[subprocess.Popen, int]:
    """``rlvr serve-rewards`` on a free loopback port, once every worker answers (the code ``rlvr bench`` runs)."""
    from rlvr.bench.server import start

    return start(workers, timeout)


def stop_server(proc: subprocess.Popen) -> None:
    from rlvr.bench.server import stop

    stop(proc)


def run_level(workers: int, args: argparse.Namespace, body: bytes) -> dict:
    proc, port = start_server(workers, args.start_timeout)
    try:
        conn = http.client.HTTPConnection(HOST, port, timeout=120)
        for _ in range(2 * workers):  # warm-up: caches, first requests on each worker
            post(conn, body)
        conn.close()
        load_before = os.getloadavg()
        start_at = time.time() + 1.0
        stop_at = start_at + args.duration
        with ProcessPoolExecutor(args.clients, mp_context=get_context("spawn")) as pool:
            futures = [pool.submit(client, port, body, args.batch, args.requests, start_at, stop_at, args.keep_alive)
                       for _ in range(args.clients)]
            results = [f.result() for f in futures]
        wall = time.time() - start_at
    finally:
        stop_server(proc)
    latencies = sorted(x for r in results for x in r)
    n_requests = len(latencies)
    return {
        "workers": workers,
        "clients": args.clients,
        "batch": args.batch,
        "requests": n_requests,
        "seconds": round(wall, 2),
        "samples_per_s": round(n_requests * args.batch / wall, 1),
        "p50_ms": round(1000 * statistics.median(latencies), 1),
        "p99_ms": round(1000 * latencies[min(n_requests - 1, int(0.99 * n_requests))], 1),
        "loadavg_before": [round(x, 2) for x in load_before],
        "loadavg_after": [round(x, 2) for x in os.getloadavg()],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", default="1,2", help="comma-separated worker counts (default 1,2)")
    parser.add_argument("--clients", type=int, default=4, help="load-generator processes")
    parser.add_argument("--batch", type=int, default=64, help="samples per request")
    parser.add_argument("--requests", type=int, default=400, help="most requests per client")
    parser.add_argument("--duration", type=float, default=15.0, help="most seconds of load per worker count")
    parser.add_argument("--rounds", type=int, default=1, help="repeat the worker counts, interleaved")
    parser.add_argument("--families", default=",".join(FAMILIES))
    parser.add_argument("--keep-alive", action="store_true",
                        help="one connection per client for all its requests (default: one per request, "
                             "as OpenRLHF's client does; kept-alive connections stay on the worker that accepted them)")
    parser.add_argument("--start-timeout", type=float, default=120.0, help="seconds to wait for the workers")
    parser.add_argument("--json", help="also write the results here")
    args = parser.parse_args(argv)
    levels = [int(w) for w in args.workers.split(",")]
    if min(levels) < 1 or min(args.clients, args.batch, args.requests, args.rounds) < 1 or args.duration <= 0:
        parser.error("--workers, --clients, --batch, --requests, --rounds and --duration must be positive")
    body = build_payload(args.families.split(","), args.batch)
    rows = [run_level(w, args, body) for _ in range(args.rounds) for w in levels]  # interleaved: load drifts
    print(f"# {os.cpu_count()} cores; load average now {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print("| workers | samples/s | p50 ms | p99 ms | requests | load before |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['workers']} | {r['samples_per_s']:.0f} | {r['p50_ms']} | {r['p99_ms']} | {r['requests']} | "
              f"{r['loadavg_before'][0]:.2f} |")
    medians = {w: statistics.median(r["samples_per_s"] for r in rows if r["workers"] == w) for w in levels}
    print("median samples/s: " + ", ".join(f"{w} workers {m:.0f} ({m / medians[levels[0]]:.2f}x)"
                                           for w, m in medians.items()))
    if args.json:
        from rlvr.files import atomic_open

        with atomic_open(args.json) as fh:
            json.dump(rows, fh, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
